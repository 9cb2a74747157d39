import type { KubeClient } from '../../src/kube/index.js';
import { get, mergePatch, remove } from './engine.js';
import { eventually } from './harness.js';

// The package Lock is one cluster-scoped object every test file with packages shares. A file that resolves
// dependencies starts and ends with none, while no engine runs: entries other files left (their revisions deleted
// while no engine ran, so nothing took them out) must not stand in for, or clash with, its packages.

export const LOCK_REF = { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'Lock', metadata: { name: 'lock' } };

/** Removes the Lock and waits until it is gone; a finalizer a replay of Crossplane's left goes by hand. */
export async function withoutLock(client: KubeClient): Promise<void> {
  await mergePatch(client, LOCK_REF, { metadata: { finalizers: null } }).catch(() => undefined);
  await remove(client, LOCK_REF).catch(() => undefined);
  await eventually('the Lock gone', async () => ((await get(client, LOCK_REF)) === undefined ? true : undefined));
}
