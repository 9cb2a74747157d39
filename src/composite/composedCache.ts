import type { ApiKind } from '../apis/index.js';
import type { ObjectStore } from '../watch/index.js';
import type { RequiredWatch } from './requiredResources.js';

/** The composed kinds a composite controller watches, as its reconciler sees them (the controller implements it). */
export interface ComposedCache {
  /** The informer cache of a composed kind once it is synced (realtime only); undefined means "ask the server". */
  store(apiVersion: string, kind: string): ObjectStore | undefined;
  /**
   * The composed kinds ("apiVersion/kind") the XR's reconcile reads from the server this once although they are
   * cached: it was enqueued when their caches synced, and what it applied may postdate the first list.
   */
  takeLiveReads(xrKey: string): ReadonlySet<string>;
  /**
   * Notes that an XR asked the server for a composed kind (realtime only): if the kind's cache has not synced yet, the
   * XR is enqueued once more when it has, so a change between the read and the first list is not missed.
   */
  readBeforeSync(apiVersion: string, kind: string, xrKey: string): void;
  /**
   * Makes sure a composed kind is watched (realtime only) for an XR about to apply it. Resolves once its cache is
   * synced, or after a bounded wait for the first list, the XR then enqueued once more when the cache has synced.
   */
  watch(apiVersion: string, kind: string, xrKey: string): Promise<void>;
  /**
   * Records which kinds an XR composes or requires and which required resources it read, so kinds no XR uses any
   * more stop being watched and a change to a required resource reaches the XRs that read it.
   */
  setKinds(xrKey: string, kinds: readonly ApiKind[], required?: readonly RequiredWatch[]): void;
}
