import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { errorMessage } from '../base/index.js';
import { claimOf, type Xr, type XrType } from '../controller/index.js';
import { isConflict, type Discovery, type EventSink, type KubeClient } from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { Metrics } from '../metrics/index.js';
import { ReconcileQueue, type ReconcileLimiter } from '../queue/index.js';
import { objectKey, type InformerLease, type InformerRegistry } from '../watch/index.js';
import type { Claim } from './claim.js';
import { ClaimReconciler } from './reconciler.js';

export interface ClaimControllerOptions {
  /** claim/<claim plural>.<group> */
  name: string;
  claimType: { apiVersion: string; kind: string };
  xrType: XrType;
  client: KubeClient;
  discovery: Discovery;
  informers: InformerRegistry;
  events: EventSink;
  metrics: Metrics;
  logger: Logger;
  /** workers: --max-concurrent-reconciles; reconcileLimiter: the process's one --max-reconcile-rate limiter. */
  settings: { workers: number; reconcileLimiter: ReconcileLimiter };
}

/**
 * One claim controller per XRD that offers claims, started and stopped by the XRD controller: watches the claims
 * and the XRs of that XRD (an XR's change reaches its claim through spec.claimRef) and runs the claim reconciler.
 */
export class ClaimController implements Lifecycle {
  private readonly queue: ReconcileQueue;
  private readonly logger: Logger;
  private claimLease: InformerLease<Claim> | undefined;
  private xrLease: InformerLease<Xr> | undefined;
  private readonly subscriptions: Subscription[] = [];
  private reconciler: ClaimReconciler | undefined;

  constructor(private readonly options: ClaimControllerOptions) {
    this.logger = options.logger.child({ controller: options.name });
    this.queue = new ReconcileQueue({
      name: options.name,
      metrics: options.metrics,
      workers: options.settings.workers,
      limiter: options.settings.reconcileLimiter,
      isConflict,
      reconcile: (key, signal) => {
        if (!this.reconciler) throw new Error('the claim controller is not started');
        return this.reconciler.reconcile(key, signal);
      },
      onError: (key, err) => {
        this.logger.info({ claim: key, err: errorMessage(err) }, 'reconcile failed; backing off');
      },
    });
  }

  get name(): string {
    return this.options.name;
  }

  /** Watches claims and XRs and starts the workers; resolves once both caches are synced. */
  async start(): Promise<void> {
    const { options } = this;
    this.claimLease = await options.informers.acquire<Claim>(options.claimType.apiVersion, options.claimType.kind);
    this.xrLease = await options.informers.acquire<Xr>(options.xrType.apiVersion, options.xrType.kind);
    const claims = this.claimLease.informer;
    const xrs = this.xrLease.informer;
    this.reconciler = new ClaimReconciler({
      xrType: options.xrType,
      claims: claims.store,
      xrs: xrs.store,
      client: options.client,
      discovery: options.discovery,
      events: options.events,
      logger: this.logger,
    });
    this.subscriptions.push(
      claims.events$.subscribe((event) => {
        this.queue.add(objectKey(event.object));
      }),
      xrs.events$.subscribe((event) => {
        const claim = claimOf(event.object);
        if (claim?.kind === options.claimType.kind) this.queue.add(`${claim.namespace}/${claim.name}`);
      }),
    );
    await Promise.all([claims.waitForSync(), xrs.waitForSync()]);
    // A shared informer may have synced before we subscribed; its objects then never arrive as events.
    for (const key of claims.store.keys()) this.queue.add(key);
    await this.queue.start();
  }

  async stop(deadline: AbortSignal): Promise<void> {
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
    await this.queue.stop(deadline);
    await this.claimLease?.release();
    await this.xrLease?.release();
    this.claimLease = undefined;
    this.xrLease = undefined;
  }
}
