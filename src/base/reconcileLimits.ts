import type { Backoff } from './backoff.js';
import type { TokenBucketRate } from './tokenBucket.js';

/** Per-key backoff after a failed reconcile (the work queue's default). */
export const DEFAULT_BACKOFF: Backoff = {
  /** First delay: 1s, as Crossplane's controllers. */
  baseMs: 1_000,
  /** Cap: 60s, as Crossplane's controllers. */
  capMs: 60_000,
};

/** Everything `--max-reconcile-rate` N sets, as Crossplane's reconciler rate limiting design derives it. */
export interface ReconcileLimits {
  /** The API client: 5N requests per second, burst 10N (client-go's qps and burst). */
  readonly client: TokenBucketRate;
  /** The one process-wide bucket every reconcile of every controller passes: N per second, burst 10N. */
  readonly reconciles: TokenBucketRate;
  /** Per-object backoff after a failed reconcile: 1 s doubling to 60 s, whatever N is. */
  readonly backoff: Backoff;
  /** Reconciles in flight at once per controller: N, the default of `--max-concurrent-reconciles`. */
  readonly workers: number;
  /**
   * The process's budget of Normal Events over all objects: burst N, then N/50 per second (2 at the default 100),
   * about what client-go's one serial Event writer gets through while a burst keeps the API server busy.
   */
  readonly normalEvents: TokenBucketRate;
}

/**
 * The one place the limits are derived from N, so the flag's help, the API client, the reconcile limiter, the
 * worker pools and the Event budget cannot drift apart.
 *
 * @example
 * reconcileLimits(10).reconciles; // { perSecond: 10, burst: 100 }
 */
export function reconcileLimits(maxReconcileRate: number): ReconcileLimits {
  const n = maxReconcileRate;
  return {
    client: { perSecond: 5 * n, burst: 10 * n },
    reconciles: { perSecond: n, burst: 10 * n },
    backoff: DEFAULT_BACKOFF,
    workers: n,
    normalEvents: { perSecond: n / 50, burst: n },
  };
}
