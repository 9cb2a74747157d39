import type { Clock, Timer } from '../base/index.js';

// Notices a connection to the API server that died silently (a NAT entry or load balancer that forgot it, a proxy
// that stopped forwarding: no FIN, no RST), while requests wait on it, and only then.
//
// kube-apiserver speaks HTTP/2, so every request shares the pool's one connection: once it is dead, every request
// waits on it until its own deadline. TCP keepalive cannot tell: the near end of a dropped path (the NAT, the proxy)
// still acknowledges keepalive probes. Only an answer from the API server proves the path alive, and a slow answer
// proves nothing on its own: a busy server or a starved event loop look the same as a dead connection from one side.
// So the check compares: with requests waiting and nothing read on the pool for `readIdleMs`, it asks the server for
// `/livez/ping` twice at once, on the pool and on a new connection. The pool's answer, or anything else read on it,
// proves it alive. The new connection answering while the pool stays silent proves the pool dead: the same server,
// through the same busy loop, answered a request that first had to open a connection. Neither answering proves
// nothing (the server is down or restarting): nothing is torn down and the requests keep their own deadlines.
//
// At rest nothing is sent: the check runs only while requests are in flight. Watches have connections of their own
// and their silence deadline (src/watch/watchDeadline.ts); a pool found dead also tells them to rewatch.

/** Silence on the pool, with requests waiting, before the check asks. client-go's HTTP/2 ReadIdleTimeout is 30 s. */
export const DEFAULT_READ_IDLE_MS = 2_000;

/** The least time the pool is given to answer its probe before a new connection's answer condemns it. */
export const DEFAULT_PROBE_GRACE_MS = 1_000;

/** After the new connection answered, how long more the pool is given: its answer may be in the same read. */
export const DEFAULT_VERDICT_DELAY_MS = 250;

/** A round with neither answer is given up after this long (the server is down, not the pool's connection). */
export const DEFAULT_ROUND_TIMEOUT_MS = 5_000;

export interface ConnectionCheckOptions {
  clock: Clock;
  /** Asks for any reply on the pool; resolves when one came (whatever its status); `signal` ends it. */
  probePool(signal: AbortSignal): Promise<void>;
  /** Asks for any reply on a new connection; resolves when one came. */
  probeFresh(signal: AbortSignal): Promise<void>;
  /** The pool is dead: replace it and fail what waits on it. Called at most once. */
  onDead(): void;
  readIdleMs?: number;
  probeGraceMs?: number;
  verdictDelayMs?: number;
  roundTimeoutMs?: number;
}

/** The check of one pool: `opened()` per request sent, `read()` per response part received, `closed()` per end. */
export class ConnectionCheck {
  private inFlight = 0;
  private lastRead = 0;
  private timer: Timer | undefined;
  /** The round in flight: its probes' signal and the function that cancels its timers and probes. */
  private round: { signal: AbortSignal; cancel(): void } | undefined;
  private done = false;
  private dead = false;
  /** Rounds of probes sent, for tests and logs. */
  rounds = 0;

  constructor(private readonly options: ConnectionCheckOptions) {}

  /** True once a round found the pool dead. */
  get isDead(): boolean {
    return this.dead;
  }

  opened(): void {
    this.inFlight++;
    if (this.inFlight === 1) {
      this.lastRead = this.options.clock.now();
      this.arm(this.readIdleMs);
    }
  }

  closed(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (this.inFlight === 0) this.quiet();
  }

  /** Something arrived on the pool (headers, a body): proof of life. */
  read(): void {
    this.lastRead = this.options.clock.now();
  }

  /** Stops for good (the pool was retired). */
  stop(): void {
    this.done = true;
    this.quiet();
  }

  private get readIdleMs(): number {
    return this.options.readIdleMs ?? DEFAULT_READ_IDLE_MS;
  }

  /** Nothing waits: no timer, no round in flight. */
  private quiet(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.round?.cancel();
    this.round = undefined;
  }

  private arm(ms: number): void {
    if (this.done) return;
    this.timer?.cancel();
    this.timer = this.options.clock.setTimer(() => {
      this.timer = undefined;
      this.due();
    }, ms);
  }

  private due(): void {
    if (this.done || this.inFlight === 0 || this.round) return;
    const left = this.lastRead + this.readIdleMs - this.options.clock.now();
    if (left > 0) this.arm(left);
    else this.startRound();
  }

  private startRound(): void {
    const { clock } = this.options;
    const probes = new AbortController();
    let verdict: Timer | undefined;
    const round = {
      signal: probes.signal,
      cancel: () => {
        verdict?.cancel();
        giveUp.cancel();
        probes.abort();
      },
    };
    this.round = round;
    this.rounds++;
    const startedAt = clock.now();
    const end = (dead: boolean): void => {
      if (this.round !== round) return;
      this.round = undefined;
      round.cancel();
      if (dead) {
        this.dead = true;
        this.stop();
        this.options.onDead();
        return;
      }
      if (this.inFlight > 0) this.arm(this.readIdleMs);
    };
    const alive = (): void => {
      this.read();
      end(false);
    };
    const giveUp = clock.setTimer(() => {
      end(false);
    }, this.options.roundTimeoutMs ?? DEFAULT_ROUND_TIMEOUT_MS);
    this.options.probePool(round.signal).then(alive, () => undefined);
    this.options.probeFresh(round.signal).then(
      () => {
        if (this.round !== round) return;
        const grace = startedAt + (this.options.probeGraceMs ?? DEFAULT_PROBE_GRACE_MS) - clock.now();
        verdict = clock.setTimer(
          () => {
            // Anything read on the pool since the round began (another response) proves it alive too.
            end(this.lastRead <= startedAt);
          },
          Math.max(grace, this.options.verdictDelayMs ?? DEFAULT_VERDICT_DELAY_MS),
        );
      },
      () => undefined,
    );
  }
}
