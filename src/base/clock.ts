/**
 * The one view of time in compositor: the work queue's delays, the informer's watchdog and backoff, the breaker's
 * buckets, the event recorder's windows and the reconcilers' timestamps all read a `Clock`. Production uses
 * `systemClock` (or `monotonicClock` where only intervals matter); tests pass a `ManualClock` and step it, so no test
 * waits for a real timer.
 */
export interface Clock {
  /** Milliseconds: since the epoch on `systemClock`, since process start on `monotonicClock`. */
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
  setTimer: unrefTimer,
};

/** Like `systemClock`, but `now()` never moves backwards when the wall clock is set: for deadlines and intervals. */
export const monotonicClock: Clock = {
  now: () => performance.now(),
  setTimer: unrefTimer,
};

/**
 * The longest delay setTimeout keeps (2^31-1 ms, about 24.8 days). Node fires a longer one after 1 ms, so a poll
 * interval of 30 days would re-arm a queue's timer every millisecond; clamped, the timer wakes early, finds nothing
 * due and re-arms for the rest.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

function unrefTimer(callback: () => void, delayMs: number): Timer {
  const handle = setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
  handle.unref();
  return {
    cancel: () => {
      clearTimeout(handle);
    },
  };
}

/** `clock.now()` as a Date, for timestamps written to the API server (lastTransitionTime, annotations). */
export function dateOf(clock: Pick<Clock, 'now'>): Date {
  return new Date(clock.now());
}

/**
 * Resolves after `ms` on `clock`; when `signal` aborts first, rejects as node:timers/promises' setTimeout does (an
 * AbortError whose cause is the signal's reason) and cancels the timer.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) return Promise.reject(abortError(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      timer.cancel();
      reject(abortError(signal));
    };
    // Listening first: a clock may fire at once (a test's), and then the listener goes with it.
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
  });
}

function abortError(signal: AbortSignal | undefined): Error {
  const err = new Error('The operation was aborted', { cause: signal?.reason });
  err.name = 'AbortError';
  return Object.assign(err, { code: 'ABORT_ERR' });
}
