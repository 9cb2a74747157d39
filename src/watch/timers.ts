import { setTimeout as sleepFor } from 'node:timers/promises';
import { monotonicClock, type Backoff, type Clock } from '../base/index.js';

/**
 * Time as the informer sees it: a clock (the silence deadline of a watch, how long a watch lasted) and what the
 * informer's supervision needs beyond it, injected so backoff, resync and the deadline are tested without real waits.
 */
export interface InformerTimers extends Clock {
  /** Resolves after ms, or rejects with an AbortError when the signal aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Calls fn every ms until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
  random(): number;
}

export const realTimers: InformerTimers = {
  now: () => monotonicClock.now(),
  setTimer: (callback, delayMs) => monotonicClock.setTimer(callback, delayMs),
  sleep: (ms, signal) => sleepFor(ms, undefined, { signal }),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => {
      clearInterval(timer);
    };
  },
  random: Math.random,
};

/** Relists after failures: 500 ms doubling to 30 s, half of each delay random so informers spread out. */
export const INFORMER_BACKOFF: Backoff = { baseMs: 500, capMs: 30_000, jitter: 0.5 };

/** Waits for `work` or `ms`, whichever comes first: a start that should not hang on what it only warms. */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
  }
}
