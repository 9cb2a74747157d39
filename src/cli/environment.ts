// The one place compositor reads its environment. The COMPOSITOR_* variable of each flag is read by commander
// (program.ts, names from flags.ts); what else the process takes from its environment is read here, when a command
// runs, and passed down as values: nothing below the CLI reads process.env.
import type { KubeconfigSource } from '../kube/index.js';

/** Where loadKubeConfig looks: --kubeconfig, then $KUBECONFIG, ~/.kube/config and the in-cluster service account. */
export function kubeconfigSource(path: string | undefined, env: NodeJS.ProcessEnv = process.env): KubeconfigSource {
  return { path, env };
}

/**
 * Whether the cache trims objects (watch/trim.ts). COMPOSITOR_CACHE_TRIM=false turns trimming off: a benchmark switch,
 * not a user flag, so that `bench:scale -- --no-cache-trim` can measure the memory trimming saves.
 */
export function cacheTrimEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.COMPOSITOR_CACHE_TRIM !== 'false';
}
