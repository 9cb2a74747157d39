import { MinHeap, type Clock, type Timer } from '../base/index.js';

interface WaitEntry {
  readonly at: number;
  readonly key: string;
}

/**
 * Keys waiting for a moment in time (client-go's delaying queue): addAfter and backoff. A key waits at most once
 * and a second schedule only ever moves it earlier. One timer is armed, for the earliest entry; entries superseded
 * by an earlier schedule stay in the heap and are skipped when they surface.
 */
export class DelayedKeys {
  private readonly heap = new MinHeap<WaitEntry>();
  private readonly due = new Map<string, number>();
  private timer: Timer | undefined;
  private timerAt = Infinity;
  private firing = false;

  constructor(
    private readonly clock: Clock,
    private readonly onDue: (key: string) => void,
  ) {}

  /** Schedules `key` for `at` unless it already waits until then or earlier. */
  schedule(key: string, at: number): void {
    const current = this.due.get(key);
    if (current !== undefined && current <= at) return;
    this.due.set(key, at);
    this.heap.push({ at, key });
    if (!this.firing && at < this.timerAt) this.arm();
  }

  has(key: string): boolean {
    return this.due.has(key);
  }

  /** Keys waiting. */
  get size(): number {
    return this.due.size;
  }

  /** Forgets every waiting key and disarms the timer (shutdown). */
  clear(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Infinity;
    this.heap.clear();
    this.due.clear();
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
        // Skip entries superseded by an earlier schedule (their key now waits under a different time).
        if (this.due.get(entry.key) !== entry.at) continue;
        this.due.delete(entry.key);
        this.onDue(entry.key);
      }
    } finally {
      this.firing = false;
      this.arm();
    }
  }
}
