import type { Logger } from 'pino';
import type { Condition } from '../composite/index.js';
import type { Metrics } from '../metrics/index.js';
import type { ReconcileQueue, ReconcileResult } from '../queue/index.js';
import type { InformerLease, InformerRegistry } from '../watch/index.js';
import { compositeInputFor, type CompositeFactoryInput, type RunningComposite } from './controller.js';
import type { CompositeResourceDefinition } from './xrd.js';
import { watchXrds, xrdQueue } from './xrdQueue.js';

const CONTROLLER_NAME = 'follower/compositeresourcedefinition.apiextensions.crossplane.io';

type FollowedXrd = CompositeResourceDefinition & {
  metadata: CompositeResourceDefinition['metadata'] & { deletionTimestamp?: string };
  status?: { conditions?: Condition[] };
};

/** What a follower does for one XRD: start (or restart) its composite controller, stop it, or leave it as it is. */
export type FollowAction = 'start' | 'stop' | 'keep';

/**
 * The follower's rule, pure. It starts a composite controller only for an XRD whose current generation the
 * cluster-wide replica has Established (so the XR CRD is applied and served), and otherwise keeps what runs, as
 * the XRD controller does while a new generation is being established. A deleting XRD keeps (or gets) its
 * controller: this shard's XRs still need their finalizers removed before the XRD can go.
 */
export function followAction(
  xrd: FollowedXrd | undefined,
  running: { generation: number | undefined } | undefined,
): FollowAction {
  if (!xrd) return 'stop';
  if (xrd.metadata.deletionTimestamp !== undefined) return running ? 'keep' : 'start';
  const established = xrd.status?.conditions?.find((c) => c.type === 'Established');
  const current = established?.status === 'True' && established.observedGeneration === xrd.metadata.generation;
  if (!current) return 'keep';
  return running?.generation === xrd.metadata.generation ? 'keep' : 'start';
}

export interface ShardFollowerOptions {
  informers: InformerRegistry;
  metrics: Metrics;
  logger: Logger;
  maxReconcileRate: number;
  newComposite: (input: CompositeFactoryInput) => RunningComposite;
  /** How long a stopping composite controller may finish in-flight reconciles. */
  stopDeadlineMs?: number;
}

interface Running {
  controller: RunningComposite;
  generation: number | undefined;
  xrd: FollowedXrd;
}

/**
 * The XRD side of a replica that does not run the cluster-wide controllers (--shard-index other than 0): one
 * composite controller per XRD, started and restarted by what the cluster-wide replica's XRD controller reports in
 * the XRD's Established condition. It writes nothing: no CRD, no XRD status, no finalizer (neither defined nor offered),
 * no RBAC, so that work is never done twice. It starts composite controllers as the XRD controller does
 * (compositeInputFor).
 */
export class ShardFollower {
  readonly name = CONTROLLER_NAME;
  private readonly queue: ReconcileQueue;
  private readonly running = new Map<string, Running>();
  private lease: InformerLease | undefined;

  constructor(private readonly options: ShardFollowerOptions) {
    this.queue = xrdQueue({
      name: CONTROLLER_NAME,
      metrics: options.metrics,
      logger: options.logger,
      // One at a time: starts and stops of one XRD's controller must not overlap.
      workers: 1,
      ratePerSecond: options.maxReconcileRate,
      reconcile: (key) => this.reconcile(key),
    });
  }

  /** Names of the composite controllers running now. */
  controllers(): string[] {
    return [...this.running.values()].map((r) => r.controller.name);
  }

  async start(): Promise<void> {
    this.lease = await watchXrds(this.options.informers, this.queue);
    this.queue.start();
  }

  async stop(deadlineMs: number): Promise<void> {
    await this.queue.shutdown(deadlineMs);
    await Promise.all([...this.running.values()].map((r) => r.controller.stop(deadlineMs)));
    this.running.clear();
    await this.lease?.release();
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const xrd = this.lease?.informer.store.get(key) as FollowedXrd | undefined;
    const running = this.running.get(key);
    const action = followAction(xrd, running);
    if (action === 'keep' && running && xrd) running.xrd = xrd;
    if (action === 'stop') await this.stopComposite(key);
    if (action === 'start' && xrd) {
      await this.stopComposite(key);
      await this.startComposite(key, xrd);
    }
    return {};
  }

  private async startComposite(key: string, xrd: FollowedXrd): Promise<void> {
    const entry: Running = {
      xrd,
      generation: xrd.metadata.generation,
      controller: this.options.newComposite(
        compositeInputFor(
          xrd,
          () => entry.xrd,
          () => this.restartDue(key, entry),
        ),
      ),
    };
    try {
      await entry.controller.start();
    } catch (err) {
      // Half started (the XR kind not served yet, say): release what it holds; the queue retries with backoff.
      await entry.controller.stop(0).catch(() => undefined);
      throw err;
    }
    this.running.set(key, entry);
    this.options.metrics.engine.controllersStarted.inc({ controller: entry.controller.name });
    this.options.logger.info({ controller: entry.controller.name }, 'started composite controller (shard follower)');
  }

  /** As in the XRD controller: a newer cached generation pauses reconciles until the restart; deletion does not. */
  private restartDue(key: string, entry: Running): boolean {
    const cached = this.lease?.informer.store.get(key);
    if (!cached || cached.metadata.deletionTimestamp !== undefined) return false;
    return cached.metadata.generation !== entry.generation;
  }

  private async stopComposite(key: string): Promise<void> {
    const running = this.running.get(key);
    if (!running) return;
    this.running.delete(key);
    await running.controller.stop(this.options.stopDeadlineMs ?? 30_000);
    this.options.metrics.engine.controllersStopped.inc({ controller: running.controller.name });
    this.options.logger.info({ controller: running.controller.name }, 'stopped composite controller (shard follower)');
  }
}
