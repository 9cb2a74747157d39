import type { Logger } from 'pino';
import { ClaimController } from '../claim/index.js';
import { CompositeController } from '../composite/index.js';
import {
  CompositionRevisionController,
  DefinitionController,
  ShardFollower,
  type ClaimFactoryInput,
  type CompositeFactoryInput,
} from '../definition/index.js';
import type { FunctionRunner } from '../functions/index.js';
import { Discovery, EventRecorder, type KubeClient } from '../kube/index.js';
import { NopProvider, type ManagedControllerSettings } from '../managed/index.js';
import type { Metrics } from '../metrics/index.js';
import { reconcileLimits } from '../base/index.js';
import { ReconcileLimiter } from '../queue/index.js';
import { ClientCertificate, FunctionPackageController, TlsSecrets } from '../packages/index.js';
import { UsageController } from '../usage/index.js';
import { InformerRegistry, shardFilter } from '../watch/index.js';
import type { EngineConfig } from './config.js';
import { Engine } from './engine.js';
import { builtinPolicy, FunctionCaller, runsExternally } from './functionCaller.js';

export interface EngineOptions {
  client: KubeClient;
  config: EngineConfig;
  metrics: Metrics;
  log: Logger;
  /**
   * Test only: gRPC addresses dialled for function endpoints, e.g. a Service's `dns:///<fn>.<ns>:9443` mapped to a
   * loopback port, while TLS still verifies the Service's name (docs/testing.md#function-packages). Not a flag.
   */
  functionDialOverrides?: Readonly<Record<string, string>>;
}

/**
 * How often a composed Usage being deleted looks for its user to be gone. Crossplane waits 30 s; the XR's deletion
 * waits on it, so compositor looks more often.
 */
const USAGE_WAIT_INTERVAL_MS = 2_000;

/**
 * What every controller of one engine shares: the client, the caches, the events, the metrics, the log, and the one
 * reconcile limiter, so --max-reconcile-rate bounds the whole process however many controllers run.
 */
interface Shared extends EngineOptions {
  discovery: Discovery;
  informers: InformerRegistry;
  events: EventRecorder;
  reconcileLimiter: ReconcileLimiter;
}

/**
 * Builds the engine's object graph from the flags: one API discovery, one informer registry and one event recorder
 * shared by every controller, the function runner stack, and the controllers this shard runs. Nothing starts here.
 */
export function createEngine(options: EngineOptions): Engine {
  const { client, config, metrics, log } = options;
  const discovery = new Discovery(client);
  const informers = new InformerRegistry({
    client,
    kubeConfig: client.kubeConfig,
    discovery,
    logger: log,
    syncIntervalMs: config.syncIntervalMs,
    trimCache: config.cacheTrim,
    metrics: metrics.engine,
  });
  // Events get a request budget of their own, as controller-runtime's event recorder has its own REST client.
  const events = new EventRecorder({ client, logger: log, limiter: client.separateBudget() });
  const reconcileLimiter = new ReconcileLimiter(reconcileLimits(config.maxReconcileRate).reconciles);
  const shared: Shared = { ...options, discovery, informers, events, reconcileLimiter };
  // Sharded (docs/scaling.md), shard 0 also does the cluster-wide work, which must not be done twice.
  const clusterWide = config.shardIndex === 0;
  // Shard 0 runs the package controller and issues the client certificate; the other shards only read it.
  const runsPackages = config.packageRuntime === 'Deployment';
  const secrets = new TlsSecrets({ client, namespace: config.leaderElectionNamespace });
  const clientTls = runsPackages
    ? new ClientCertificate({ secrets, namespace: config.leaderElectionNamespace, issue: clusterWide, logger: log })
    : undefined;
  const functions = new FunctionCaller({
    informers,
    config,
    metrics,
    log,
    packageTls: clientTls,
    dialOverrides: options.functionDialOverrides,
  });
  return new Engine({
    informers,
    events: shared.events,
    clientTls,
    packages: clusterWide && runsPackages ? packageController(shared, secrets) : undefined,
    functions,
    nop: config.enableNopProvider ? nopProvider(shared) : undefined,
    revisions: clusterWide ? revisionController(shared) : undefined,
    usages: clusterWide && config.enableUsages ? usageController(shared) : undefined,
    definitions: clusterWide
      ? definitionController(shared, functions.runner())
      : shardFollower(shared, functions.runner()),
    log,
    shard: { index: config.shardIndex, count: config.shardCount },
  });
}

/** The managed controllers' settings from the flags: --managed-poll-interval, and the engine's reconcile limiter. */
export function managedSettings(config: EngineConfig, reconcileLimiter: ReconcileLimiter): ManagedControllerSettings {
  return {
    pollIntervalMs: config.managedPollIntervalMs,
    minPollIntervalMs: config.minPollIntervalMs,
    syncIntervalMs: config.syncIntervalMs,
    reconcileLimiter,
    workers: config.maxConcurrentReconciles,
  };
}

/**
 * The Function package controller (--package-runtime=Deployment) in compositor's namespace, the one of its leader
 * election Lease (the chart sets the release namespace). Functions a built-in serves get no Deployment (chooseRuntime,
 * as the function runner decides); a Function with an explicit endpoint is left to whatever serves it there.
 */
function packageController(shared: Shared, secrets: TlsSecrets): FunctionPackageController {
  const { client, informers, log, config, events } = shared;
  return new FunctionPackageController({
    client,
    secrets,
    namespace: config.leaderElectionNamespace,
    logger: log,
    informers,
    events,
    builtins: builtinPolicy(config),
    isExternal: (fn) => runsExternally(fn, config.packageRuntime),
  });
}

function revisionController(shared: Shared): CompositionRevisionController {
  const { client, informers, metrics, log, config, reconcileLimiter } = shared;
  return new CompositionRevisionController({
    client,
    informers,
    metrics,
    logger: log,
    reconcileLimiter,
    maxRevisions: config.maxCompositionRevisions,
  });
}

/** Usages and ClusterUsages; the admission policy is applied at start unless the chart installs it (--install-crds). */
function usageController(shared: Shared): UsageController {
  const { client, discovery, informers, events, metrics, log, config, reconcileLimiter } = shared;
  return new UsageController({
    client,
    discovery,
    informers,
    events,
    metrics,
    logger: log,
    settings: {
      pollIntervalMs: config.pollIntervalMs,
      waitIntervalMs: USAGE_WAIT_INTERVAL_MS,
      reconcileLimiter,
      workers: config.maxConcurrentReconciles,
      installPolicy: config.installCrds,
    },
  });
}

function definitionController(shared: Shared, runner: FunctionRunner): DefinitionController {
  const { client, informers, events, metrics, log, config, reconcileLimiter } = shared;
  return new DefinitionController({
    client,
    informers,
    events,
    metrics,
    logger: log,
    reconcileLimiter,
    stopDeadlineMs: config.gracefulShutdownTimeoutMs,
    manageCompositeRbac: config.manageCompositeRbac,
    ordering: config.enableComposedResourceOrdering,
    newComposite: compositeFactory(shared, runner),
    newClaim: claimFactory(shared),
  });
}

function shardFollower(shared: Shared, runner: FunctionRunner): ShardFollower {
  const { informers, metrics, log, config, reconcileLimiter } = shared;
  return new ShardFollower({
    informers,
    metrics,
    logger: log,
    reconcileLimiter,
    stopDeadlineMs: config.gracefulShutdownTimeoutMs,
    newComposite: compositeFactory(shared, runner),
  });
}

/** The built-in nop provider on the engine's informers, so a composite controller composing NopResources shares it. */
function nopProvider(shared: Shared): NopProvider {
  const { client, informers, events, metrics, log, config } = shared;
  return new NopProvider({
    client,
    informers,
    events,
    metrics,
    logger: log,
    settings: managedSettings(config, shared.reconcileLimiter),
    installCrd: config.installCrds,
    owns: shardFilter({ index: config.shardIndex, count: config.shardCount }),
  });
}

/** Builds the composite controller of one XRD, owning only this process's shard of its XRs. */
function compositeFactory(
  shared: Shared,
  runner: FunctionRunner,
): (input: CompositeFactoryInput) => CompositeController {
  const { client, discovery, informers, events, metrics, log, config, reconcileLimiter } = shared;
  const owns = shardFilter({ index: config.shardIndex, count: config.shardCount });
  return (input) =>
    new CompositeController({
      ...input,
      client,
      discovery,
      informers,
      runner,
      events,
      metrics,
      logger: log,
      settings: {
        pollIntervalMs: config.pollIntervalMs,
        minPollIntervalMs: config.minPollIntervalMs,
        realtime: config.enableRealtimeCompositions,
        reconcileLimiter,
        workers: config.maxConcurrentReconciles,
        fairQueue: config.fairQueue,
        maxConcurrentApplies: config.maxConcurrentApplies,
        maxComposedResources: config.maxComposedResources,
        ordering: config.enableComposedResourceOrdering,
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

/** Builds the claim controller of an XRD that offers claims. */
function claimFactory(shared: Shared): (input: ClaimFactoryInput) => ClaimController {
  const { client, discovery, informers, events, metrics, log, config, reconcileLimiter } = shared;
  return (input) =>
    new ClaimController({
      ...input,
      client,
      discovery,
      informers,
      events,
      metrics,
      logger: log,
      settings: { workers: config.maxConcurrentReconciles, reconcileLimiter },
    });
}
