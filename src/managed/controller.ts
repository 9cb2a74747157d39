import type { Subscription } from 'rxjs';
import type { Logger } from 'pino';
import { OwnWrites } from '../circuitbreaker/index.js';
import { errorMessage, type Clock } from '../base/index.js';
import { effectivePollInterval, restartDelayMs } from '../controller/index.js';
import { isConflict, type EventSink, type KubeClient } from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { Metrics } from '../metrics/index.js';
import { ReconcileQueue, type ReconcileLimiter } from '../queue/index.js';
import { objectKey, type InformerLease, type InformerRegistry, type WatchEvent } from '../watch/index.js';
import { ConnectionSecretPublisher } from './connectionSecret.js';
import { meteredConnector } from './metered.js';
import { ManagedReconciler, type ManagedTiming } from './reconciler.js';
import type { ExternalConnector, ManagedResource } from './types.js';
import { ManagedWriter } from './writer.js';

export interface ManagedControllerSettings extends ManagedTiming {
  /** --max-reconcile-rate: the process's one reconcile limiter, shared by every controller. */
  reconcileLimiter: ReconcileLimiter;
  /** --max-concurrent-reconciles. */
  workers: number;
}

export interface ManagedControllerOptions<T extends ManagedResource> {
  /** The MR kind; the plural names the controller. */
  type: { apiVersion: string; kind: string; plural: string };
  /** The provider's name: the `provider` label of external_calls_total. */
  provider: string;
  connector: ExternalConnector<T>;
  client: KubeClient;
  informers: InformerRegistry;
  events: EventSink;
  metrics: Metrics;
  logger: Logger;
  settings: ManagedControllerSettings;
  /** --shard-index/--shard-count: whether this replica owns an MR; undefined owns every MR. */
  owns?: (mr: T) => boolean;
  clock?: Pick<Clock, 'now'>;
}

/** managed/<plural>.<group>, the controller label of its metrics (as composite/<plural>.<group> for XRs). */
export function managedControllerName(plural: string, apiVersion: string): string {
  return `managed/${plural}.${apiVersion.slice(0, apiVersion.indexOf('/'))}`;
}

/**
 * One MR kind's controller: the kind's shared informer feeds a ReconcileQueue (dedupe, per-item backoff 1s..60s,
 * the process's --max-reconcile-rate limiter, --max-concurrent-reconciles workers) that runs the ManagedReconciler.
 * Watch events enqueue the MR, except the echoes of the reconciler's own writes. After a restart, settled MRs of
 * the first list are spread over their poll interval, as XRs are, while the others go at once.
 *
 * @example
 * const controller = new ManagedController({
 *   type: { apiVersion: 'storage.example.org/v1', kind: 'Bucket', plural: 'buckets' },
 *   provider: 'example', connector, client, informers, events, metrics, logger, settings,
 * });
 * await controller.start();
 * await controller.stop(AbortSignal.timeout(30_000));
 */
export class ManagedController<T extends ManagedResource = ManagedResource> implements Lifecycle {
  /** managed/<plural>.<group>. */
  readonly name: string;
  private readonly ownWrites = new OwnWrites();
  private readonly queue: ReconcileQueue;
  private readonly logger: Logger;
  private lease: InformerLease<T> | undefined;
  private subscription: Subscription | undefined;
  private reconciler: ManagedReconciler<T> | undefined;

  constructor(private readonly options: ManagedControllerOptions<T>) {
    const { type, settings } = options;
    this.name = managedControllerName(type.plural, type.apiVersion);
    this.logger = options.logger.child({ controller: this.name });
    this.queue = new ReconcileQueue({
      name: this.name,
      metrics: options.metrics,
      workers: settings.workers,
      limiter: settings.reconcileLimiter,
      isConflict,
      reconcile: (key, signal) => {
        if (!this.reconciler) throw new Error('the managed controller is not started');
        return this.reconciler.reconcile(key, signal);
      },
      onError: (key, err) => {
        this.logger.info({ mr: key, err: errorMessage(err) }, 'reconcile failed; backing off');
      },
    });
  }

  /** Keys queued, reconciling, waiting: for diagnostics and tests. */
  stats(): ReturnType<ReconcileQueue['stats']> {
    return this.queue.stats();
  }

  /** Watches the MR kind and starts the workers; resolves once the cache is synced. */
  async start(): Promise<void> {
    const { options } = this;
    const lease = await options.informers.acquire<T>(options.type.apiVersion, options.type.kind);
    this.lease = lease;
    this.reconciler = new ManagedReconciler<T>({
      connector: meteredConnector(options.connector, options.metrics, options.provider),
      store: lease.informer.store,
      writer: new ManagedWriter(options.client, lease.resource, this.ownWrites),
      secrets: new ConnectionSecretPublisher(options.client),
      events: options.events,
      timing: options.settings,
      logger: this.logger,
      clock: options.clock,
    });
    const informer = lease.informer;
    // Another shard's MRs are another replica's: their events are dropped here, before any state is kept.
    const owns = options.owns ?? ((): boolean => true);
    this.subscription = informer.events$.subscribe((event) => {
      if (owns(event.object)) this.onEvent(event, !informer.hasSynced);
    });
    // A shared informer may have synced before we subscribed; its objects then never arrive as events.
    if (informer.hasSynced) for (const object of informer.store.list().filter(owns)) this.enqueueInitial(object);
    await informer.waitForSync();
    await this.queue.start();
  }

  /** Stops taking work, waits for in-flight reconciles until `deadline` aborts, and releases the informer. */
  async stop(deadline: AbortSignal): Promise<void> {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    await this.queue.stop(deadline);
    await this.lease?.release();
    this.lease = undefined;
  }

  private onEvent(event: WatchEvent<T>, initial: boolean): void {
    const { object } = event;
    const key = objectKey(object);
    if (event.type === 'delete') {
      this.ownWrites.forget(object);
      this.reconciler?.forget(key);
      return;
    }
    if (event.type === 'add' && initial) {
      this.enqueueInitial(object);
      return;
    }
    // A resync is due whoever wrote last; the reconciler's skip rule keeps it from the external system.
    if (event.type === 'resync') {
      this.queue.add(key);
      return;
    }
    // The API server often sends a write's event before its response: judge it once the write has settled.
    const pending = this.ownWrites.pending(object);
    if (!pending) {
      this.enqueueUnlessEcho(key, object);
      return;
    }
    void pending.then(() => {
      this.enqueueUnlessEcho(key, object);
    });
  }

  /** An echo shows exactly what the reconciler wrote: nothing to do. */
  private enqueueUnlessEcho(key: string, object: T): void {
    if (this.ownWrites.isEcho(object)) return;
    this.queue.add(key);
  }

  /** Settled MRs of the first list wait a spread-out while (see restartDelayMs); the others go now. */
  private enqueueInitial(object: T): void {
    const key = objectKey(object);
    const pollMs = effectivePollInterval(object.metadata.annotations, this.options.settings).ms;
    const delayMs = restartDelayMs(object, pollMs);
    if (delayMs === undefined) this.queue.add(key);
    else this.queue.addAfter(key, delayMs);
  }
}
