import { backoffDelay, DEFAULT_BACKOFF, type Backoff } from '../base/index.js';

/**
 * Per-key exponential backoff for failed reconciles: base, 2x base, 4x base ... capped. A key's failure count only
 * grows through `when` and is cleared by `forget`, which the queue calls when a reconcile succeeds or asks for a
 * plain requeue-after, so one good reconcile ends the backoff.
 */
export class ItemBackoff {
  private readonly failures = new Map<string, number>();

  constructor(private readonly backoff: Backoff = DEFAULT_BACKOFF) {}

  /** The delay before the next attempt for `key`, counting this call as one more failure. */
  when(key: string): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    return backoffDelay(this.backoff, failures);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}
