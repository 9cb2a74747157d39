import type { OwnWrites } from '../circuitbreaker/index.js';
import { CONTENT_TYPE, type Discovery, type KubeClient, type KubeObject } from '../kube/index.js';

/** What a server-side apply of the composite reconciler goes through. */
export interface ApplyDeps {
  client: KubeClient;
  discovery: Discovery;
  ownWrites: OwnWrites;
}

/**
 * Server-side applies an object under `fieldManager`, taking conflicting fields (force). Its echo is recorded as this
 * controller's own write (no reconcile) unless `trackEcho` is false: a nested XR of this controller's own kind must
 * reach its own reconcile through that event.
 */
export async function serverSideApply<T extends KubeObject>(
  deps: ApplyDeps,
  object: T,
  { fieldManager, signal, trackEcho = true }: { fieldManager: string; signal: AbortSignal; trackEcho?: boolean },
): Promise<T> {
  const { client, discovery, ownWrites } = deps;
  const path = await discovery.path(object.apiVersion, object.kind, object.metadata.name, object.metadata.namespace);
  const write = (): Promise<T> =>
    client.request<T>('PATCH', path, {
      body: object,
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager, force: true },
      signal,
    });
  return trackEcho ? ownWrites.track(object, write) : write();
}
