// The benchmarks' own requests against an API server the controller under test may be overloading: a request the
// server did not answer in time, refused for load (429) or failed on (5xx), or sent on a closed pool, is sent again after a growing pause, so a
// busy server slows the benchmark down rather than ending the run.
import { ApiError, RequestTimeoutError } from '../../src/kube/index.js';
import { sleep } from './util.js';

/** Whether the API server may take `err`'s request when sent again: it timed out, or the server was busy or failed. */
export function isTransient(err: unknown): boolean {
  if (err instanceof RequestTimeoutError) return true;
  // Sent on a pool KubeClient had just closed after another request's timeout: the server never saw it.
  if ((err as { code?: unknown } | undefined)?.code === 'UND_ERR_CLOSED') return true;
  return err instanceof ApiError && (err.status === 429 || err.status >= 500);
}

/** Runs `work` until it succeeds or fails otherwise than transiently, at most `attempts` times (8 by default). */
export async function retryTransient<T>(work: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !isTransient(err)) throw err;
      await sleep(Math.min(5_000, 250 * 2 ** (attempt - 1)));
    }
  }
}
