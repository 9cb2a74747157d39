// What a CronOperation or WatchOperation reads from the Operations it created (Crossplane's
// internal/ops/lifecycle/operations.go): which still run, when one last succeeded, which fall out of the history
// limits. Pure functions over a list.
import { REASON_PIPELINE_SUCCESS, SUCCEEDED } from './conditions.js';
import type { Operation } from './types.js';

function succeeded(op: Operation): { status: string; reason: string; lastTransitionTime?: string } | undefined {
  return op.status?.conditions?.find((c) => c.type === SUCCEEDED);
}

/** True once Succeeded is True or False: both are terminal, whatever the generation. */
export function isComplete(op: Operation): boolean {
  const status = succeeded(op)?.status;
  return status === 'True' || status === 'False';
}

/**
 * The Operations that have not finished. Crossplane counts only those already marked PipelineRunning; an Operation
 * created but not yet picked up counts here too, so Forbid cannot start a second one in that window.
 */
export function runningOperations(ops: readonly Operation[]): string[] {
  return ops
    .filter((op) => !isComplete(op) && op.metadata.deletionTimestamp === undefined)
    .map((op) => op.metadata.name)
    .sort();
}

function millis(time: string | undefined): number {
  const ms = time === undefined ? NaN : Date.parse(time);
  return Number.isNaN(ms) ? 0 : ms;
}

/** The latest creationTimestamp among `ops`, in ms; undefined for none. */
export function latestCreateTime(ops: readonly Operation[]): number | undefined {
  const latest = Math.max(0, ...ops.map((op) => millis(op.metadata.creationTimestamp)));
  return latest > 0 ? latest : undefined;
}

/** When the last Operation succeeded (its Succeeded transition to PipelineSuccess), in ms; undefined for none. */
export function latestSuccessTime(ops: readonly Operation[]): number | undefined {
  const times = ops.map((op) => {
    const c = succeeded(op);
    return c?.reason === REASON_PIPELINE_SUCCESS ? millis(c.lastTransitionTime) : 0;
  });
  const latest = Math.max(0, ...times);
  return latest > 0 ? latest : undefined;
}

/**
 * The Operations to delete so that at most `keepSucceeded` succeeded and `keepFailed` failed ones remain, the
 * newest kept. Unfinished Operations are always kept.
 */
export function markGarbage(keepSucceeded: number, keepFailed: number, ops: readonly Operation[]): Operation[] {
  const newestFirst = [...ops].sort(
    (a, b) => millis(b.metadata.creationTimestamp) - millis(a.metadata.creationTimestamp),
  );
  const kept = { True: 0, False: 0 };
  const limit = { True: keepSucceeded, False: keepFailed };
  const garbage: Operation[] = [];
  for (const op of newestFirst) {
    const status = succeeded(op)?.status;
    if (status !== 'True' && status !== 'False') continue;
    if (kept[status] < limit[status]) kept[status] += 1;
    else garbage.push(op);
  }
  return garbage;
}

/** The Operations of one owner: those carrying its label with its name. */
export function ownedBy(label: string, owner: string, ops: readonly Operation[]): Operation[] {
  return ops.filter((op) => op.metadata.labels?.[label] === owner);
}
