import {
  Fifo,
  type Clock,
  fullBucket,
  systemClock,
  type TokenBucketRate,
  type TokenBucketState,
  tryTake,
} from '../base/index.js';
import { breakerMetrics, type BreakerMetrics, type Metrics } from '../metrics/index.js';
import type { Breaker, BreakerState, EventResult, Transition } from './breaker.js';
import { RecentSources } from './recentSources.js';
import type { WatchedObject } from './watchedObject.js';

export interface BreakerSettings {
  /** `--circuit-breaker-burst`: tokens per XR bucket. */
  burst: number;
  /** `--circuit-breaker-refill-rate`: tokens per second added back. */
  refillRatePerSecond: number;
  /** `--circuit-breaker-cooldown`: how long an open circuit stays open. */
  cooldownMs: number;
  /** `--circuit-breaker-half-open-interval`: one probe event passes per interval while open. */
  halfOpenIntervalMs: number;
  /** State of an XR with no event for this long is forgotten (24h, as Crossplane). */
  idleAfterMs: number;
}

/** Crossplane's defaults since v2.1.1 (docs/operating.md#the-circuit-breaker). */
export const DEFAULT_BREAKER_SETTINGS: BreakerSettings = {
  burst: 100,
  refillRatePerSecond: 1,
  cooldownMs: 5 * 60_000,
  halfOpenIntervalMs: 30_000,
  idleAfterMs: 24 * 60 * 60_000,
};

export interface TokenBucketBreakerOptions extends Partial<BreakerSettings> {
  /** `composite/<plural>.<group>`: the `controller` label of the breaker metrics. */
  controller: string;
  metrics: Metrics;
  /** Must agree with the scheduler of the operator that drives `advance` (an RxJS scheduler is such a clock). */
  clock?: Pick<Clock, 'now'>;
  /** Told about every open and close. Must not throw; if it does, the error is dropped and the breaker goes on. */
  onTransition?: (transition: Transition) => void;
}

/** One XR's circuit. The bucket fields live on it directly so 10,000 XRs cost 10,000 objects, not 20,000. */
interface Circuit extends TokenBucketState {
  open: boolean;
  openedAt: number;
  lastProbeAt: number;
  lastEventAt: number;
  triggeredBy: string | undefined;
  readonly recent: RecentSources;
}

interface PendingClose {
  readonly key: string;
  readonly at: number;
  readonly openedAt: number;
}

/**
 * The per-XR token-bucket breaker (docs/architecture.md#the-circuit-breaker), in pure logic on an injected clock.
 * A closed circuit charges each event its cost; an event that finds too few tokens opens the circuit and is dropped
 * (the close-time requeue stands in for it). An open circuit charges nothing, lets one probe through per half-open
 * interval, and closes when the cooldown ends, whether or not an event arrives then: `advance` closes it and returns
 * its key.
 */
export class TokenBucketBreaker implements Breaker {
  private readonly settings: BreakerSettings;
  private readonly rate: TokenBucketRate;
  private readonly clock: Pick<Clock, 'now'>;
  private readonly metrics: BreakerMetrics;
  private readonly circuits = new Map<string, Circuit>();
  /** Opened circuits in opening order, which with one fixed cooldown is also closing order. */
  private readonly closing = new Fifo<PendingClose>();
  private nextSweepAt = Infinity;

  constructor(private readonly options: TokenBucketBreakerOptions) {
    this.settings = { ...DEFAULT_BREAKER_SETTINGS, ...definedOnly(options) };
    this.rate = { perSecond: this.settings.refillRatePerSecond, burst: this.settings.burst };
    this.clock = options.clock ?? systemClock;
    this.metrics = breakerMetrics(options.metrics, options.controller);
  }

  record(key: string, cost: number, source: WatchedObject): EventResult {
    const now = this.clock.now();
    if (now >= this.nextSweepAt) this.sweep(now);
    const circuit = this.circuits.get(key) ?? this.create(key, now);
    circuit.lastEventAt = now;
    circuit.recent.remember(source);
    const result = this.decide(key, circuit, cost, now);
    this.metrics.events[result].inc();
    return result;
  }

  state(key: string): BreakerState {
    const circuit = this.circuits.get(key);
    // A circuit past its cooldown reads as closed even before `advance` has run, so the Responsive condition of
    // the close-time reconcile is right whatever order the timers fire in.
    if (circuit === undefined || !this.isOpenAt(circuit, this.clock.now())) return { open: false };
    return {
      open: true,
      triggeredBy: circuit.triggeredBy,
      nextAllowedAtMs: circuit.lastProbeAt + this.settings.halfOpenIntervalMs,
      closesAtMs: circuit.openedAt + this.settings.cooldownMs,
    };
  }

  reset(key: string): void {
    // Its pending close, if any, finds no circuit and requeues nothing: there is no XR left to requeue.
    this.circuits.delete(key);
  }

  advance(): string[] {
    const now = this.clock.now();
    const closed: string[] = [];
    for (let next = this.closing.peek(); next !== undefined && next.at <= now; next = this.closing.peek()) {
      this.closing.shift();
      const circuit = this.circuits.get(next.key);
      // Skip closes made stale by a reset, by an event that closed the circuit lazily, or by a later reopening.
      if (circuit?.open === true && circuit.openedAt === next.openedAt) {
        this.close(next.key, circuit, now);
        closed.push(next.key);
      }
    }
    if (now >= this.nextSweepAt) this.sweep(now);
    return closed;
  }

  /** XRs with state held (for diagnostics and the idle-GC test). */
  get size(): number {
    return this.circuits.size;
  }

  nextDueAt(): number | undefined {
    const close = this.closing.peek()?.at ?? Infinity;
    const due = Math.min(close, this.nextSweepAt);
    return due === Infinity ? undefined : due;
  }

  private decide(key: string, circuit: Circuit, cost: number, now: number): EventResult {
    if (this.isOpenAt(circuit, now)) return this.probe(circuit, now);
    // Past its cooldown an open circuit closes here if `advance` has not closed it yet; the event is then charged.
    if (circuit.open) this.close(key, circuit, now);
    if (tryTake(circuit, this.rate, cost, now)) return 'Allowed';
    this.open(key, circuit, now);
    return 'Dropped';
  }

  /** While open nothing is charged; one event per half-open interval passes as a probe. */
  private probe(circuit: Circuit, now: number): EventResult {
    if (now - circuit.lastProbeAt < this.settings.halfOpenIntervalMs) return 'Dropped';
    circuit.lastProbeAt = now;
    return 'HalfOpenAllowed';
  }

  private create(key: string, now: number): Circuit {
    const circuit: Circuit = {
      ...fullBucket(this.rate, now),
      open: false,
      openedAt: 0,
      lastProbeAt: 0,
      lastEventAt: now,
      triggeredBy: undefined,
      recent: new RecentSources(),
    };
    this.circuits.set(key, circuit);
    if (this.nextSweepAt === Infinity) this.nextSweepAt = now + this.sweepIntervalMs();
    return circuit;
  }

  private isOpenAt(circuit: Circuit, now: number): boolean {
    return circuit.open && now - circuit.openedAt < this.settings.cooldownMs;
  }

  private open(key: string, circuit: Circuit, now: number): void {
    circuit.open = true;
    circuit.openedAt = now;
    circuit.lastProbeAt = now;
    circuit.triggeredBy = circuit.recent.mostFrequent();
    this.closing.push({ key, at: now + this.settings.cooldownMs, openedAt: now });
    this.metrics.opens.inc();
    this.notify({ key, to: 'open', atMs: now, triggeredBy: circuit.triggeredBy });
  }

  private close(key: string, circuit: Circuit, now: number): void {
    circuit.open = false;
    circuit.triggeredBy = undefined;
    circuit.recent.clear();
    this.metrics.closes.inc();
    this.notify({ key, to: 'closed', atMs: now });
  }

  private notify(transition: Transition): void {
    try {
      this.options.onTransition?.(transition);
    } catch {
      // A failing event recorder must not leave a circuit half-transitioned or break the event stream.
    }
  }

  /**
   * Forgets circuits idle for `idleAfterMs`. Runs at most once per 1/24 of that (hourly by default), so state is
   * forgotten between 24h and 25h after its last event, and the cost is one pass per hour, not one per event.
   */
  private sweep(now: number): void {
    for (const [key, circuit] of this.circuits) {
      // Open circuits stay until `advance` closes them, so their close-time requeue is not lost.
      if (!circuit.open && now - circuit.lastEventAt >= this.settings.idleAfterMs) {
        this.circuits.delete(key);
      }
    }
    this.nextSweepAt = this.circuits.size === 0 ? Infinity : now + this.sweepIntervalMs();
  }

  private sweepIntervalMs(): number {
    return this.settings.idleAfterMs / 24;
  }
}

/** Drops undefined fields so `{ burst: undefined }` from an options object does not override a default. */
function definedOnly(options: Partial<BreakerSettings>): Partial<BreakerSettings> {
  const settings: Partial<BreakerSettings> = {};
  for (const name of Object.keys(DEFAULT_BREAKER_SETTINGS) as (keyof BreakerSettings)[]) {
    const value = options[name];
    if (value !== undefined) settings[name] = value;
  }
  return settings;
}
