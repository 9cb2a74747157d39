import type { Subscription } from 'rxjs';
import type { Logger } from 'pino';
import { errorMessage } from '../base/index.js';
import { isConflict, type Discovery, type EventSink, type KubeClient } from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { Metrics } from '../metrics/index.js';
import { ReconcileQueue, type ReconcileLimiter } from '../queue/index.js';
import { objectKey, type InformerLease, type InformerRegistry } from '../watch/index.js';
import { UsageObjects } from './objects.js';
import { ensureUsagePolicy } from './policy.js';
import { UsageReconciler, type UsageTiming } from './reconciler.js';
import { USAGE_KINDS, type Usage, type UsageKind } from './types.js';

export interface UsageControllerOptions {
  client: KubeClient;
  discovery: Discovery;
  informers: InformerRegistry;
  events: EventSink;
  metrics: Metrics;
  logger: Logger;
  settings: UsageTiming & {
    /** --max-reconcile-rate: the process's one reconcile limiter, shared by every controller. */
    reconcileLimiter: ReconcileLimiter;
    /** --max-concurrent-reconciles. */
    workers: number;
    /** Apply the admission policy and its binding at start (--install-crds; the chart renders them itself). */
    installPolicy: boolean;
  };
}

/** The controller label of its queue's metrics. */
export const USAGE_CONTROLLER_NAME = 'usage/usages.protection.crossplane.io';

/**
 * Usages and ClusterUsages (protection.crossplane.io/v1beta1): one queue over both kinds' informers, keyed
 * `<Kind>|<namespace/name>`, running the UsageReconciler. At start it applies the ValidatingAdmissionPolicy that
 * refuses deleting an object in use, unless told the chart did.
 *
 * @example
 * const usages = new UsageController({ client, discovery, informers, events, metrics, logger, settings });
 * await usages.start();
 * await usages.stop(AbortSignal.timeout(30_000));
 */
export class UsageController implements Lifecycle {
  private readonly queue: ReconcileQueue;
  private readonly logger: Logger;
  private readonly leases = new Map<UsageKind, InformerLease<Usage>>();
  private readonly subscriptions: Subscription[] = [];
  private readonly reconciler: UsageReconciler;

  constructor(private readonly options: UsageControllerOptions) {
    const { settings } = options;
    this.logger = options.logger.child({ controller: USAGE_CONTROLLER_NAME });
    this.reconciler = new UsageReconciler({
      objects: new UsageObjects(options.client, options.discovery),
      find: (key) => this.find(key),
      all: () => [...this.leases.values()].flatMap((lease) => lease.informer.store.list()),
      events: options.events,
      logger: this.logger,
      timing: settings,
    });
    this.queue = new ReconcileQueue({
      name: USAGE_CONTROLLER_NAME,
      metrics: options.metrics,
      workers: settings.workers,
      limiter: settings.reconcileLimiter,
      isConflict,
      reconcile: (key, signal) => this.reconciler.reconcile(key, signal),
      onError: (key, err) => {
        this.logger.info({ usage: key, err: errorMessage(err) }, 'reconcile failed; backing off');
      },
    });
  }

  /** Applies the admission policy (when asked), watches both kinds and starts the workers once both are synced. */
  async start(signal?: AbortSignal): Promise<void> {
    const { options } = this;
    if (options.settings.installPolicy) await ensureUsagePolicy(options.client, options.discovery, signal);
    for (const { apiVersion, kind } of USAGE_KINDS) {
      const lease = await options.informers.acquire<Usage>(apiVersion, kind);
      this.leases.set(kind, lease);
      this.subscriptions.push(
        lease.informer.events$.subscribe((event) => {
          // Nothing to do once a Usage is gone: its finalizer made it wait for the last step.
          if (event.type !== 'delete') this.queue.add(`${kind}|${objectKey(event.object)}`);
        }),
      );
      if (lease.informer.hasSynced) {
        for (const usage of lease.informer.store.list()) this.queue.add(`${kind}|${objectKey(usage)}`);
      }
    }
    for (const lease of this.leases.values()) await lease.informer.waitForSync();
    await this.queue.start();
  }

  /** Stops taking work, waits for in-flight reconciles until `deadline` aborts, and releases the informers. */
  async stop(deadline: AbortSignal): Promise<void> {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
    await this.queue.stop(deadline);
    for (const lease of this.leases.values()) await lease.release();
    this.leases.clear();
  }

  private find(key: string): Usage | undefined {
    const bar = key.indexOf('|');
    const lease = this.leases.get(key.slice(0, bar) as UsageKind);
    return lease?.informer.store.get(key.slice(bar + 1));
  }
}
