// watch: shared, reference-counted informers per kind with an in-memory cache and secondary indexes; each one's
// changes are an RxJS Observable of typed events. Supervision (relist on 410, backoff on errors, a silence deadline
// that replaces silently dead connections, resync) lives here so controllers only map events to keys.
export { objectKey, resourceVersionOf, type WatchEvent, type WatchEventType } from './events.js';
export { ObjectStore, type IndexFunction } from './store.js';
export {
  KubeListerWatcher,
  type ListerWatcher,
  type ListResult,
  type RawEventType,
  type WatchCallbacks,
  type WatchHandle,
  type WatchOptions,
} from './listerWatcher.js';
export { Informer, type InformerOptions } from './informer.js';
export { withReplay } from './replay.js';
export { InformerRegistry, type InformerLease, type InformerRegistryOptions, type InformerScope } from './registry.js';
export {
  SHORT_WATCH_MS,
  SilenceWatchdog,
  WATCH_GRACE_MS,
  WATCH_TIMEOUT_SECONDS,
  silenceLimitMs,
  watchTimeoutSeconds,
} from './watchDeadline.js';
export {
  COMPOSITION_INDEX,
  COMPOSITION_REVISION_INDEX,
  RESOURCE_REFS_INDEX,
  composedRefKey,
  compositionIndex,
  compositionRevisionIndex,
  controllerOwnerKeys,
  NAMESPACE_INDEX,
  namespaceIndex,
  NO_COMPOSITION_YET,
  resourceRefsIndex,
  type XrKind,
} from './indexes.js';
export { logSubscriberErrors } from './subscriberErrors.js';
export { fnv1a32, ownedBy, shardFilter, shardOf, type Shard, type WithUid } from './shard.js';
