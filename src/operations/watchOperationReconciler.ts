// Reconciles one WatchOperation, as Crossplane's watchoperation reconciler does: a finalizer while its watch runs,
// status from its Operations and from the watched objects, history garbage collected, and the watch of its kind
// started (and stopped on deletion) through the injected Watches.
import { RECONCILE_SUCCESS, StepError } from '../controller/index.js';
import type { ReconcileResult } from '../queue/index.js';
import { EVENT_REASONS, WATCH_ACTIVE, WATCH_PAUSED, watchFailed } from './conditions.js';
import { latestCreateTime } from './history.js';
import {
  draftOf,
  failOwner,
  isPausedOwner,
  markOwnerPaused,
  rfc3339,
  step,
  tendHistory,
  writeOwnerStatus,
  type OwnerReport,
} from './owner.js';
import { OpsReconciler, type OpsReconcilerDeps } from './opsReconciler.js';
import { WATCH_OPERATION_FINALIZER, WATCH_OPERATION_LABEL, type WatchOperation } from './types.js';

/**
 * The watches of WatchOperations, one per WatchOperation: on the kit, an informer of the watched kind whose events
 * pass watchDecision.triggers into the queue of a WatchedReconciler.
 */
export interface Watches {
  /** Starts (or keeps) the watch of this WatchOperation; idempotent. Rejects when the kind cannot be watched. */
  ensure(wo: WatchOperation, signal: AbortSignal): Promise<void>;
  /** Stops the watch of the named WatchOperation; a watch not running is not an error. */
  stop(name: string): Promise<void>;
  /** How many objects the watch selects now; undefined when it cannot tell (best effort, as upstream). */
  count(wo: WatchOperation): number | undefined;
}

export interface WatchOperationReconcilerDeps extends OpsReconcilerDeps {
  watches: Watches;
}

export class WatchOperationReconciler extends OpsReconciler<WatchOperationReconcilerDeps> {
  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const wo = await this.deps.store.get('WatchOperation', key, signal);
    if (!wo) return {};
    const { store, events } = this.deps;
    const report = { store, events, owner: wo, draft: draftOf(wo, this.clock), signal };
    // The WatchOperation as last written: a status write after its finalizer was added needs that version.
    const latest = { wo };
    try {
      if (wo.metadata.deletionTimestamp !== undefined) return await this.release(wo, signal);
      return await this.watch(latest, report);
    } catch (err) {
      return await failOwner(report, err, latest.wo);
    }
  }

  private async release(wo: WatchOperation, signal: AbortSignal): Promise<ReconcileResult> {
    const { store, watches } = this.deps;
    await step(EVENT_REASONS.terminateWatched, 'cannot stop watched resource controller', () =>
      watches.stop(wo.metadata.name),
    );
    const finalizers = wo.metadata.finalizers ?? [];
    if (finalizers.includes(WATCH_OPERATION_FINALIZER)) {
      await step(EVENT_REASONS.terminateWatched, 'cannot remove watched resource finalizer', () =>
        store.patchMetadata(wo, { finalizers: finalizers.filter((f) => f !== WATCH_OPERATION_FINALIZER) }, signal),
      );
    }
    return {};
  }

  private async watch(latest: { wo: WatchOperation }, report: OwnerReport): Promise<ReconcileResult> {
    const { store, watches } = this.deps;
    const { draft, signal } = report;
    const { wo } = latest;
    const finalizers = wo.metadata.finalizers ?? [];
    if (!finalizers.includes(WATCH_OPERATION_FINALIZER)) {
      latest.wo = await step(EVENT_REASONS.establishWatched, 'cannot add watched resource finalizer', () =>
        store.patchMetadata(wo, { finalizers: [...finalizers, WATCH_OPERATION_FINALIZER] }, signal),
      );
    }
    const current = latest.wo;
    if (isPausedOwner(current)) return markOwnerPaused({ ...report, owner: current }, WATCH_PAUSED);
    const listed = await step(EVENT_REASONS.establishWatched, 'cannot list Operations', () =>
      store.listOperations(WATCH_OPERATION_LABEL, current.metadata.name, signal),
    );
    const created = latestCreateTime(listed);
    if (created !== undefined) draft.set('lastScheduleTime', rfc3339(created));
    await tendHistory({ store, owner: current, signal }, listed, draft);
    try {
      await step(EVENT_REASONS.establishWatched, 'cannot start watched resource controller', () =>
        watches.ensure(current, signal),
      );
    } catch (err) {
      if (err instanceof StepError) draft.setCondition(watchFailed(err.message));
      throw err;
    }
    const count = watches.count(current);
    if (count !== undefined) draft.set('watchingResources', count);
    draft.setCondition(WATCH_ACTIVE);
    draft.setCondition(RECONCILE_SUCCESS);
    await writeOwnerStatus(store, current, draft, signal);
    return {};
  }
}
