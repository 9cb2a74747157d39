import type { Logger } from 'pino';
import { startInOrder, stopInReverse, type Lifecycle, type Runnable } from '../lifecycle/index.js';
import type { NopProvider } from '../managed/index.js';

/** The parts of an engine, in start order; `createEngine` builds them from the flags. */
export interface EngineParts {
  /** The shared informers every part below watches through; stopped last. */
  informers: Lifecycle & { watched(): string[] };
  /** The event recorder: its pending writes are flushed once the controllers stopped. */
  events: { flush(): Promise<void> };
  /**
   * With --package-runtime=Deployment: compositor's client certificate for the functions it runs, issued and renewed
   * on shard 0, read on the others; its start never fails (it retries with backoff).
   */
  clientTls?: Lifecycle;
  /**
   * With --package-runtime=Deployment, on shard 0: the Function package controller, which runs the functions'
   * Deployments and issues the certificates the function caller uses; before it.
   */
  packages?: Lifecycle;
  /**
   * With --package-runtime=Deployment, on shard 0: the Configuration and ConfigurationRevision controllers, which
   * install packages' XRDs and Compositions; before the XRD controller, which picks those up as any others.
   */
  configurations?: Lifecycle;
  /**
   * With --enable-providers and --package-runtime=Deployment, on shard 0: the Provider, ProviderRevision, MRD and MRAP
   * controllers, after the Configurations' (a Configuration may carry an activation policy).
   */
  providers?: Lifecycle;
  /** The function caller: client certificate, Function caches, gRPC channels. */
  functions: Lifecycle;
  /** The built-in nop provider (--enable-nop-provider); before the composite controllers, which may compose it. */
  nop?: NopProvider;
  /** The CompositionRevision controller; cluster-wide, so on shard 0 only. */
  revisions?: Lifecycle;
  /** The Usage controller (--enable-usages) and its admission policy; cluster-wide, so on shard 0 only. */
  usages?: Lifecycle;
  /** The Operation, CronOperation and WatchOperation controllers (--enable-operations); on shard 0 only. */
  operations?: Lifecycle;
  /** The XRD controller on shard 0; on the other shards a follower that only runs their composite controllers. */
  definitions: Lifecycle & { controllers(): string[] };
  log: Logger;
  /** --shard-index/--shard-count, for the line saying which shard this process reconciles. */
  shard: { index: number; count: number };
}

/**
 * The composition engine as one runnable: shared informers, the event recorder, the function caller, the nop
 * provider, the CompositionRevision controller and the XRD controller (which runs one composite controller per XRD),
 * started in that order and stopped in reverse, all with the manager's deadline. With --shard-count above 1 the
 * controllers reconcile only this process's shard of the XRs and MRs, and the cluster-wide ones run on shard 0 only
 * (docs/scaling.md).
 *
 * @example
 * const engine = createEngine({ client, config, metrics, log });
 * await engine.start(signal);
 * await engine.stop(AbortSignal.timeout(config.gracefulShutdownTimeoutMs));
 */
export class Engine implements Runnable {
  readonly name = 'composition-engine';
  readonly informers: EngineParts['informers'];
  readonly definitions: EngineParts['definitions'];
  readonly nop: NopProvider | undefined;
  private readonly parts: readonly Lifecycle[];

  constructor(private readonly options: EngineParts) {
    this.informers = options.informers;
    this.definitions = options.definitions;
    this.nop = options.nop;
    const flush: Lifecycle = { start: () => Promise.resolve(), stop: () => options.events.flush() };
    this.parts = [
      options.informers,
      flush,
      ...(options.clientTls ? [options.clientTls] : []),
      ...(options.packages ? [options.packages] : []),
      ...(options.configurations ? [options.configurations] : []),
      ...(options.providers ? [options.providers] : []),
      options.functions,
      ...(options.nop ? [options.nop] : []),
      ...(options.revisions ? [options.revisions] : []),
      ...(options.usages ? [options.usages] : []),
      ...(options.operations ? [options.operations] : []),
      options.definitions,
    ];
  }

  /** Starts the parts in order; resolves once the XRDs present at start have their controllers running. */
  async start(signal: AbortSignal): Promise<void> {
    const { shard, log, revisions } = this.options;
    if (shard.count > 1) {
      log.info(
        { shard: shard.index, shards: shard.count, clusterWide: revisions !== undefined },
        'reconciling one shard of the XRs',
      );
    }
    await startInOrder(this.parts, signal);
  }

  /**
   * Stops the parts in reverse order with one deadline: the controllers first, so at the deadline every reconcile
   * still in flight is aborted (on a lost lease, before a standby may take over), then the functions, the pending
   * events and the informers.
   */
  async stop(deadline: AbortSignal): Promise<void> {
    await stopInReverse(this.parts, deadline);
  }
}
