import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
// From its own module, not the package root, which loads client-node's generated API clients (slimClientNode.ts).
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';

/** The kubeconfig could not be found or read; the message says where compositor looked. */
export class KubeconfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KubeconfigError';
  }
}

export interface KubeconfigSource {
  /** --kubeconfig; wins over everything else. */
  path?: string | undefined;
  /** The process environment ($KUBECONFIG, KUBERNETES_SERVICE_HOST), as the CLI read it. */
  env: NodeJS.ProcessEnv;
  home?: string;
}

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * Loads the kubeconfig the way kubectl finds it: --kubeconfig, then $KUBECONFIG, then ~/.kube/config, then the
 * in-cluster service account. Unlike client-node's loadFromDefault it never falls back to an unauthenticated
 * localhost:8080, which would turn a missing kubeconfig into a confusing connection error.
 */
export function loadKubeConfig(source: KubeconfigSource): KubeConfig {
  const { env } = source;
  const kc = new KubeConfig();
  const read = (file: string, origin: string): KubeConfig => {
    if (!existsSync(file)) throw new KubeconfigError(`kubeconfig "${file}" from ${origin} does not exist`);
    try {
      kc.loadFromFile(file);
    } catch (err) {
      throw new KubeconfigError(`cannot read kubeconfig "${file}" from ${origin}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (!kc.getCurrentCluster()) {
      throw new KubeconfigError(`kubeconfig "${file}" from ${origin} has no current context with a cluster`);
    }
    return kc;
  };

  if (source.path) return read(source.path, '--kubeconfig');
  const fromEnv = env.KUBECONFIG?.split(delimiter).find((file) => file !== '');
  if (fromEnv) return read(fromEnv, '$KUBECONFIG');
  const home = join(source.home ?? homedir(), '.kube', 'config');
  if (existsSync(home)) return read(home, 'the home directory');
  if (env.KUBERNETES_SERVICE_HOST && existsSync(SERVICE_ACCOUNT_TOKEN)) {
    kc.loadFromCluster();
    return kc;
  }
  throw new KubeconfigError(
    'no kubeconfig found: pass --kubeconfig, set KUBECONFIG, create ~/.kube/config or run inside a cluster',
  );
}
