import type { WatchedObject } from './watchedObject.js';

/** What the breaker did with one event; also the `result` label of circuit_breaker_events_total. */
export type EventResult = 'Allowed' | 'Dropped' | 'HalfOpenAllowed';

export interface BreakerState {
  open: boolean;
  /** While open: the source that sent most of the recent events, e.g. `ConfigMap/cm (default)`. */
  triggeredBy?: string;
  /** While open: when the next probe event may pass (ms, on the breaker's clock). */
  nextAllowedAtMs?: number;
  /** While open: when the circuit closes and the XR is requeued (ms, on the breaker's clock). */
  closesAtMs?: number;
}

/** A circuit changing state; the reconciler turns these into Warning (open) and Normal (closed) events. */
export interface Transition {
  key: string;
  to: 'open' | 'closed';
  atMs: number;
  /** For `open`: the source named in the Responsive condition. */
  triggeredBy?: string;
}

/**
 * A per-key (per-XR) watch-event breaker. `record` charges an event and says whether it passes; circuits close
 * on time through `advance`, which the caller runs at `nextDueAt` and which returns the keys whose circuits closed
 * so they can be requeued.
 */
export interface Breaker {
  /** Charges `cost` tokens to `key` for an event about `source`. */
  record(key: string, cost: number, source: WatchedObject): EventResult;
  state(key: string): BreakerState;
  /** Forgets `key` entirely (its XR was deleted): a recreated XR of that name starts with a full bucket. */
  reset(key: string): void;
  /** Runs the time-driven work due now. Returns the keys whose circuits closed. */
  advance(): string[];
  /** When `advance` next has work, or undefined when it has none. */
  nextDueAt(): number | undefined;
}

/** A breaker that never opens: for `compositor render` and for controllers that opt out. */
export const nopBreaker: Breaker = {
  record: () => 'Allowed',
  state: () => ({ open: false }),
  reset: () => undefined,
  advance: () => [],
  nextDueAt: () => undefined,
};
