// circuitbreaker: the per-XR watch-event breaker. Pure token-bucket logic on an injected clock, the RxJS operator
// that applies it between the watch streams and the work queue, and the Responsive condition that reports it.
export { nopBreaker, type Breaker, type BreakerState, type EventResult, type Transition } from './breaker.js';
export { circuitBreaker, type CircuitBreakerOperatorOptions } from './operator.js';
export { OwnWrites, type EchoBound, type OwnWritesOptions } from './ownWrites.js';
export { responsiveCondition, type ResponsiveCondition } from './responsive.js';
export {
  DEFAULT_BREAKER_SETTINGS,
  TokenBucketBreaker,
  type BreakerSettings,
  type TokenBucketBreakerOptions,
} from './tokenBucketBreaker.js';
export { describeSource, isDeleting, type WatchedObject } from './watchedObject.js';
export { admit, EVENT_COST, type WatchCause, type XrEvent } from './xrEvent.js';
