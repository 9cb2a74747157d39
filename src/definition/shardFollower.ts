import type { Logger } from 'pino';
import type { Condition } from '../controller/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { Metrics } from '../metrics/index.js';
import type { ControllerShell } from '../controller/index.js';
import type { ReconcileLimiter, ReconcileResult } from '../queue/index.js';
import type { InformerRegistry } from '../watch/index.js';
import { RunningControllers, type CompositeFactoryInput, type RunningComposite } from './runningControllers.js';
import type { CompositeResourceDefinition } from './xrd.js';
import { XRD, xrdShell } from './xrdQueue.js';

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
  /** --max-reconcile-rate: the process's one reconcile limiter, shared by every controller. */
  reconcileLimiter: ReconcileLimiter;
  newComposite: (input: CompositeFactoryInput) => RunningComposite;
  /** How long a composite controller stopped for a changed or deleted XRD may finish in-flight reconciles. */
  stopDeadlineMs?: number;
}

/**
 * The XRD side of a replica that does not run the cluster-wide controllers (--shard-index other than 0): one
 * composite controller per XRD, started and restarted by what the cluster-wide replica's XRD controller reports in
 * the XRD's Established condition. It writes nothing: no CRD, no XRD status, no finalizer (neither defined nor offered),
 * no RBAC, so that work is never done twice. It starts and stops composite controllers with the XRD controller's
 * routine (RunningControllers).
 */
export class ShardFollower implements Lifecycle {
  readonly name = CONTROLLER_NAME;
  private readonly shell: ControllerShell;
  private readonly running: RunningControllers;

  constructor(private readonly options: ShardFollowerOptions) {
    this.shell = xrdShell({
      ...options,
      name: CONTROLLER_NAME,
      // One at a time: starts and stops of one XRD's controller must not overlap.
      workers: 1,
      reconcile: (key, signal) => this.reconcile(key, signal),
    });
    this.running = new RunningControllers({ ...options, cached: (key) => this.cached(key), role: 'shard follower' });
  }

  /** Names of the composite controllers running now. */
  controllers(): string[] {
    return this.running.names();
  }

  start(signal?: AbortSignal): Promise<void> {
    return this.shell.start(signal);
  }

  /** Stops taking XRD work, then stops every composite controller, all within `deadline`. */
  async stop(deadline: AbortSignal): Promise<void> {
    await this.shell.stop(deadline);
    await this.running.stopAll(deadline);
  }

  private cached(key: string): FollowedXrd | undefined {
    return this.shell.store(XRD)?.get(key) as FollowedXrd | undefined;
  }

  private async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const xrd = this.cached(key);
    const running = this.running.get(key);
    const action = followAction(xrd, running);
    if (action === 'keep' && running && xrd) running.xrd = xrd;
    if (action === 'stop') await this.running.stop(key, signal);
    // A start that fails released what it took; the queue retries it with backoff.
    if (action === 'start' && xrd) await this.running.startComposite(key, xrd, signal);
    return {};
  }
}
