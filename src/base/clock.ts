/**
 * The one view of time in compositor: the work queue's delays, the informer's watchdog, backoff and resync, the
 * breaker's buckets, the event recorder's windows, every retry's pause and the reconcilers' timestamps all read a
 * `Clock`. Nothing else calls setTimeout, setInterval, Date.now or performance.now. Production uses `systemClock` (or
 * `monotonicClock` where only intervals matter); tests pass a `ManualClock` and step it, so no test waits for a real
 * timer.
 */
export interface Clock {
  /** Milliseconds: since the epoch on `systemClock`, since process start on `monotonicClock`. */
  now(): number;
  /** Calls `callback` once after `delayMs`; the returned handle cancels it. */
  setTimer(callback: () => void, delayMs: number): Timer;
  /** Calls `callback` every `intervalMs` until the returned handle cancels it; a late tick is not made up. */
  setInterval(callback: () => void, intervalMs: number): Timer;
  /**
   * Resolves after `ms`; when `signal` aborts first, rejects as node:timers/promises' setTimeout does (an AbortError
   * whose cause is the signal's reason) and cancels the timer.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface Timer {
  cancel(): void;
}

/**
 * A clock on Node timers. Timers and intervals are unref'd: a pending requeue or resync is not a reason to keep the
 * process alive, the manager's watches and servers are. A sleep is, as node:timers/promises' setTimeout is: someone
 * awaits it (a retry of a short-lived CLI command between its attempts), and the process must not exit under it.
 */
function nodeClock(now: () => number): Clock {
  const clock: Clock = {
    now,
    setTimer: nodeTimer(false),
    setInterval: (callback, intervalMs) => repeat(clock, callback, intervalMs),
    sleep: (ms, signal) => sleepOn({ setTimer: nodeTimer(true) }, ms, signal),
  };
  return clock;
}

/** Wall-clock time: for timestamps written to the API server and anything compared with them. */
export const systemClock: Clock = nodeClock(() => Date.now());

/** Like `systemClock`, but `now()` never moves backwards when the wall clock is set: for deadlines and intervals. */
export const monotonicClock: Clock = nodeClock(() => performance.now());

/**
 * The longest delay setTimeout keeps (2^31-1 ms, about 24.8 days). Node fires a longer one after 1 ms, so a poll
 * interval of 30 days would re-arm a queue's timer every millisecond; clamped, the timer wakes early, finds nothing
 * due and re-arms for the rest.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

function nodeTimer(keepAlive: boolean): (callback: () => void, delayMs: number) => Timer {
  return (callback, delayMs) => {
    const handle = setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
    if (!keepAlive) handle.unref();
    return {
      cancel: () => {
        clearTimeout(handle);
      },
    };
  };
}

/** `clock.now()` as a Date, for timestamps written to the API server (lastTransitionTime, annotations). */
export function dateOf(clock: Pick<Clock, 'now'>): Date {
  return new Date(clock.now());
}

/** `Clock.sleep` on any clock's `setTimer`: every clock, the manual one included, sleeps this one way. */
export function sleepOn(clock: Pick<Clock, 'setTimer'>, ms: number, signal?: AbortSignal): Promise<void> {
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

/**
 * `Clock.setInterval` on any clock's `setTimer`: the next tick is armed before `callback` runs, so a callback that
 * cancels the interval cancels that tick, and a manual clock advanced past several intervals fires each of them.
 */
export function repeat(clock: Pick<Clock, 'setTimer'>, callback: () => void, intervalMs: number): Timer {
  let cancelled = false;
  let timer: Timer | undefined;
  const arm = (): void => {
    timer = clock.setTimer(() => {
      if (cancelled) return;
      arm();
      callback();
    }, intervalMs);
  };
  arm();
  return {
    cancel: () => {
      cancelled = true;
      timer?.cancel();
    },
  };
}

/** Waits for `work` or `ms` on `clock`, whichever comes first: a start that should not hang on what it only warms. */
export async function waitAtMost(clock: Clock, work: Promise<unknown>, ms: number): Promise<void> {
  const done = new AbortController();
  const bound = clock.sleep(ms, done.signal).catch(() => undefined);
  try {
    await Promise.race([work, bound]);
  } finally {
    done.abort();
  }
}

function abortError(signal: AbortSignal | undefined): Error {
  const err = new Error('The operation was aborted', { cause: signal?.reason });
  err.name = 'AbortError';
  return Object.assign(err, { code: 'ABORT_ERR' });
}
