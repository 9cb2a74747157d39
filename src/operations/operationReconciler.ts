// Reconciles one Operation: runs its pipeline once to completion, as Crossplane's operation reconciler does
// (internal/controller/ops/operation/reconciler.go), with one thing upstream lacks: a run that started and never
// recorded its end is not started again. docs/operations.md#exactly-once says why that holds.
import { dateOf, errorMessage } from '../base/index.js';
import { RECONCILE_SUCCESS, reconcileError, StatusDraft, type ConditionInput } from '../controller/index.js';
import { isConflict } from '../kube/index.js';
import type { ReconcileResult } from '../queue/index.js';
import { missingCapability, type ActiveRevisionLookup } from './capabilities.js';
import { COMPLETE, EVENT_REASONS, failed, missingCapabilities, RUNNING, VALID } from './conditions.js';
import { isComplete } from './history.js';
import { OperationRunError, runOperation, type OperationRunDeps, type RunRecord } from './operationRun.js';
import { OpsReconciler, type OpsReconcilerDeps } from './opsReconciler.js';
import { DEFAULT_RETRY_LIMIT, type Operation, type OperationStatus } from './types.js';

/**
 * compositor's run marker: the value of status.failures when a run started. Written, with the Operation's
 * resourceVersion as precondition, before any function runs; a run that fails raises status.failures past it, a
 * run that succeeds makes the Operation complete. Finding it equal to status.failures therefore means a run started
 * and never recorded its end.
 */
export const RUN_ATTEMPT_ANNOTATION = 'compositor.crossplane.io/operation-attempt';

export interface OperationReconcilerDeps extends OpsReconcilerDeps, Omit<OperationRunDeps, 'store'> {
  /** Finds a Function's active revision for the capability check; without it the check is skipped. */
  activeRevision?: ActiveRevisionLookup;
  /** Told when a status write that reports a failure itself fails (the failure is what the queue backs off on). */
  onWriteError?: (err: unknown) => void;
}

/** A failure recorded on the Operation: its Warning event, the failure count raised, Synced False. */
interface Failure {
  reason: string;
  message: string;
  extra?: ConditionInput;
  record?: RunRecord;
  cause?: unknown;
}

export class OperationReconciler extends OpsReconciler<OperationReconcilerDeps> {
  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const op = await this.deps.store.get('Operation', key, signal);
    // Deleted, being deleted, or run to completion already: an Operation runs once.
    if (!op || op.metadata.deletionTimestamp !== undefined || isComplete(op)) return {};
    const draft = this.draftOf(op);
    if (await this.ended(op, draft, signal)) return {};
    const failures = op.status?.failures ?? 0;
    const missing = await this.checkCapabilities(op, signal);
    if (missing !== undefined) {
      const message = `function capability check failed: ${missing}`;
      const failure = { reason: EVENT_REASONS.invalidPipeline, message, extra: missingCapabilities(message) };
      return this.fail(op, draft, failure, signal);
    }
    // The claim: only one process gets past this write for this attempt (its precondition is the version read).
    const claimed = await this.deps.store.patchMetadata(
      op,
      { annotations: { [RUN_ATTEMPT_ANNOTATION]: String(failures) } },
      signal,
    );
    draft.setCondition(RUNNING);
    draft.setCondition(VALID);
    const running = await this.write(claimed, draft, signal);
    let record: RunRecord;
    try {
      record = await runOperation(running, this.deps, signal);
    } catch (err) {
      // Stopped mid-run (shutdown, lost lease): the run may have done its work, so it is not recorded as a failure
      // to retry; the marker stays, and the next process reports the run as interrupted.
      if (signal.aborted || !(err instanceof OperationRunError)) throw err;
      this.emit(running, err.record);
      const failure = { reason: err.reason, message: err.message, record: err.record, cause: err };
      return this.fail(running, draft, failure, signal);
    }
    this.emit(running, record);
    this.recordRun(draft, record);
    draft.setCondition(RECONCILE_SUCCESS);
    draft.setCondition(COMPLETE);
    await this.write(running, draft, signal);
    return {};
  }

  /**
   * True when the Operation will not run again: its failures reached the retry limit, or a run started and never
   * recorded its end. Either way it is marked failed.
   */
  private async ended(op: Operation, draft: StatusDraft, signal: AbortSignal): Promise<boolean> {
    const failures = op.status?.failures ?? 0;
    const limit = op.spec.retryLimit ?? DEFAULT_RETRY_LIMIT;
    if (failures >= limit) {
      draft.setCondition(RECONCILE_SUCCESS);
      draft.setCondition(failed(`failure limit of ${limit} reached`));
      await this.write(op, draft, signal);
      return true;
    }
    if (op.metadata.annotations?.[RUN_ATTEMPT_ANNOTATION] !== String(failures)) return false;
    await this.markInterrupted(op, draft, signal);
    return true;
  }

  private draftOf(op: Operation): StatusDraft {
    return new StatusDraft(structuredClone(op.status ?? {}) as Record<string, unknown>, op.metadata.generation, () =>
      dateOf(this.clock),
    );
  }

  private async checkCapabilities(op: Operation, signal: AbortSignal): Promise<string | undefined> {
    if (this.deps.activeRevision === undefined) return undefined;
    const names = op.spec.pipeline.map((step) => step.functionRef.name);
    return missingCapability(names, this.deps.activeRevision, signal);
  }

  /** A run started and never recorded its end: the Operation fails rather than run a second time. */
  private async markInterrupted(op: Operation, draft: StatusDraft, signal: AbortSignal): Promise<void> {
    const message =
      'a run started but did not record its end (its process stopped or lost its lease), so it may have run in part or in full; it is not run again, so that the Operation runs at most once';
    this.deps.events.event(op, { type: 'Warning', reason: EVENT_REASONS.interruptedRun, message });
    draft.set('failures', (op.status?.failures ?? 0) + 1);
    draft.setCondition(RECONCILE_SUCCESS);
    draft.setCondition(failed(message));
    await this.write(op, draft, signal);
  }

  /** Records a failure (event, count, Synced False) and throws, so the queue retries after its backoff. */
  private async fail(op: Operation, draft: StatusDraft, failure: Failure, signal: AbortSignal): Promise<never> {
    this.deps.events.event(op, { type: 'Warning', reason: failure.reason, message: failure.message });
    draft.set('failures', (op.status?.failures ?? 0) + 1);
    if (failure.record) this.recordRun(draft, failure.record);
    draft.setCondition(reconcileError(failure.message));
    if (failure.extra) draft.setCondition(failure.extra);
    try {
      await this.write(op, draft, signal);
    } catch (err) {
      // The marker stays equal to the failure count then: the next reconcile reports the run as interrupted.
      this.deps.onWriteError?.(err);
    }
    const options = failure.cause === undefined ? undefined : { cause: failure.cause };
    throw new Error(`cannot run Operation "${op.metadata.name}": ${failure.message}`, options);
  }

  private recordRun(draft: StatusDraft, record: RunRecord): void {
    if (record.pipeline.length > 0) draft.set('pipeline', record.pipeline);
    if (record.applied.length > 0) draft.set('appliedResourceRefs', record.applied);
  }

  private emit(op: Operation, record: RunRecord): void {
    for (const e of record.events) this.deps.events.event(op, { type: e.type, reason: e.reason, message: e.message });
  }

  private async write(op: Operation, draft: StatusDraft, signal: AbortSignal): Promise<Operation> {
    if (draft.unchanged()) return op;
    const status = draft.toStatus() as OperationStatus;
    try {
      return await this.deps.store.updateStatus({ ...op, status }, signal);
    } catch (err) {
      // Conflicts go back untouched: the queue retries them at once and quietly.
      if (isConflict(err)) throw err;
      throw new Error(`cannot update status of Operation "${op.metadata.name}": ${errorMessage(err)}`, { cause: err });
    }
  }
}
