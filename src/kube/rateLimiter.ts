import {
  type Clock,
  fullBucket,
  reconcileLimits,
  reserve,
  systemClock,
  type TokenBucketRate,
  type TokenBucketState,
} from '../base/index.js';

/** Holds a request until the client may send it. */
export interface RequestLimiter {
  wait(signal?: AbortSignal): Promise<void>;
  /** A limiter with the same limits and a budget of its own, full at first. */
  separate(): RequestLimiter;
}

/** client-go's limits as --max-reconcile-rate N sets them (reconcileLimits): qps 5N, burst 10N. */
export function clientRateFor(maxReconcileRate: number): TokenBucketRate {
  return reconcileLimits(maxReconcileRate).client;
}

/**
 * A client-side token bucket in front of every API request (watches excepted: they are long-running and not
 * counted by client-go either). Requests over the rate wait their turn in order; none is dropped.
 */
export class ClientRateLimiter implements RequestLimiter {
  private readonly bucket: TokenBucketState;

  constructor(
    private readonly rate: TokenBucketRate,
    private readonly clock: Clock = systemClock,
  ) {
    this.bucket = fullBucket(rate, clock.now());
  }

  async wait(signal?: AbortSignal): Promise<void> {
    const delayMs = reserve(this.bucket, this.rate, this.clock.now());
    if (delayMs > 0) await this.clock.sleep(delayMs, signal);
  }

  separate(): ClientRateLimiter {
    return new ClientRateLimiter(this.rate, this.clock);
  }
}
