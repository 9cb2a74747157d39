// watch: shared, reference-counted informers per kind with an in-memory cache and secondary indexes; each one's
// changes are an RxJS Observable of typed events. Supervision (relist on 410, backoff on errors, silence
// watchdog, resync) lives here so controllers only map events to keys.
export { objectKey, resourceVersionOf, type WatchEvent, type WatchEventType } from './events.js';
export { ObjectStore, type IndexFunction } from './store.js';
export {
  KubeListerWatcher,
  type ListerWatcher,
  type ListResult,
  type RawEventType,
  type WatchCallbacks,
  type WatchHandle,
} from './listerWatcher.js';
export { Informer, type InformerOptions } from './informer.js';
export { InformerRegistry, type InformerLease, type InformerRegistryOptions } from './registry.js';
export { backoffDelay, realTimers, type Backoff, type InformerTimers } from './timers.js';
export {
  COMPOSITION_INDEX,
  COMPOSITION_REVISION_INDEX,
  RESOURCE_REFS_INDEX,
  composedRefKey,
  compositionIndex,
  compositionRevisionIndex,
  controllerOwnerKeys,
  resourceRefsIndex,
  type ObjectRef,
  type XrKind,
} from './indexes.js';
export { logSubscriberErrors } from './subscriberErrors.js';
