import type { Clock } from '../base/index.js';

// A deadline for one API request. A connection dropped without FIN or RST (a blackholing proxy, a NAT entry or load
// balancer that forgot it) never answers and never errors: without a deadline the request waits for undici's
// 300 s header/body timeouts, and the reconcile that made it, and its XR, wait with it. Aborting the fetch also
// makes undici destroy that socket (an HTTP/1.1 request aborted before its response completed leaves the connection
// unusable), so the retry gets a fresh connection instead of the dead one from the pool.

/**
 * The default deadline of one request, response body included. compositor's requests are single-object reads and
 * writes and list pages of 500, normally well under a second; the API server's own limit for them is 60 s, and API
 * priority and fairness queues a request for at most ~15 s before rejecting it. 15 s keeps a request stuck on a dead
 * connection from holding its XR past the 30 s recovery target, after the retry's backoff.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

/** A request that got no complete response within its deadline; `cause` is the abort as fetch reported it. */
export class RequestTimeoutError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(`cannot ${method} ${path}: no complete response within ${timeoutMs} ms, connection dropped`, options);
    this.name = 'RequestTimeoutError';
  }
}

export interface Deadline {
  /** Aborts when the caller's signal aborts or the deadline passes, whichever comes first. */
  readonly signal: AbortSignal;
  /** True once the deadline (not the caller) aborted the request. */
  expired(): boolean;
  /** Cancels the timer and unhooks the caller's signal; call it once the request is settled. */
  release(): void;
}

/** Starts a deadline of `ms` (0: none) for one request, tied to the caller's own signal if it has one. */
export function startDeadline(caller: AbortSignal | undefined, ms: number, clock: Pick<Clock, 'setTimer'>): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onCallerAbort = (): void => {
    controller.abort(caller?.reason);
  };
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  const timer =
    ms > 0 && !controller.signal.aborted
      ? clock.setTimer(() => {
          if (controller.signal.aborted) return;
          expired = true;
          controller.abort(new DOMException(`request deadline of ${ms} ms passed`, 'TimeoutError'));
        }, ms)
      : undefined;
  return {
    signal: controller.signal,
    expired: () => expired,
    release: () => {
      timer?.cancel();
      caller?.removeEventListener('abort', onCallerAbort);
    },
  };
}
