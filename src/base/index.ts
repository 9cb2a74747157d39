// base: the primitives every folder may use and none reimplements: one clock (and a manual one for tests), one LRU
// map, one backoff policy, one error-to-message helper, a min-heap, the nesting bound of every object the engine
// walks. It imports nothing from the rest of compositor.
export { backoffDelay, type Backoff } from './backoff.js';
export {
  dateOf,
  MAX_TIMER_DELAY_MS,
  monotonicClock,
  repeat,
  sleepOn,
  systemClock,
  waitAtMost,
  type Clock,
  type Timer,
} from './clock.js';
export { approximateSize, assertNesting, deeperThan, MAX_NESTING_DEPTH, NestingDepthError } from './nesting.js';
export { errorMessage } from './errors.js';
export { Fifo } from './fifo.js';
export { LruMap, type LruMapOptions } from './lru.js';
export { ManualClock } from './manualClock.js';
export { MinHeap, type HeapEntry } from './minHeap.js';
export { DEFAULT_BACKOFF, reconcileLimits, type ReconcileLimits } from './reconcileLimits.js';
export {
  fullBucket,
  giveBack,
  refill,
  reserve,
  takeOrWait,
  tryTake,
  type TokenBucketRate,
  type TokenBucketState,
} from './tokenBucket.js';
