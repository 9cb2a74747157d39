import type { KubeObject } from '../kube/index.js';

/**
 * One change seen by an informer. `resync` re-delivers a cached object on the --sync-interval timer: nothing
 * changed, so consumers (the circuit breaker) may treat it as free. An update with `afterGap` comes from a relist
 * after the watch broke: it stands for every change since `oldObject`, so even when `object` is exactly what one of
 * our own writes returned, another writer's change may hide behind it and it must not pass for a mere echo. An add
 * marked `initial` is part of the cache as its subscriber first sees it (the informer's first list, or the replay of
 * the cache to a subscriber that joined later), not a creation: controllers may spread or skip such adds.
 */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { type: 'add'; object: T; initial?: boolean }
  | { type: 'update'; object: T; oldObject: T; afterGap?: boolean }
  | { type: 'delete'; object: T }
  | { type: 'resync'; object: T };

export type WatchEventType = WatchEvent['type'];

/** The cache key of an object, as client-go writes it: "namespace/name", or "name" when cluster-scoped. */
export function objectKey(object: { metadata: { name: string; namespace?: string } }): string {
  const { name, namespace } = object.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

export function resourceVersionOf(object: KubeObject): string | undefined {
  const rv = object.metadata.resourceVersion;
  return typeof rv === 'string' ? rv : undefined;
}
