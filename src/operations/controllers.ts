// The three ops controllers on the kit (upstream's internal/controller/ops/*/constructor.go): each a ControllerShell
// declared from its watches, a few lines each. Operation: Operations whose spec changed. CronOperation and
// WatchOperation: their own kind whose spec changed, and every change of an Operation mapped to its owner.
import { OwnWrites } from '../circuitbreaker/index.js';
import type { ApiKind } from '../apis/index.js';
import {
  ControllerShell,
  watchKind,
  type ControllerContext,
  type ControllerSettings,
  type KindWatch,
  type Watch,
} from '../controller/index.js';
import type { FunctionRunner, RequiredResourceFetcher } from '../functions/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { ReconcileResult } from '../queue/index.js';
import { objectKey } from '../watch/index.js';
import type { ActiveRevisionLookup } from './capabilities.js';
import { CronOperationReconciler } from './cronReconciler.js';
import { ownerOf, specChanged, type OpsEvent } from './eventFilters.js';
import { KubeOpsStore } from './kubeStore.js';
import { OperationReconciler } from './operationReconciler.js';
import { OPS_API_VERSION, type Operation } from './types.js';
import { WatchedControllers } from './watchedControllers.js';
import { WatchOperationReconciler } from './watchOperationReconciler.js';

/** The controller labels of the three queues' metrics, upstream's controller names. */
export const OPS_CONTROLLER_NAMES = {
  operation: 'ops/operation',
  cronOperation: 'ops/cronoperation',
  watchOperation: 'ops/watchoperation',
} as const;

/** Upstream gives an Operation's reconcile two minutes, its functions included. */
const OPERATION_RECONCILE_TIMEOUT_MS = 120_000;

const OPERATION = { apiVersion: OPS_API_VERSION, kind: 'Operation' };
const CRON_OPERATION = { apiVersion: OPS_API_VERSION, kind: 'CronOperation' };
const WATCH_OPERATION = { apiVersion: OPS_API_VERSION, kind: 'WatchOperation' };

export interface OperationsControllerOptions extends ControllerContext {
  settings: ControllerSettings;
  /** The function runner stack without the response cache: an Operation runs its functions every time. */
  runner: FunctionRunner;
  /** Serves the required resources functions ask for, cluster-wide. */
  fetcher: RequiredResourceFetcher;
  /** Finds a Function's active revision for the capability check. */
  activeRevision: ActiveRevisionLookup;
  /** How long a watched-resource controller being stopped may finish its reconciles in flight. */
  stopDeadlineMs: number;
}

/** An ops kind's own events: its key when its spec changed (or it was created or deleted). */
function ownKind(kind: ApiKind): KindWatch {
  return watchKind({
    kind,
    keys: (event) => (specChanged(event as unknown as OpsEvent) ? [objectKey(event.object)] : []),
  });
}

/** Operations, mapped to the CronOperation or WatchOperation that created them. */
function ownedOperations(owner: 'CronOperation' | 'WatchOperation'): KindWatch {
  return watchKind({
    kind: OPERATION,
    keys: (event) => {
      const found = ownerOf((event.object as unknown as Operation).metadata);
      return found?.kind === owner ? [found.name] : [];
    },
  });
}

/**
 * The Operation, CronOperation and WatchOperation controllers (--enable-operations), and the watched-resource
 * controllers the WatchOperations start; started in that order and stopped in reverse.
 *
 * @example
 * const ops = new OperationsController({ ...context, settings, runner, fetcher, activeRevision, stopDeadlineMs });
 * await ops.start(signal);
 * await ops.stop(AbortSignal.timeout(30_000));
 */
export class OperationsController implements Lifecycle {
  private readonly shells: readonly ControllerShell[];
  private readonly watched: WatchedControllers;

  constructor(options: OperationsControllerOptions) {
    const ownWrites = new OwnWrites();
    const store = new KubeOpsStore(options.client, options.discovery, { ownWrites });
    const { events } = options;
    this.watched = new WatchedControllers({ ...options, store, ownWrites });
    const operation = new OperationReconciler({ ...options, store, events });
    const cron = new CronOperationReconciler({ store, events });
    const watch = new WatchOperationReconciler({ store, events, watches: this.watched });
    const shell = (name: string, watches: readonly Watch[], reconcile: Reconcile) =>
      new ControllerShell({ ...options, name, watches, reconcile, errors: { keyField: 'name' } });
    this.shells = [
      shell(OPS_CONTROLLER_NAMES.operation, [ownKind(OPERATION)], (key, signal) =>
        operation.reconcile(key, AbortSignal.any([signal, AbortSignal.timeout(OPERATION_RECONCILE_TIMEOUT_MS)])),
      ),
      shell(OPS_CONTROLLER_NAMES.cronOperation, [ownKind(CRON_OPERATION), ownedOperations('CronOperation')], (k, s) =>
        cron.reconcile(k, s),
      ),
      shell(
        OPS_CONTROLLER_NAMES.watchOperation,
        [ownKind(WATCH_OPERATION), ownedOperations('WatchOperation')],
        (k, s) => watch.reconcile(k, s),
      ),
    ];
  }

  async start(signal?: AbortSignal): Promise<void> {
    for (const shell of this.shells) await shell.start(signal);
  }

  async stop(deadline: AbortSignal): Promise<void> {
    for (const shell of [...this.shells].reverse()) await shell.stop(deadline);
    await this.watched.stopAll();
  }
}

type Reconcile = (key: string, signal: AbortSignal) => Promise<ReconcileResult>;
