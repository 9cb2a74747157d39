/**
 * Per-key exponential backoff for failed reconciles: base, 2x base, 4x base ... capped at max. A key's failure
 * count only grows through `when` and is cleared by `forget`, which the queue calls when a reconcile succeeds or
 * asks for a plain requeue-after, so one good reconcile ends the backoff.
 */
export interface BackoffOptions {
  /** First delay: 1s, as Crossplane's controllers. */
  readonly baseMs: number;
  /** Cap: 60s, as Crossplane's controllers. */
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1_000, maxMs: 60_000 };

export class ItemBackoff {
  private readonly failures = new Map<string, number>();

  constructor(private readonly options: BackoffOptions = DEFAULT_BACKOFF) {}

  /** The delay before the next attempt for `key`, counting this call as one more failure. */
  when(key: string): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    // 2 ** failures overflows to Infinity long after the cap is reached, and Math.min handles Infinity.
    return Math.min(this.options.baseMs * 2 ** failures, this.options.maxMs);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}
