import { systemClock, type Clock, type Timer } from '../base/index.js';
import { fullBucket, giveBack, takeOrWait, type TokenBucketRate, type TokenBucketState } from '../base/index.js';

/** A work queue that waits for a reconcile token. */
export interface TokenWaiter {
  /**
   * Called with a token when the waiter's turn comes; the waiter starts a reconcile with it at once. Returns false
   * when it can no longer use it (stopped, nothing left to start): the token goes back for the next waiter.
   */
  grant(): boolean;
}

/**
 * The one token bucket of a process (`--max-reconcile-rate` N: N reconciles per second, burst 10N) that every
 * reconcile of every controller passes, polls and requeues included; a bucket per controller would let a cluster
 * with 40 XRDs run 40N. A queue asks when a worker is about to start, so a key passes the limiter once.
 *
 * While tokens are scarce, queues wait in one line and are served round-robin: a queue served goes to the back if it
 * still has work, and a new request queues behind those already waiting, so one XRD's storm delays another XRD's XR
 * by at most one token interval per busy queue. One timer, for the next token, serves the whole line.
 *
 * @example
 * const limiter = new ReconcileLimiter(reconcileLimits(10).reconciles);
 * const queue = new ReconcileQueue({ name, reconcile, metrics, workers: 10, limiter });
 */
export class ReconcileLimiter {
  private readonly bucket: TokenBucketState;
  /** Waiting queues in turn order: a Set keeps insertion order, so a waiter added again goes to the back. */
  private readonly waiters = new Set<TokenWaiter>();
  /** Armed while queues wait: the moment the next token is earned. */
  private timer: Timer | undefined;
  /** True while `serve` grants tokens, so a waiter re-queued from its `grant` does not arm a second timer. */
  private serving = false;

  constructor(
    private readonly rate: TokenBucketRate,
    private readonly clock: Clock = systemClock,
  ) {
    if (!(rate.perSecond > 0)) throw new RangeError(`reconcile rate must be positive, got ${rate.perSecond}`);
    if (!(rate.burst >= 1)) throw new RangeError(`reconcile burst must be at least 1, got ${rate.burst}`);
    this.bucket = fullBucket(rate, clock.now());
  }

  /**
   * Takes a token and returns true when one is there and no queue waits before `waiter`. Otherwise puts `waiter` at
   * the back of the line (once) and returns false; its `grant` is called when its turn comes.
   */
  take(waiter: TokenWaiter): boolean {
    if (this.waiters.has(waiter)) return false;
    if (this.waiters.size === 0 && takeOrWait(this.bucket, this.rate, this.clock.now()) === 0) return true;
    this.waiters.add(waiter);
    if (this.timer === undefined && !this.serving) this.serve();
    return false;
  }

  /** Takes `waiter` out of the line: a stopping queue is granted nothing more. */
  cancel(waiter: TokenWaiter): void {
    this.waiters.delete(waiter);
    if (this.waiters.size > 0) return;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Queues waiting for a token. Informational: it changes as tokens are earned. */
  get waiting(): number {
    return this.waiters.size;
  }

  /** Grants tokens to the line in turn while the bucket has them; when it runs dry, comes back for the next one. */
  private serve(): void {
    this.serving = true;
    try {
      for (let next = first(this.waiters); next !== undefined; next = first(this.waiters)) {
        const waitMs = takeOrWait(this.bucket, this.rate, this.clock.now());
        if (waitMs > 0) {
          this.timer = this.clock.setTimer(() => {
            this.timer = undefined;
            this.serve();
          }, waitMs);
          return;
        }
        this.waiters.delete(next);
        if (!next.grant()) giveBack(this.bucket, this.rate);
      }
    } finally {
      this.serving = false;
    }
  }
}

function first<T>(set: Set<T>): T | undefined {
  for (const item of set) return item;
  return undefined;
}
