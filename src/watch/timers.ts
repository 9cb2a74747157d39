import { setTimeout as sleepFor } from 'node:timers/promises';
import type { WatchdogClock } from './watchDeadline.js';

/**
 * Time as the informer sees it: injected so its supervision (backoff, resync, the silence deadline of a watch) is
 * tested without real waits.
 */
export interface InformerTimers extends WatchdogClock {
  /** Resolves after ms, or rejects with an AbortError when the signal aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Calls fn every ms until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
  random(): number;
}

export const realTimers: InformerTimers = {
  sleep: (ms, signal) => sleepFor(ms, undefined, { signal }),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => {
      clearInterval(timer);
    };
  },
  random: Math.random,
  now: () => performance.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => {
      clearTimeout(timer);
    };
  },
};

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

export interface Backoff {
  baseMs: number;
  capMs: number;
}

/** Exponential backoff with "equal jitter": half the step is fixed, half random, so retries spread out. */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number): number {
  const step = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}
