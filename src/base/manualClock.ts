import { repeat, sleepOn, type Clock, type Timer } from './clock.js';
import { MinHeap } from './minHeap.js';

interface PendingTimer {
  readonly at: number;
  readonly callback: () => void;
  done: boolean;
}

/**
 * A clock that moves only when told to, for tests in virtual time. `advance` fires every timer that falls due in
 * the window, in due order, with `now()` reading each timer's own due time while it runs; timers scheduled by
 * those callbacks fire too if they fall inside the window.
 */
export class ManualClock implements Clock {
  private current: number;
  private readonly timers = new MinHeap<PendingTimer>();
  private live = 0;

  constructor(startMs = 0) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimer(callback: () => void, delayMs: number): Timer {
    const timer: PendingTimer = { at: this.current + Math.max(0, delayMs), callback, done: false };
    this.timers.push(timer);
    this.live += 1;
    return {
      cancel: () => {
        if (timer.done) return;
        timer.done = true;
        this.live -= 1;
      },
    };
  }

  setInterval(callback: () => void, intervalMs: number): Timer {
    return repeat(this, callback, intervalMs);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Moves time forward by `ms`, firing due timers on the way. */
  advance(ms: number): void {
    this.advanceTo(this.current + ms);
  }

  /** Moves time forward to `targetMs`, firing due timers on the way. */
  advanceTo(targetMs: number): void {
    for (let next = this.timers.peek(); next !== undefined && next.at <= targetMs; next = this.timers.peek()) {
      this.timers.pop();
      if (next.done) continue;
      next.done = true;
      this.live -= 1;
      this.current = Math.max(this.current, next.at);
      next.callback();
    }
    this.current = Math.max(this.current, targetMs);
  }

  /** When the earliest pending timer is due, or undefined when none is pending. */
  nextTimerAt(): number | undefined {
    for (let next = this.timers.peek(); next !== undefined; next = this.timers.peek()) {
      if (!next.done) return next.at;
      this.timers.pop();
    }
    return undefined;
  }

  /** How many timers are still waiting to fire. */
  pendingTimers(): number {
    return this.live;
  }
}
