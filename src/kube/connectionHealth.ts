import type { Clock, Timer } from '../base/index.js';

// A health check of one connection pool to the API server, shaped as client-go's HTTP/2 health check
// (golang.org/x/net/http2 ReadIdleTimeout and PingTimeout): when nothing has been read for `readIdleMs` while
// streams are open, ask the server for a reply; no reply within `pingTimeoutMs` means the connection is dead.
//
// Why a reply and not TCP keepalive: a connection dropped by a NAT entry or a load balancer that forgot it, or a
// proxy that stopped forwarding, still has a live socket at the near end, which acknowledges keepalive probes at
// the TCP level; only an answer from the API server itself proves the path is alive. Why not undici's own HTTP/2
// PING (`pingInterval`): it pings at a steady rate whatever the traffic and never times out a PING left unanswered.
//
// The check costs nothing while responses flow (a read only stores a timestamp) and nothing when no stream is open;
// with streams open and silent (idle watches) it asks once per `readIdleMs`.

/**
 * Read idle time before a probe. client-go uses 30 s, with watches that run 5-10 minutes; compositor promises
 * recovery from a silently dead connection within 10 s, so the probe comes early: a probe is one small request that
 * kube-apiserver answers without touching etcd (see KubeClient's probe).
 */
export const DEFAULT_READ_IDLE_MS = 2_000;

/** How long a probe may go unanswered before the connection counts as dead (client-go: 15 s). */
export const DEFAULT_PING_TIMEOUT_MS = 2_000;

export interface ConnectionHealthOptions {
  readIdleMs?: number;
  pingTimeoutMs?: number;
  /** Injected so tests step time by hand; a monotonic one in production. */
  clock: Clock;
  /**
   * Asks the server for any reply on the pool's connection; resolves when one came (whatever its status), rejects
   * when the request failed. `signal` aborts it once the verdict is in.
   */
  probe(signal: AbortSignal): Promise<void>;
  /** Called once, when a probe went unanswered: the pool must be destroyed, its streams failed. */
  onDead(): void;
  /**
   * Runs `fn` after the I/O already received has been handled. A probe's timer can fire in the same event-loop turn
   * as its late reply is read (Node runs expired timers before polling sockets): the verdict waits one turn so a
   * busy loop does not pass for a dead connection. Default setImmediate.
   */
  defer?: (fn: () => void) => void;
}

/** The health of one pool: `open()` per stream, `read()` per chunk received; dead for good once `onDead` ran. */
export class ConnectionHealth {
  private streams = 0;
  private lastRead = 0;
  private timer: Timer | undefined;
  private probing: AbortController | undefined;
  private dead = false;
  /** Probes sent, for tests and logs. */
  probes = 0;

  constructor(private readonly options: ConnectionHealthOptions) {}

  get isDead(): boolean {
    return this.dead;
  }

  /** A stream (a request or a watch) opened on the pool; call the returned function once when it ends. */
  open(): () => void {
    this.streams++;
    if (this.streams === 1) {
      this.lastRead = this.options.clock.now();
      this.arm(this.readIdleMs);
    }
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.streams--;
      if (this.streams === 0) this.idle();
    };
  }

  /** Something arrived on the pool (headers, a body chunk, a watch event): proof of life. */
  read(): void {
    this.lastRead = this.options.clock.now();
  }

  /** Stops checking for good (the pool was retired). */
  stop(): void {
    this.dead = true;
    this.idle();
  }

  private get readIdleMs(): number {
    return this.options.readIdleMs ?? DEFAULT_READ_IDLE_MS;
  }

  /** No stream open: nothing to check, no probe in flight. */
  private idle(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.probing?.abort();
    this.probing = undefined;
  }

  private arm(ms: number): void {
    if (this.dead) return;
    this.timer?.cancel();
    this.timer = this.options.clock.setTimer(() => {
      this.timer = undefined;
      this.check();
    }, ms);
  }

  private check(): void {
    if (this.dead || this.streams === 0) return;
    const left = this.lastRead + this.readIdleMs - this.options.clock.now();
    if (left > 0) {
      this.arm(left);
      return;
    }
    this.sendProbe();
  }

  private sendProbe(): void {
    const controller = new AbortController();
    this.probing = controller;
    this.probes++;
    let answered = false;
    const verdict = this.options.clock.setTimer(() => {
      (this.options.defer ?? setImmediate)(() => {
        if (answered || controller.signal.aborted) return;
        this.declareDead();
      });
    }, this.options.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS);
    this.options.probe(controller.signal).then(
      () => {
        answered = true;
        verdict.cancel();
        if (this.probing !== controller) return;
        this.probing = undefined;
        this.read();
        if (this.streams > 0) this.arm(this.readIdleMs);
      },
      () => {
        // A failed probe (refused, reset) says the connection is gone as surely as a silent one.
        verdict.cancel();
        if (this.probing !== controller || controller.signal.aborted) return;
        this.declareDead();
      },
    );
  }

  private declareDead(): void {
    if (this.dead) return;
    this.dead = true;
    this.idle();
    this.options.onDead();
  }
}
