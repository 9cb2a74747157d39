// queue: the controllers' work queue. Dedupes keys, delays and backs them off, meters every add through a global
// token bucket, and runs a bounded pool of workers so a key is never reconciled twice at once.
export { systemClock, type Clock, type Timer } from './clock.js';
export { ManualClock } from './manualClock.js';
export { DEFAULT_BACKOFF, ItemBackoff, type BackoffOptions } from './itemBackoff.js';
export type { ReconcileOutcome, ReconcileResult, Reconciler } from './outcome.js';
export { ReconcileQueue, type ReconcileQueueOptions, type ShutdownResult } from './reconcileQueue.js';
export { fullBucket, refill, reserve, tryTake, type TokenBucketRate, type TokenBucketState } from './tokenBucket.js';
