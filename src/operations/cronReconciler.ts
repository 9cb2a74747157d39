// Reconciles one CronOperation, as Crossplane's cronoperation reconciler does: status from its Operations, history
// garbage collected, and the Operation of a due run created (cronDecision.ts decides which and whether).
import { RECONCILE_SUCCESS, reconcileError, type StatusDraft } from '../controller/index.js';
import { isAlreadyExists } from '../kube/index.js';
import type { ReconcileResult } from '../queue/index.js';
import { EVENT_REASONS, SCHEDULE_ACTIVE, SCHEDULE_PAUSED, scheduleInvalid } from './conditions.js';
import { cronOperationName, decideCron, lastScheduled, type CronDecision } from './cronDecision.js';
import { runningOperations } from './history.js';
import {
  draftOf,
  failOwner,
  isPausedOwner,
  markOwnerPaused,
  operationFromTemplate,
  replaceRunning,
  rfc3339,
  step,
  tendHistory,
  writeOwnerStatus,
} from './owner.js';
import { InvalidScheduleError, parseSchedule, type Schedule } from './schedule.js';
import { OpsReconciler, type OpsReconcilerDeps } from './opsReconciler.js';
import { CRON_OPERATION_LABEL, type CronOperation, type Operation } from './types.js';

/** A CronOperation's reconciler needs nothing besides what every ops reconciler has. */
export type CronReconcilerDeps = OpsReconcilerDeps;

export class CronOperationReconciler extends OpsReconciler<CronReconcilerDeps> {
  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const co = await this.deps.store.get('CronOperation', key, signal);
    if (!co || co.metadata.deletionTimestamp !== undefined) return {};
    const { store, events } = this.deps;
    const report = { store, events, owner: co, draft: draftOf(co, this.clock), signal };
    if (isPausedOwner(co)) return markOwnerPaused(report, SCHEDULE_PAUSED);
    try {
      return await this.schedule(co, report.draft, signal);
    } catch (err) {
      return await failOwner(report, err);
    }
  }

  private async schedule(co: CronOperation, draft: StatusDraft, signal: AbortSignal): Promise<ReconcileResult> {
    const { store } = this.deps;
    const listed = await step(EVENT_REASONS.listOperations, 'cannot list Operations', () =>
      store.listOperations(CRON_OPERATION_LABEL, co.metadata.name, signal),
    );
    const lastMs = lastScheduled(co, listed);
    if (listed.length > 0 || co.status?.lastScheduleTime !== undefined) draft.set('lastScheduleTime', rfc3339(lastMs));
    const ops = await tendHistory({ store, owner: co, signal }, listed, draft);
    let schedule: Schedule;
    try {
      schedule = parseSchedule(co.spec.schedule);
    } catch (err) {
      if (!(err instanceof InvalidScheduleError)) throw err;
      // Terminal until the spec changes (which brings the CronOperation back): no requeue, one event per change.
      if (draft.condition(SCHEDULE_ACTIVE.type)?.message !== err.message) {
        this.deps.events.event(co, { type: 'Warning', reason: EVENT_REASONS.invalidSchedule, message: err.message });
      }
      draft.setCondition(scheduleInvalid(err.message));
      draft.setCondition(reconcileError(err.message));
      await writeOwnerStatus(store, co, draft, signal);
      return {};
    }
    draft.setCondition(SCHEDULE_ACTIVE);
    const nowMs = this.clock.now();
    const decision = decideCron({
      nowMs,
      schedule,
      lastMs,
      running: runningOperations(ops),
      ...(co.spec.startingDeadlineSeconds !== undefined
        ? { startingDeadlineSeconds: co.spec.startingDeadlineSeconds }
        : {}),
      ...(co.spec.concurrencyPolicy !== undefined ? { concurrencyPolicy: co.spec.concurrencyPolicy } : {}),
    });
    if (decision.action === 'create') await this.create({ co, ops, draft, signal }, decision);
    draft.setCondition(RECONCILE_SUCCESS);
    await writeOwnerStatus(store, co, draft, signal);
    return decision.untilMs === undefined ? {} : { requeueAfterMs: Math.max(1, decision.untilMs - nowMs) };
  }

  private async create(
    {
      co,
      ops,
      draft,
      signal,
    }: { co: CronOperation; ops: readonly Operation[]; draft: StatusDraft; signal: AbortSignal },
    decision: Extract<CronDecision, { action: 'create' }>,
  ): Promise<void> {
    const { store } = this.deps;
    await replaceRunning(store, ops, decision.replace, signal);
    const op = operationFromTemplate(co, cronOperationName(co.metadata.name, decision.slotMs), CRON_OPERATION_LABEL);
    await step(EVENT_REASONS.createOperation, `cannot create scheduled Operation "${op.metadata.name}"`, () =>
      // The run's Operation exists already (a stale read): it was created, which is all this step is for.
      store.createOperation(op, signal).catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      }),
    );
    const replaced = new Set(decision.replace);
    const running = runningOperations(ops).filter((name) => !replaced.has(name));
    draft.set(
      'runningOperationRefs',
      [...new Set([...running, op.metadata.name])].sort().map((name) => ({ name })),
    );
    draft.set('lastScheduleTime', rfc3339(decision.slotMs));
  }
}
