// compositor keeps its Secrets (the function runtime's CA and client certificate) and its leader lease in its own
// namespace, --leader-election-namespace. The chart creates that namespace as its release namespace; the fresh
// control plane of `compositor dev` has only the built-in ones, so dev creates it before the engine starts.
import { serverSideApply, Discovery, FIELD_MANAGERS, type KubeClient } from '../kube/index.js';
import type { Runnable } from '../lifecycle/index.js';
import { StartupError } from '../manager/index.js';

/**
 * Creates (server-side applies) one namespace when started; stopping leaves it, as the control plane goes with it.
 * Runs first among dev's runnables, since the manager starts them in order.
 *
 * @example new DevNamespace(client, 'crossplane-system') // start() resolves once the namespace exists
 */
export class DevNamespace implements Runnable {
  readonly name = 'namespace';

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
  ) {}

  async start(signal: AbortSignal): Promise<void> {
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: this.namespace } };
    try {
      await serverSideApply(this.client, new Discovery(this.client), namespace, {
        fieldManager: FIELD_MANAGERS.dev,
        signal,
      });
    } catch (err) {
      throw new StartupError(`cannot create namespace "${this.namespace}": ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }
}
