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

/**
 * What a provider's package runtime gives its process in the environment (Crossplane's runtime_provider.go and
 * runtime.go): its namespace, names and mounted TLS directories. Unset ones are undefined.
 */
export interface ProviderEnvironment {
  podNamespace?: string;
  providerName?: string;
  revisionName?: string;
  revisionUid?: string;
  tlsServerCertsDir?: string;
  tlsClientCertsDir?: string;
}

export function providerEnvironment(env: NodeJS.ProcessEnv = process.env): ProviderEnvironment {
  const read = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  return {
    podNamespace: read('POD_NAMESPACE'),
    providerName: read('PROVIDER_NAME'),
    revisionName: read('REVISION_NAME'),
    revisionUid: read('REVISION_UID'),
    // WEBHOOK_TLS_CERT_DIR is the older name of the same directory, for providers built before it was renamed.
    tlsServerCertsDir: read('TLS_SERVER_CERTS_DIR') ?? read('WEBHOOK_TLS_CERT_DIR'),
    tlsClientCertsDir: read('TLS_CLIENT_CERTS_DIR'),
  };
}
