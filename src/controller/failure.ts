import type { EventInput } from '../kube/index.js';
import { RECONCILE_PAUSED, RECONCILIATION_PAUSED_EVENT, reconcileError } from './conditions.js';
import type { StatusDraft } from './statusDraft.js';

/** Where a reconcile reports on its object: the object's events and the status it is building. */
export interface Report {
  status: StatusDraft;
  event(input: EventInput): void;
}

/** A `Report` that can also write the status (only when it changed). */
export interface FailureReport extends Report {
  writeStatus(): Promise<unknown>;
  /** Told when writing the status fails: the failure itself is what the queue backs off on, so this only logs. */
  onWriteError(err: unknown): void;
}

/**
 * Reports a failed reconcile the way every controller does: a Warning event with `reason`, Synced False
 * ReconcileError with `message`, and the status written. The caller then throws, so the queue backs the object off;
 * conflicts never come here (they are rethrown untouched and retried at once, without an event).
 *
 * @example
 * await reportFailure(report, { reason: 'ComposeResources', message: `cannot compose resources: ${detail}` });
 * throw err;
 */
export async function reportFailure(
  report: FailureReport,
  failure: { reason: string; message: string },
): Promise<void> {
  report.event({ type: 'Warning', reason: failure.reason, message: failure.message });
  report.status.setCondition(reconcileError(failure.message));
  try {
    await report.writeStatus();
  } catch (err) {
    report.onWriteError(err);
  }
}

/** Synced False ReconcilePaused, and the Normal event the first time a reconciler sees the pause. */
export function markPaused(report: Report): void {
  if (report.status.condition('Synced')?.reason !== RECONCILE_PAUSED.reason) report.event(RECONCILIATION_PAUSED_EVENT);
  report.status.setCondition(RECONCILE_PAUSED);
}
