import type { ChannelCredentials } from '@grpc/grpc-js';
import { ClaimController } from '../claim/index.js';
import { CompositeController } from '../composite/index.js';
import {
  CompositionRevisionController,
  DefinitionController,
  ShardFollower,
  type CompositeFactoryInput,
} from '../definition/index.js';
import {
  builtinFunctions,
  MeasuredRunner,
  FunctionCallError,
  GrpcFunctionRunner,
  insecureCredentials,
  lookupEndpointResolver,
  mtlsCredentials,
  RoutingRunner,
  type FunctionObject,
  type FunctionRevisionObject,
  type FunctionRunner,
  withResponseCache,
} from '../functions/index.js';
import { Discovery, EventRecorder, KindNotServedError, type KubeClient } from '../kube/index.js';
import { NopProvider, type ManagedControllerSettings } from '../managed/index.js';
import type { Logger, Runnable } from '../manager/index.js';
import type { Metrics } from '../metrics/index.js';
import { InformerRegistry, shardFilter, type InformerLease } from '../watch/index.js';
import type { StartConfig } from './flags.js';

/** Where Crossplane runs functions; the last resort of endpoint resolution (dns:///<fn>.<namespace>:9443). */
const FUNCTION_NAMESPACE = 'crossplane-system';
const FUNCTION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function' };
const FUNCTION_REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'FunctionRevision' };

export interface EngineOptions {
  client: KubeClient;
  config: StartConfig;
  metrics: Metrics;
  log: Logger;
}

/** The managed controllers' settings from the flags: --managed-poll-interval and the shared rate limits. */
export function managedSettings(config: StartConfig): ManagedControllerSettings {
  return {
    pollIntervalMs: config.managedPollIntervalMs,
    minPollIntervalMs: config.minPollIntervalMs,
    syncIntervalMs: config.syncIntervalMs,
    maxReconcileRate: config.maxReconcileRate,
    workers: config.maxConcurrentReconciles,
  };
}

/**
 * The composition engine as one runnable: shared informers, the event recorder, the function runtime, the
 * CompositionRevision controller and the XRD controller (which runs one composite controller per XRD), and with
 * --enable-nop-provider the built-in nop provider on the same informers (so a composite controller watching
 * NopResources shares its cache). With --shard-count above 1 the controllers reconcile only this process's shard of
 * the XRs and MRs, and the cluster-wide controllers run on shard 0 only (docs/scaling.md).
 */
export class Engine implements Runnable {
  readonly name = 'composition-engine';
  readonly informers: InformerRegistry;
  readonly events: EventRecorder;
  private readonly discovery: Discovery;
  /** Cluster-wide: runs on shard 0 only (every process when unsharded). */
  private readonly revisions: CompositionRevisionController | undefined;
  /** The XRD controller on shard 0; on the other shards a follower that only runs their composite controllers. */
  readonly definitions: DefinitionController | ShardFollower;
  /** The built-in nop provider, when --enable-nop-provider is on. */
  readonly nop: NopProvider | undefined;
  private functionLease: InformerLease | undefined;
  private functionRevisionLease: InformerLease | undefined;
  private grpc: GrpcFunctionRunner | undefined;
  private credentials: ChannelCredentials | Error | undefined;

  constructor(private readonly options: EngineOptions) {
    const { client, config, metrics, log } = options;
    this.discovery = new Discovery(client);
    this.informers = new InformerRegistry({
      client,
      kubeConfig: client.kubeConfig,
      discovery: this.discovery,
      logger: log,
      syncIntervalMs: config.syncIntervalMs,
      metrics: metrics.engine,
    });
    this.events = new EventRecorder({ client, logger: log });
    // Sharded (docs/scaling.md), shard 0 also does the cluster-wide work, which must not be done twice.
    const clusterWide = config.shardIndex === 0;
    this.revisions = clusterWide
      ? new CompositionRevisionController({
          client,
          informers: this.informers,
          metrics,
          logger: log,
          maxReconcileRate: config.maxReconcileRate,
          maxRevisions: config.maxCompositionRevisions,
        })
      : undefined;
    const newComposite = this.compositeFactory();
    this.definitions = clusterWide
      ? new DefinitionController({
          client,
          informers: this.informers,
          events: this.events,
          metrics,
          logger: log,
          maxReconcileRate: config.maxReconcileRate,
          stopDeadlineMs: config.gracefulShutdownTimeoutMs,
          manageCompositeRbac: config.manageCompositeRbac,
          newComposite,
          newClaim: (input) =>
            new ClaimController({
              ...input,
              client,
              discovery: this.discovery,
              informers: this.informers,
              events: this.events,
              metrics,
              logger: log,
              settings: { workers: config.maxConcurrentReconciles, maxReconcileRate: config.maxReconcileRate },
            }),
        })
      : new ShardFollower({
          informers: this.informers,
          metrics,
          logger: log,
          maxReconcileRate: config.maxReconcileRate,
          stopDeadlineMs: config.gracefulShutdownTimeoutMs,
          newComposite,
        });
    this.nop = config.enableNopProvider
      ? new NopProvider({
          client,
          informers: this.informers,
          events: this.events,
          metrics,
          logger: log,
          settings: managedSettings(config),
          installCrd: config.installCrds,
          owns: shardFilter({ index: config.shardIndex, count: config.shardCount }),
        })
      : undefined;
  }

  /** Builds the composite controller of one XRD, owning only this process's shard of its XRs. */
  private compositeFactory(): (input: CompositeFactoryInput) => CompositeController {
    const { client, config, metrics, log } = this.options;
    const runner = this.functionRunner();
    const owns = shardFilter({ index: config.shardIndex, count: config.shardCount });
    return (input) =>
      new CompositeController({
        ...input,
        client,
        discovery: this.discovery,
        informers: this.informers,
        runner,
        events: this.events,
        metrics,
        logger: log,
        settings: {
          pollIntervalMs: config.pollIntervalMs,
          minPollIntervalMs: config.minPollIntervalMs,
          realtime: config.enableRealtimeCompositions,
          maxReconcileRate: config.maxReconcileRate,
          workers: config.maxConcurrentReconciles,
          fairQueue: config.fairQueue,
          maxConcurrentApplies: config.maxConcurrentApplies,
          breaker: {
            burst: config.circuitBreakerBurst,
            refillRatePerSecond: config.circuitBreakerRefillRate,
            cooldownMs: config.circuitBreakerCooldownMs,
            halfOpenIntervalMs: config.circuitBreakerHalfOpenIntervalMs,
          },
        },
        owns,
      });
  }

  async start(): Promise<void> {
    const { config, log } = this.options;
    this.credentials = config.functionInsecure
      ? insecureCredentials()
      : await mtlsCredentials(config.functionTlsDir).catch((err: unknown) => err as Error);
    if (this.credentials instanceof Error) {
      log.warn(
        { error: this.credentials.message },
        'no function client certificate: functions that are not built in cannot be called (use --function-insecure for plaintext)',
      );
    }
    this.functionLease = await this.informers.acquire(FUNCTION.apiVersion, FUNCTION.kind);
    this.functionRevisionLease = await this.informers
      .acquire(FUNCTION_REVISION.apiVersion, FUNCTION_REVISION.kind)
      .catch((err: unknown) => {
        // FunctionRevisions exist only where Crossplane's package manager runs; endpoints then come from elsewhere.
        if (err instanceof KindNotServedError) return undefined;
        throw err;
      });
    await Promise.all([this.functionLease.informer.waitForSync(), this.functionRevisionLease?.informer.waitForSync()]);
    // Before the composite controllers, so NopResources are served by the time an XR composes them.
    await this.nop?.start();
    if (config.shardCount > 1) {
      log.info(
        { shard: config.shardIndex, shards: config.shardCount, clusterWide: this.revisions !== undefined },
        'reconciling one shard of the XRs',
      );
    }
    await this.revisions?.start();
    await this.definitions.start();
  }

  async stop(deadline: AbortSignal): Promise<void> {
    const remainingMs = deadline.aborted ? 0 : this.options.config.gracefulShutdownTimeoutMs;
    await this.definitions.stop(remainingMs);
    await this.nop?.stop(remainingMs);
    await this.revisions?.stop(deadline);
    this.grpc?.close();
    await this.events.flush();
    await this.informers.stopAll();
  }

  private functionRunner(): FunctionRunner {
    const lookup = {
      getFunction: (name: string): Promise<FunctionObject | undefined> =>
        Promise.resolve(this.functionLease?.informer.store.get(name) as FunctionObject | undefined),
      listRevisions: (): Promise<readonly FunctionRevisionObject[]> =>
        Promise.resolve((this.functionRevisionLease?.informer.store.list() ?? []) as FunctionRevisionObject[]),
    };
    const remote: FunctionRunner = {
      run: (call) => {
        if (!this.credentials || this.credentials instanceof Error) {
          const why = this.credentials?.message ?? 'not started';
          return Promise.reject(
            new FunctionCallError(
              call.functionName,
              call.step,
              `${why}; mount the client certificate or use --function-insecure`,
            ),
          );
        }
        this.grpc ??= new GrpcFunctionRunner({
          resolveEndpoint: lookupEndpointResolver(lookup, FUNCTION_NAMESPACE),
          credentials: this.credentials,
          timeoutMs: this.options.config.functionTimeoutMs,
        });
        return this.grpc.run(call);
      },
    };
    const router = new RoutingRunner({
      builtins: builtinFunctions(),
      enabled: this.options.config.builtinFunctions,
      dropBuiltinTtl: true,
      packageOf: async (name) => {
        const fn = await lookup.getFunction(name);
        if (!fn) {
          throw new FunctionCallError(
            name,
            undefined,
            `Function "${name}" not found: install a pkg.crossplane.io/v1 Function named "${name}" or fix the Composition's functionRef`,
          );
        }
        return fn.spec?.package ?? '';
      },
      remote,
    });
    // Measured below the cache: function_run_seconds counts calls that ran, not answers served from the cache.
    const { enableFunctionResponseCache: enabled, xfnCacheMaxTtlMs: maxTtlMs } = this.options.config;
    return withResponseCache(new MeasuredRunner(router, this.options.metrics.functionRun), { enabled, maxTtlMs });
  }
}
