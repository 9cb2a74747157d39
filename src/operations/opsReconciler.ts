// What the three ops reconcilers (Operation, CronOperation, WatchOperation) and the watched-resource reconciler are
// all given, and the clock they default to, so each states only what it adds.
import { systemClock, type Clock } from '../base/index.js';
import type { EventSink } from '../kube/index.js';
import type { ReconcileResult } from '../queue/index.js';
import type { OpsStore } from './store.js';

export interface OpsReconcilerDeps {
  store: OpsStore;
  events: EventSink;
  /** Wall-clock time for status times and schedules (calendar times); the system clock unless given. */
  clock?: Pick<Clock, 'now'>;
}

/** An ops reconciler: its deps as given, and the clock resolved once. The queue calls `reconcile`. */
export abstract class OpsReconciler<D extends OpsReconcilerDeps> {
  protected readonly clock: Pick<Clock, 'now'>;

  constructor(protected readonly deps: D) {
    this.clock = deps.clock ?? systemClock;
  }

  abstract reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult>;
}
