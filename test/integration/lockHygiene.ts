import { isNotFound, type KubeClient } from '../../src/kube/index.js';
import { mergePatch, remove } from './engine.js';
import { eventually } from './harness.js';

// The package Lock is one cluster-scoped object every test file with packages shares. A file that resolves
// dependencies starts and ends with none, while no engine runs: entries other files left (their revisions deleted
// while no engine ran, so nothing took them out) must not stand in for, or clash with, its packages.

export const LOCK_REF = { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'Lock', metadata: { name: 'lock' } };
const LOCK_PATH = '/apis/pkg.crossplane.io/v1beta1/locks/lock';

/**
 * Removes the Lock and waits until it is gone; a finalizer a replay of Crossplane's left goes by hand. Before any
 * engine installed the Lock's CRD there is none: the API server answers 404 for the path either way.
 */
export async function withoutLock(client: KubeClient): Promise<void> {
  await mergePatch(client, LOCK_REF, { metadata: { finalizers: null } }).catch(() => undefined);
  await remove(client, LOCK_REF).catch(() => undefined);
  await eventually('the Lock gone', () =>
    client.request('GET', LOCK_PATH).then(
      () => undefined,
      (err: unknown) => {
        if (isNotFound(err)) return true;
        throw err;
      },
    ),
  );
}
