import type { Breaker } from './breaker.js';
import type { OwnWrites } from './ownWrites.js';
import { isDeleting, type WatchedObject } from './watchedObject.js';

/** The watch event kinds the watch layer emits; `resync` is an informer replaying its cache. */
export type WatchCause = 'add' | 'update' | 'delete' | 'resync';

/**
 * One watch event, already mapped to one XR it concerns. A watch event about a composed resource shared by
 * several XRs becomes several of these, one per XR, and each XR's bucket is charged.
 */
export interface XrEvent {
  /** The XR to reconcile, keyed as the work queue keys it (`namespace/name`, or `name` when cluster-scoped). */
  readonly xrKey: string;
  readonly cause: WatchCause;
  /** The object the watch event is about: the XR itself, a composed resource, a CompositionRevision ... */
  readonly object: WatchedObject;
  /** True when `object` is the XR itself (the self-watch): deleting the XR resets its circuit. */
  readonly isXr?: boolean;
  /**
   * True when an echo of compositor's own write must still reconcile `xrKey`: the object is another XR of the same
   * kind nested in this one, so its reconcile's own writes (say, its Ready condition) are this XR's news.
   */
  readonly echoMatters?: boolean;
  /**
   * True when the event collapses every change since the last one seen (an informer's relist after its watch broke):
   * an echo of our own write may then hide another writer's change made before it, so it reconciles all the same.
   */
  readonly afterGap?: boolean;
}

/**
 * Token costs, the same as Crossplane's so users' tuned `--circuit-breaker-*` values keep their meaning:
 * controller-runtime maps an update twice (old and new object) and Crossplane charges each, so an update costs 2;
 * a create costs 1.
 */
export const EVENT_COST = { add: 1, update: 2 } as const;

/**
 * Decides whether `event` should reconcile its XR: deletions always pass (and an XR's deletion resets its circuit);
 * resyncs and echoes of our own writes pass nothing and cost nothing; anything else is charged to the breaker.
 * Returns the key to enqueue, or undefined.
 */
export function admit(event: XrEvent, breaker: Breaker, ownWrites: OwnWrites | undefined): string | undefined {
  const { xrKey, cause, object } = event;
  if (cause === 'delete' || isDeleting(object)) {
    if (event.isXr === true) breaker.reset(xrKey);
    if (cause === 'delete') ownWrites?.forget(object);
    return xrKey;
  }
  if (cause === 'resync') return undefined;
  // isEcho is asked even after a gap: it also wakes whoever waits for the echo.
  if (event.echoMatters !== true && ownWrites?.isEcho(object) === true && event.afterGap !== true) return undefined;
  return breaker.record(xrKey, EVENT_COST[cause], object) === 'Dropped' ? undefined : xrKey;
}
