import type { ObjectStore } from '../watch/index.js';
import type { RequiredWatch } from './requiredResources.js';

/** The composed kinds a composite controller watches, as its reconciler sees them (the controller implements it). */
export interface ComposedCache {
  /** The informer cache of a composed kind once it is synced (realtime only); undefined means "ask the server". */
  store(apiVersion: string, kind: string): ObjectStore | undefined;
  /** Makes sure a composed kind is watched (realtime only; resolves when its cache is synced). */
  watch(apiVersion: string, kind: string): Promise<void>;
  /**
   * Records which kinds an XR composes or requires and which required resources it read, so kinds no XR uses any
   * more stop being watched and a change to a required resource reaches the XRs that read it.
   */
  setKinds(xrKey: string, kinds: readonly string[], required?: readonly RequiredWatch[]): void;
}
