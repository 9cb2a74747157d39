// What a CronOperation does now, as a pure function of the clock, its schedule and its Operations
// (Crossplane's internal/controller/ops/cronoperation/reconciler.go, with crossplane#7535's fix and a deadline that
// does not stall the schedule). docs/operations.md#cronoperation lists the differences from upstream.
import type { Schedule } from './schedule.js';
import type { ConcurrencyPolicy, CronOperation, Operation } from './types.js';

export type CronDecision =
  /** Nothing is due; look again at `untilMs` (undefined: the schedule never fires again). */
  | { action: 'wait'; untilMs: number | undefined }
  /** A run fell due at `slotMs` but is not started (`why`); look again at `untilMs`. */
  | { action: 'skip'; slotMs: number; why: 'deadline' | 'forbid'; untilMs: number | undefined }
  /** Create the Operation of `slotMs`, deleting the running Operations in `replace` first. */
  | { action: 'create'; slotMs: number; replace: string[]; untilMs: number | undefined };

export interface CronInput {
  nowMs: number;
  schedule: Schedule;
  /** When the last run was scheduled (lastScheduledTime). */
  lastMs: number;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: ConcurrencyPolicy;
  /** The names of the Operations that have not finished. */
  running: readonly string[];
}

/**
 * Missed runs (downtime, a paused schedule) collapse into one, as upstream's do: only the latest one that fell due is
 * created, and only while within startingDeadlineSeconds of its time. Forbid defers a due run while another
 * Operation runs; it is created when that one ends, if still within the deadline.
 */
export function decideCron(input: CronInput): CronDecision {
  const { nowMs, schedule, lastMs } = input;
  const first = schedule.next(lastMs);
  if (first === undefined || first > nowMs) return { action: 'wait', untilMs: first };
  const slotMs = schedule.latest(lastMs, nowMs) ?? first;
  const untilMs = schedule.next(nowMs);
  const deadline = input.startingDeadlineSeconds;
  if (deadline !== undefined && slotMs + deadline * 1000 < nowMs) {
    return { action: 'skip', slotMs, why: 'deadline', untilMs };
  }
  const policy = input.concurrencyPolicy ?? 'Allow';
  if (input.running.length > 0 && policy === 'Forbid') return { action: 'skip', slotMs, why: 'forbid', untilMs };
  const replace = policy === 'Replace' ? [...input.running] : [];
  return { action: 'create', slotMs, replace, untilMs };
}

/** The name of the Operation a CronOperation creates for a run: its name and the run's Unix time in seconds. */
export function cronOperationName(cronName: string, slotMs: number): string {
  return `${cronName}-${Math.floor(slotMs / 1000)}`;
}

/**
 * The scheduled time of an Operation of this CronOperation, read from its name (crossplane#7535: the API server's
 * creationTimestamp can fall before the scheduled time under clock skew, so the same run would be scheduled again);
 * its creationTimestamp for an Operation named otherwise.
 */
export function scheduledTimeOf(cronName: string, op: Operation): number | undefined {
  const prefix = `${cronName}-`;
  const suffix = op.metadata.name.startsWith(prefix) ? op.metadata.name.slice(prefix.length) : '';
  if (/^\d+$/.test(suffix)) return Number(suffix) * 1000;
  const created = Date.parse(op.metadata.creationTimestamp ?? '');
  return Number.isNaN(created) ? undefined : created;
}

/**
 * When the CronOperation last scheduled a run: the latest of its Operations' runs and of what its status recorded
 * (its Operations may all be gone by the history limits); its creation when it never scheduled one.
 */
export function lastScheduled(co: CronOperation, ops: readonly Operation[]): number {
  const times = ops.map((op) => scheduledTimeOf(co.metadata.name, op)).filter((t) => t !== undefined);
  const recorded = Date.parse(co.status?.lastScheduleTime ?? '');
  if (!Number.isNaN(recorded)) times.push(recorded);
  if (times.length > 0) return Math.max(...times);
  const created = Date.parse(co.metadata.creationTimestamp ?? '');
  return Number.isNaN(created) ? 0 : created;
}
