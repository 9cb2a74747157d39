import type { Clock, Timer } from './clock.js';
import { MinHeap } from './minHeap.js';

/**
 * Why a key is waiting: `requeue` for addAfter/backoff (re-enters through add, so it is rate limited when due),
 * `admit` for a key that already holds a rate-limiter slot and only waits for that slot's time.
 */
export type WaitReason = 'requeue' | 'admit';

interface WaitEntry {
  readonly at: number;
  readonly key: string;
  readonly reason: WaitReason;
}

/**
 * Keys waiting for a moment in time (client-go's delaying queue). A key waits at most once per reason and a
 * second schedule only ever moves it earlier. One timer is armed, for the earliest entry; entries superseded by an
 * earlier schedule stay in the heap and are skipped when they surface.
 */
export class DelayedKeys {
  private readonly heap = new MinHeap<WaitEntry>();
  private readonly due: Record<WaitReason, Map<string, number>> = { requeue: new Map(), admit: new Map() };
  private timer: Timer | undefined;
  private timerAt = Infinity;
  private firing = false;

  constructor(
    private readonly clock: Clock,
    private readonly onDue: (key: string, reason: WaitReason) => void,
  ) {}

  /** Schedules `key` for `at` unless it already waits for the same reason until then or earlier. */
  schedule(key: string, at: number, reason: WaitReason): void {
    const current = this.due[reason].get(key);
    if (current !== undefined && current <= at) return;
    this.due[reason].set(key, at);
    this.heap.push({ at, key, reason });
    if (!this.firing && at < this.timerAt) this.arm();
  }

  has(key: string, reason: WaitReason): boolean {
    return this.due[reason].has(key);
  }

  /** Keys waiting, both reasons together. */
  get size(): number {
    return this.due.requeue.size + this.due.admit.size;
  }

  /** Forgets every waiting key and disarms the timer (shutdown). */
  clear(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Infinity;
    this.heap.clear();
    this.due.requeue.clear();
    this.due.admit.clear();
  }

  private arm(): void {
    this.timer?.cancel();
    const next = this.heap.peek();
    if (next === undefined) {
      this.timer = undefined;
      this.timerAt = Infinity;
      return;
    }
    this.timerAt = next.at;
    this.timer = this.clock.setTimer(() => {
      this.fire();
    }, next.at - this.clock.now());
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    this.firing = true;
    try {
      const now = this.clock.now();
      for (let entry = this.heap.peek(); entry !== undefined && entry.at <= now; entry = this.heap.peek()) {
        this.heap.pop();
        const waiting = this.due[entry.reason];
        // Skip entries superseded by an earlier schedule (their key now waits under a different time).
        if (waiting.get(entry.key) !== entry.at) continue;
        waiting.delete(entry.key);
        this.onDue(entry.key, entry.reason);
      }
    } finally {
      this.firing = false;
      this.arm();
    }
  }
}
