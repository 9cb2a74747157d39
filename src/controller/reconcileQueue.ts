import type { Logger } from 'pino';
import { errorMessage, type Clock } from '../base/index.js';
import { isConflict } from '../kube/index.js';
import type { Metrics } from '../metrics/index.js';
import { ReconcileQueue, type FairLineOptions, type ReconcileLimiter, type Reconciler } from '../queue/index.js';

/** The queue settings every controller of one engine shares, from its flags. */
export interface ControllerSettings {
  /** --max-reconcile-rate: the process's one reconcile limiter, shared by every controller so the rate is global. */
  reconcileLimiter: ReconcileLimiter;
  /** --max-concurrent-reconciles: reconciles in flight at once per controller. */
  workers: number;
}

/** How a failed reconcile is logged: conflicts are not failures and are never logged. */
export interface ErrorLog {
  /** The field naming the key: "xr", "claim", "mr", "xrd". */
  keyField: string;
  /** Default 'info': a failure that backs off is routine; controllers of definitions say 'warn'. */
  level?: 'info' | 'warn';
  /** Default "reconcile failed; backing off". */
  message?: string;
  /** Quote the error's causes too. */
  causes?: boolean;
}

export interface ControllerQueueOptions {
  /** The controller name: the `controller` label of the queue's metrics and the `controller` field of its logs. */
  name: string;
  metrics: Metrics;
  settings: ControllerSettings;
  reconcile: Reconciler;
  logger: Logger;
  errors: ErrorLog;
  /** A pool of its own size instead of --max-concurrent-reconciles (controllers whose keys must not overlap). */
  workers?: number;
  /** --fair-queue. */
  fairness?: FairLineOptions;
  /** Delays and durations; the system clock unless given. */
  clock?: Clock;
}

/**
 * The one place a controller's ReconcileQueue is built: the process's reconcile limiter, API conflicts retried at
 * once and quietly, and every other failure logged once with the controller's name before it backs off.
 *
 * @example
 * const queue = controllerQueue({ name: 'usage/usages.protection.crossplane.io', metrics, settings, reconcile, logger,
 *   errors: { keyField: 'usage' } });
 */
export function controllerQueue(options: ControllerQueueOptions): ReconcileQueue {
  const { name, metrics, settings, errors } = options;
  const logger = options.logger.child({ controller: name });
  const level = errors.level ?? 'info';
  const message = errors.message ?? 'reconcile failed; backing off';
  return new ReconcileQueue({
    name,
    metrics,
    workers: options.workers ?? settings.workers,
    limiter: settings.reconcileLimiter,
    fairness: options.fairness,
    clock: options.clock,
    isConflict,
    reconcile: options.reconcile,
    onError: (key, err) => {
      logger[level]({ [errors.keyField]: key, err: errorMessage(err, { cause: errors.causes === true }) }, message);
    },
  });
}
