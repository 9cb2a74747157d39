import type { ExternalReconcileRecord } from './annotations.js';

// Preventing unnecessary external calls: whether a reconcile may leave the external system alone, and when the
// record of the last external reconcile is worth a write. Pure; times are milliseconds since the epoch.
//
// Why metadata.generation and not metadata.resourceVersion: every write compositor makes to the MR (these very
// annotations, the status, the finalizer) changes its resourceVersion, so a recorded resourceVersion would be out
// of date the moment it was written and nothing could ever be skipped. The generation changes only when the spec
// does, which is exactly when the external resource may need to change. (Label and annotation edits change
// neither; a pending crossplane.io/reconcile-requested-at is checked separately.)

/** A timer may fire, or a clock read, slightly before the planned time; such a reconcile is still the planned one. */
const DUE_TOLERANCE_MS = 1_000;
/** A recorded time this far in the future is not trusted (another replica's clock, or a hand-edited value). */
const MAX_CLOCK_SKEW_MS = 5_000;
/**
 * A successful observe rewrites the record once it is this much of the skip window old. Polls are jittered by
 * +/-10%, so each poll's observe (at least 0.9 windows after the previous one) refreshes it, while the observes in
 * between (a resource not ready yet, a reconcile request) write nothing: at most one write per poll interval.
 */
const REFRESH_FRACTION = 0.8;

/** How long after an external reconcile nothing but a change needs another: min(poll interval, sync interval). */
export function skipWindowMs(pollMs: number, syncMs: number): number {
  return Math.min(pollMs, syncMs);
}

export interface ExternalSkipInput {
  nowMs: number;
  /** metadata.generation now. */
  generation: number | undefined;
  record: ExternalReconcileRecord;
  /** Synced and Ready True for this generation, no pending reconcile request, not paused, not being deleted. */
  settled: boolean;
  pollMs: number;
  syncMs: number;
  /** When this process planned the MR's next observe (its own requeue); undefined after a restart. */
  dueAtMs?: number;
}

export type ExternalSkipDecision = { skip: true; observeInMs: number } | { skip: false; why: string };

/**
 * A reconcile may skip Connect and Observe when nothing changed since the last external reconcile (same
 * generation), that reconcile is younger than the skip window, the MR is settled, and this is not the observe the
 * controller itself planned (a poll, or a provider's hint). What remains is an informer resync, an echo, a label
 * edit or the first reconcile after a restart: none needs the external system. `observeInMs` says when the window
 * ends, so a restarted controller, which planned nothing, still observes on time.
 */
export function externalObserveSkip(input: ExternalSkipInput): ExternalSkipDecision {
  const { nowMs, record, dueAtMs } = input;
  if (!input.settled) return { skip: false, why: 'not settled' };
  if (input.generation === undefined || record.generation !== input.generation) {
    return { skip: false, why: 'generation changed since the last external reconcile' };
  }
  if (record.atMs === undefined || record.atMs > nowMs + MAX_CLOCK_SKEW_MS) {
    return { skip: false, why: 'no usable time of the last external reconcile' };
  }
  if (dueAtMs !== undefined && nowMs >= dueAtMs - DUE_TOLERANCE_MS) return { skip: false, why: 'observe due' };
  const windowMs = skipWindowMs(input.pollMs, input.syncMs);
  const age = Math.max(0, nowMs - record.atMs);
  if (age >= windowMs) return { skip: false, why: 'the last external reconcile is older than the poll interval' };
  const untilDue = dueAtMs === undefined ? Infinity : dueAtMs - nowMs;
  return { skip: true, observeInMs: Math.min(windowMs - age, untilDue) };
}

/**
 * Whether a successful external reconcile should rewrite the record: when the generation differs from the
 * recorded one (a spec change was acted on), when there is no usable record, or when the record is old enough
 * (see REFRESH_FRACTION). Otherwise the MR is left untouched, so a steady state writes nothing between polls.
 */
export function externalRecordDue(input: {
  nowMs: number;
  generation: number | undefined;
  record: ExternalReconcileRecord;
  windowMs: number;
}): boolean {
  const { nowMs, record } = input;
  if (record.generation !== input.generation || record.atMs === undefined) return true;
  if (record.atMs > nowMs + MAX_CLOCK_SKEW_MS) return true;
  return nowMs - record.atMs >= input.windowMs * REFRESH_FRACTION;
}
