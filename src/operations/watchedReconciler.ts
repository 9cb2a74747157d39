// Reconciles one watched resource on behalf of one WatchOperation (Crossplane's internal/controller/ops/watched):
// the resource changed, so the Operation for its current version is created, within the concurrency policy. Keys are
// the watched objects' cache keys ("namespace/name" or "name"); watchDecision.triggers decides which events queue one.
import { isAlreadyExists } from '../kube/index.js';
import type { ReconcileResult } from '../queue/index.js';
import { EVENT_REASONS } from './conditions.js';
import { runningOperations } from './history.js';
import { StepError } from '../controller/index.js';
import { isPausedOwner, replaceRunning, step } from './owner.js';
import { OpsReconciler, type OpsReconcilerDeps } from './opsReconciler.js';
import { WATCH_OPERATION_LABEL, type WatchedObject } from './types.js';
import { deletedStandIn, operationForWatched, watchedOperationName } from './watchDecision.js';

export interface WatchedReconcilerDeps extends OpsReconcilerDeps {
  /** The WatchOperation this reconciler works for. */
  watchOperation: string;
  /** The watched object of a key, from the informer's cache; undefined when it is gone. */
  watched: (key: string) => WatchedObject | undefined;
}

export class WatchedReconciler extends OpsReconciler<WatchedReconcilerDeps> {
  async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const { store, events } = this.deps;
    const wo = await store.get('WatchOperation', this.deps.watchOperation, signal);
    if (!wo || isPausedOwner(wo) || wo.metadata.deletionTimestamp !== undefined) return {};
    // A resource that is gone still starts its Operation, with a stand-in for it (its final state is not read).
    const watched = this.deps.watched(key) ?? deletedStandIn(wo.spec.watch, key, this.clock.now());
    try {
      const ops = await step(EVENT_REASONS.listOperations, 'cannot list Operations', () =>
        store.listOperations(WATCH_OPERATION_LABEL, wo.metadata.name, signal),
      );
      const name = watchedOperationName(wo, watched);
      // This version of the resource has its Operation already.
      if (ops.some((op) => op.metadata.name === name)) return {};
      const running = runningOperations(ops);
      const policy = wo.spec.concurrencyPolicy ?? 'Allow';
      // Forbid drops the change, as upstream: the next change of the resource starts the next Operation.
      if (running.length > 0 && policy === 'Forbid') return {};
      if (policy === 'Replace') await replaceRunning(store, ops, running, signal);
      const op = operationForWatched(wo, watched, name);
      await step(EVENT_REASONS.createOperation, `cannot create Operation "${name}"`, () =>
        store.createOperation(op, signal).catch((err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
        }),
      );
      return {};
    } catch (err) {
      if (err instanceof StepError) events.event(wo, { type: 'Warning', reason: err.reason, message: err.message });
      throw err;
    }
  }
}
