/**
 * The one backoff policy: each delay is `factor` times the one before, from `baseMs` up to `capMs`, with an optional
 * random share. The work queue (1 s doubling to 60 s), the informer's relists (500 ms doubling to 30 s, equal
 * jitter), the gRPC runner's retries (100 ms doubling to 2 s) and the managed writer's critical annotation retries
 * (client-go's DefaultBackoff: 10 ms, x5, four steps) are all this policy with their own numbers.
 */
export interface Backoff {
  /** The first delay. */
  readonly baseMs: number;
  /** No delay is longer. */
  readonly capMs: number;
  /** Growth per attempt; 2 unless said. */
  readonly factor?: number;
  /**
   * The random share of each delay, 0 to 1: 0 (the default) is none, 0.5 is "equal jitter" (half of the delay is
   * fixed, half random, so retries of many clients spread out).
   */
  readonly jitter?: number;
}

/**
 * The delay before retry `attempt`, counted from 0 (the first retry waits `baseMs`). `random` returns [0, 1) and is
 * asked only when the policy has jitter.
 *
 * @example
 * const delayMs = backoffDelay({ baseMs: 1_000, capMs: 60_000 }, failures);
 */
export function backoffDelay(backoff: Backoff, attempt: number, random: () => number = Math.random): number {
  // factor ** attempt overflows to Infinity long after the cap is reached, and Math.min handles Infinity.
  const step = Math.min(backoff.capMs, backoff.baseMs * (backoff.factor ?? 2) ** Math.max(0, attempt));
  const jitter = backoff.jitter ?? 0;
  if (jitter === 0) return step;
  return Math.round(step * (1 - jitter) + random() * step * jitter);
}
