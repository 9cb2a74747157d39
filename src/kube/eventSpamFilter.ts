// The per-object budget of Normal Events, as client-go's EventSourceObjectSpamFilter keeps it for Crossplane: each
// object may burst 25 Normal Events, then earns one more every 5 minutes. Pure: time is passed in.
import { fullBucket, LruMap, tryTake, type TokenBucketRate, type TokenBucketState } from '../base/index.js';

/** client-go's defaultSpamBurst and defaultSpamQPS (tools/record/events_cache.go). */
export const DEFAULT_NORMAL_EVENT_RATE: TokenBucketRate = { burst: 25, perSecond: 1 / 300 };
/** client-go's maxLruCacheEntries: objects whose budget is remembered; a forgotten one starts full again. */
export const DEFAULT_SPAM_TRACKED = 4096;

export interface EventSpamFilterOptions {
  rate: TokenBucketRate;
  maxTracked: number;
}

/**
 * One token bucket per object, charged one token per Normal occurrence. Warnings are never charged and never
 * refused: the budget exists to bound an object that keeps reporting the same healthy progress, and a Warning is
 * what a user must see. client-go keys its budget by source, object and type, so there too a Normal storm never
 * costs a Warning its write; here the source is the one recorder, so the object alone is the key.
 */
export class EventSpamFilter {
  private readonly buckets: LruMap<string, TokenBucketState>;

  constructor(private readonly options: EventSpamFilterOptions) {
    this.buckets = new LruMap({ max: options.maxTracked });
  }

  /** Whether a Normal occurrence about `object` at `now` may start a write; takes the object's token when it has one. */
  admitNormal(object: string, now: number): boolean {
    const bucket = this.buckets.get(object) ?? fullBucket(this.options.rate, now);
    this.buckets.set(object, bucket);
    return tryTake(bucket, this.options.rate, 1, now);
  }
}
