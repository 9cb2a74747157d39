/**
 * The queue's only view of time. Production uses the system clock; tests pass a `ManualClock` and step it, so no
 * test waits for a real timer.
 */
export interface Clock {
  /** Milliseconds on a clock that only moves forward while the process runs. */
  now(): number;
  /** Calls `callback` once after `delayMs`; the returned handle cancels it. */
  setTimer(callback: () => void, delayMs: number): Timer;
}

export interface Timer {
  cancel(): void;
}

/**
 * Wall-clock time and Node timers. Timers are unref'd: a pending requeue is not a reason to keep the process
 * alive, the manager's watches and servers are.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, delayMs) {
    const handle = setTimeout(callback, Math.max(0, delayMs));
    handle.unref();
    return {
      cancel: () => {
        clearTimeout(handle);
      },
    };
  },
};
