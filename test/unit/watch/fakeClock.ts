import type { WatchdogClock } from '../../../src/watch/index.js';

/** Virtual time for the watch deadline: timers fire only when a test advances the clock. */
export class FakeClock implements WatchdogClock {
  private time = 0;
  private timers: { at: number; fn: () => void }[] = [];

  now(): number {
    return this.time;
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + ms, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by ms, firing every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = next.at;
      next.fn();
    }
    this.time = target;
  }
}
