import type { ObjectStore } from '../watch/index.js';
import type { RequiredWatch } from './requiredResources.js';

/** The composed kinds a composite controller watches, as its reconciler sees them (the controller implements it). */
export interface ComposedCache {
  /** The informer cache of a composed kind once it is synced (realtime only); undefined means "ask the server". */
  store(apiVersion: string, kind: string): ObjectStore | undefined;
  /**
   * Notes that an XR asked the server for a composed kind whose cache has not synced (realtime only): the XR is
   * enqueued once more when it has, so a change between the read and the first list is not missed.
   */
  readBeforeSync(apiVersion: string, kind: string, xrKey: string): void;
  /**
   * Makes sure a composed kind is watched (realtime only) for an XR about to apply it. Resolves once the watch is
   * started, not when its cache has synced: an XR that applied before then is enqueued once more when it has.
   */
  watch(apiVersion: string, kind: string, xrKey: string): Promise<void>;
  /**
   * Records which kinds an XR composes or requires and which required resources it read, so kinds no XR uses any
   * more stop being watched and a change to a required resource reaches the XRs that read it.
   */
  setKinds(xrKey: string, kinds: readonly string[], required?: readonly RequiredWatch[]): void;
}
