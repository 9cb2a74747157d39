import { setTimeout as sleepFor } from 'node:timers/promises';
import { fullBucket, reserve, type TokenBucketRate, type TokenBucketState } from '../queue/index.js';

/** Holds a request until the client may send it. */
export interface RequestLimiter {
  wait(signal?: AbortSignal): Promise<void>;
}

/** client-go's limits as --max-reconcile-rate N sets them in Crossplane: qps 5N, burst 10N. */
export function clientRateFor(maxReconcileRate: number): TokenBucketRate {
  return { perSecond: 5 * maxReconcileRate, burst: 10 * maxReconcileRate };
}

/**
 * A client-side token bucket in front of every API request (watches excepted: they are long-running and not
 * counted by client-go either). Requests over the rate wait their turn in order; none is dropped.
 */
export class ClientRateLimiter implements RequestLimiter {
  private readonly bucket: TokenBucketState;

  constructor(
    private readonly rate: TokenBucketRate,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<unknown> = (ms, signal) =>
      sleepFor(ms, undefined, { signal }),
  ) {
    this.bucket = fullBucket(rate, now());
  }

  async wait(signal?: AbortSignal): Promise<void> {
    const delayMs = reserve(this.bucket, this.rate, this.now());
    if (delayMs > 0) await this.sleep(delayMs, signal);
  }
}
