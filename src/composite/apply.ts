import type { OwnWrites } from '../circuitbreaker/index.js';
import type { Discovery, KubeClient } from '../kube/index.js';

/**
 * What a server-side apply of the composite reconciler goes through (kube's serverSideApply): its echo is recorded in
 * `ownWrites` as this controller's own write, so it triggers no reconcile.
 */
export interface ApplyDeps {
  client: KubeClient;
  discovery: Discovery;
  ownWrites: OwnWrites;
}
