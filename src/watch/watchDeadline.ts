import type { Clock, Timer } from '../base/index.js';

// How long a watch may stay silent before it counts as dead. A TCP connection dropped without FIN or RST (a NAT
// entry or a load balancer that forgot it, a blackholing proxy) reads as plain silence forever: keep-alive probes
// are answered by whatever still holds the socket. HTTP/1.1 has no ping, so the only proof of life is the server's
// own promise: every watch is asked to end after `timeoutSeconds`, and the server keeps it. Measured on
// kube-apiserver v1.37: an idle watch gets no event at all before that end (a bookmark comes only when the watch
// cache has progressed), and the end arrives within ~0.1 s of timeoutSeconds. So a watch that delivered nothing
// for its timeout plus a grace is dead, whatever the socket says.
//
// That deadline is the backstop. While requests wait on the client's pool, its connection check
// (src/kube/connectionCheck.ts) finds a dead path within ~3 s and the registry has every informer rewatch at once
// (Informer.rewatch); only a watch that died while nothing else was in flight waits for its deadline.

/**
 * The range of `timeoutSeconds` asked of the API server, spread as client-go spreads it (min..2*min) so informers
 * do not all reconnect together. client-go's minimum is 5 minutes because it detects dead connections with HTTP/2
 * pings; compositor's watches are HTTP/1.1, so the timeout is the detector and must stay short: a dead watch is
 * noticed at most `max + WATCH_GRACE_MS` after it died. A rewatch resumes from the last resourceVersion (measured:
 * no 410 from the watch cache after 80 s and 2,400 writes to other kinds), so it costs one request, not a relist.
 */
export const WATCH_TIMEOUT_SECONDS = { min: 10, max: 20 } as const;

/**
 * Added to a watch's timeoutSeconds before its silence counts as death: covers the server's timer, the trip back
 * and our own event-loop lag. Erring short is harmless (the informer rewatches from the same resourceVersion, as it
 * would after the server's close); erring long delays recovery.
 */
export const WATCH_GRACE_MS = 3_000;

/** A watch that ends this soon without a single event counts as a failure (backoff), as in client-go's reflector. */
export const SHORT_WATCH_MS = 1_000;

/** `timeoutSeconds` for one watch request; `random` returns [0, 1). */
export function watchTimeoutSeconds(random: () => number): number {
  const { min, max } = WATCH_TIMEOUT_SECONDS;
  return Math.floor(min + random() * (max - min));
}

/** The silence after which a watch asked to end after `timeoutSeconds` is presumed dead. */
export function silenceLimitMs(timeoutSeconds: number): number {
  return timeoutSeconds * 1000 + WATCH_GRACE_MS;
}

/**
 * Calls `onSilent` once when nothing has been reported through `activity()` for `limitMs`. Activity only stores a
 * timestamp (a busy watch delivers thousands of events a second); the single pending timer re-arms itself for the
 * time left when it fires early. Nothing runs before `start()`; `stop()` cancels for good.
 */
export class SilenceWatchdog {
  private lastActivity = 0;
  private timer: Timer | undefined;
  private stopped = false;

  constructor(
    private readonly limitMs: number,
    /** Injected so the deadline is tested in virtual time; a monotonic one in production. */
    private readonly clock: Clock,
    private readonly onSilent: () => void,
  ) {}

  start(): void {
    if (this.stopped || this.timer) return;
    this.lastActivity = this.clock.now();
    this.arm(this.limitMs);
  }

  /** Something arrived (an event, a bookmark, the response headers): the silence starts again from now. */
  activity(): void {
    this.lastActivity = this.clock.now();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      if (this.stopped) return;
      const left = this.lastActivity + this.limitMs - this.clock.now();
      if (left > 0) {
        this.arm(left);
        return;
      }
      this.stopped = true;
      this.onSilent();
    }, ms);
  }
}
