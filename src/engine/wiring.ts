import type { Logger } from 'pino';
import { ClaimController } from '../claim/index.js';
import { apiResourceFetcher, CompositeController } from '../composite/index.js';
import type { ControllerContext, ControllerSettings } from '../controller/index.js';
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
import { kubeActiveRevision, OperationsController } from '../operations/index.js';
import {
  activationsOf,
  ClientCertificate,
  ConfigurationPackages,
  FunctionPackageController,
  LockManager,
  packageMetadataReader,
  ProviderPackages,
  TlsSecrets,
} from '../packages/index.js';
import { UsageController } from '../usage/index.js';
import { InformerRegistry, shardFilter } from '../watch/index.js';
import type { EngineConfig } from './config.js';
import { Engine, type EngineParts } from './engine.js';
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
 * What every controller of one engine shares: the client, the caches, the events, the metrics, the log (the
 * controller context), and the queue settings holding the one reconcile limiter, so --max-reconcile-rate bounds the
 * whole process however many controllers run.
 */
export interface Shared {
  context: ControllerContext;
  settings: ControllerSettings;
  config: EngineConfig;
}

/** The function runner stacks: the composite controllers', and the Operations' (without the response cache). */
export interface Runners {
  composite: FunctionRunner;
  operations: FunctionRunner;
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
  const limits = reconcileLimits(config.maxReconcileRate);
  // Events get a request budget of their own, as controller-runtime's event recorder has its own REST client, and a
  // process-wide budget of Normal Events, which a burst of new objects spends (upstream's recorder drops those too).
  const events = new EventRecorder({
    client,
    logger: log,
    limiter: client.separateBudget(),
    processNormalEventRate: limits.normalEvents,
    suppressed: metrics.eventsSuppressed,
  });
  const shared: Shared = {
    context: { client, discovery, informers, events, metrics, logger: log },
    settings: {
      reconcileLimiter: new ReconcileLimiter(limits.reconciles),
      workers: config.maxConcurrentReconciles,
    },
    config,
  };
  // Shard 0 runs the package controller and issues the client certificate; the other shards only read it.
  const runsPackages = config.packageRuntime === 'Deployment';
  const secrets = new TlsSecrets({ client, namespace: config.leaderElectionNamespace });
  const clientTls = runsPackages
    ? new ClientCertificate({
        secrets,
        namespace: config.leaderElectionNamespace,
        issue: config.shardIndex === 0,
        logger: log,
      })
    : undefined;
  const functions = new FunctionCaller({
    informers,
    config,
    metrics,
    log,
    packageTls: clientTls,
    dialOverrides: options.functionDialOverrides,
  });
  const runners = { composite: functions.runner(), operations: functions.runner({ responseCache: false }) };
  return new Engine({
    ...controllers(shared, runners, secrets),
    informers,
    events,
    clientTls,
    functions,
  });
}

/**
 * The controllers this process runs, from the flags. Sharded (docs/scaling.md), shard 0 also does the cluster-wide
 * work, which must not be done twice: packages, revisions, usages and the XRD controller; the other shards follow.
 */
export function controllers(
  shared: Shared,
  runners: Runners,
  secrets: TlsSecrets,
): Omit<EngineParts, 'informers' | 'events' | 'clientTls' | 'functions'> {
  const { config } = shared;
  const clusterWide = config.shardIndex === 0;
  const runsPackages = clusterWide && config.packageRuntime === 'Deployment';
  return {
    ...(runsPackages ? packageParts(shared, secrets) : {}),
    nop: config.enableNopProvider ? nopProvider(shared) : undefined,
    revisions: clusterWide ? revisionController(shared) : undefined,
    usages: clusterWide && config.enableUsages ? usageController(shared) : undefined,
    operations: clusterWide && config.enableOperations ? operationsController(shared, runners.operations) : undefined,
    definitions: definitions(shared, runners.composite),
    log: shared.context.logger,
    shard: { index: config.shardIndex, count: config.shardCount },
  };
}

/** The package manager's parts, on shard 0 with --package-runtime=Deployment; Providers only with --enable-providers. */
function packageParts(
  shared: Shared,
  secrets: TlsSecrets,
): Pick<EngineParts, 'packages' | 'configurations' | 'providers'> {
  return {
    packages: packageController(shared, secrets),
    configurations: configurationPackages(shared),
    providers: shared.config.enableProviders ? providerPackages(shared, secrets) : undefined,
  };
}

/** The managed controllers' settings from the flags: --managed-poll-interval, and the engine's queue settings. */
export function managedSettings(config: EngineConfig, settings: ControllerSettings): ManagedControllerSettings {
  return {
    pollIntervalMs: config.managedPollIntervalMs,
    minPollIntervalMs: config.minPollIntervalMs,
    syncIntervalMs: config.syncIntervalMs,
    ...settings,
  };
}

/**
 * The Function package controller (--package-runtime=Deployment) in compositor's namespace, the one of its leader
 * election Lease (the chart sets the release namespace). Functions a built-in serves get no Deployment (chooseRuntime,
 * as the function runner decides); a Function with an explicit endpoint is left to whatever serves it there.
 */
function packageController({ context, settings, config }: Shared, secrets: TlsSecrets): FunctionPackageController {
  return new FunctionPackageController({
    ...context,
    reconcileLimiter: settings.reconcileLimiter,
    secrets,
    namespace: config.leaderElectionNamespace,
    builtins: builtinPolicy(config),
    isExternal: (fn) => runsExternally(fn, config.packageRuntime),
    lock: new LockManager(context.client),
    metadata: packageMetadataReader({
      client: context.client,
      namespace: config.leaderElectionNamespace,
      ...(config.xpkgCacheDir !== undefined ? { cacheDir: config.xpkgCacheDir } : {}),
    }),
  });
}

/** Configurations (--package-runtime=Deployment): pulled into --xpkg-cache-dir, pull secrets from compositor's namespace. */
function configurationPackages({ context, settings, config }: Shared): ConfigurationPackages {
  return new ConfigurationPackages({
    ...context,
    settings,
    namespace: config.leaderElectionNamespace,
    providers: config.enableProviders,
    // As Crossplane: either flag turns upgrades on; downgrades only with their own.
    upgrades: config.enableDependencyVersionUpgrades || config.enableDependencyVersionDowngrades,
    downgrades: config.enableDependencyVersionDowngrades,
    ...(config.xpkgCacheDir !== undefined ? { cacheDir: config.xpkgCacheDir } : {}),
  });
}

/**
 * Providers (--enable-providers, alpha): as Configurations, plus each active revision's runtime (with the Function
 * runtime's CA), the MRD and MRAP controllers, the default policy and, with --manage-provider-rbac, each revision's
 * roles and binding.
 */
function providerPackages({ context, settings, config }: Shared, secrets: TlsSecrets): ProviderPackages {
  return new ProviderPackages({
    ...context,
    settings,
    secrets,
    namespace: config.leaderElectionNamespace,
    defaultActivations: activationsOf(config.defaultActivations),
    manageRbac: config.manageProviderRbac,
    ...(config.xpkgCacheDir !== undefined ? { cacheDir: config.xpkgCacheDir } : {}),
  });
}

function revisionController({ context, settings, config }: Shared): CompositionRevisionController {
  return new CompositionRevisionController({
    ...context,
    reconcileLimiter: settings.reconcileLimiter,
    maxRevisions: config.maxCompositionRevisions,
  });
}

/** Usages and ClusterUsages; the admission policy is applied at start unless the chart installs it (--install-crds). */
function usageController({ context, settings, config }: Shared): UsageController {
  return new UsageController({
    ...context,
    settings: {
      ...settings,
      pollIntervalMs: config.pollIntervalMs,
      waitIntervalMs: USAGE_WAIT_INTERVAL_MS,
      installPolicy: config.installCrds,
    },
  });
}

/**
 * The XRD controller on shard 0; on the other shards the follower, which only runs their composite controllers. Both
 * size their own pools; the limiter is the engine's.
 */
function definitions(shared: Shared, runner: FunctionRunner): DefinitionController | ShardFollower {
  const { context, settings, config } = shared;
  const common = {
    ...context,
    reconcileLimiter: settings.reconcileLimiter,
    stopDeadlineMs: config.gracefulShutdownTimeoutMs,
    newComposite: compositeFactory(shared, runner),
  };
  if (config.shardIndex !== 0) return new ShardFollower(common);
  return new DefinitionController({
    ...common,
    manageCompositeRbac: config.manageCompositeRbac,
    ordering: config.enableComposedResourceOrdering,
    newClaim: claimFactory(shared),
  });
}

/** The built-in nop provider on the engine's informers, so a composite controller composing NopResources shares it. */
function nopProvider({ context, settings, config }: Shared): NopProvider {
  return new NopProvider({
    ...context,
    settings: managedSettings(config, settings),
    installCrd: config.installCrds,
    owns: shardFilter({ index: config.shardIndex, count: config.shardCount }),
  });
}

/**
 * The ops controllers (--enable-operations), cluster-wide, so on shard 0 only. Operations run their functions every
 * time (`runner` has no response cache); required resources are looked up cluster-wide.
 */
function operationsController({ context, settings, config }: Shared, runner: FunctionRunner): OperationsController {
  return new OperationsController({
    ...context,
    settings,
    runner,
    fetcher: apiResourceFetcher(context.client, context.discovery, { namespace: undefined }),
    activeRevision: kubeActiveRevision(context.client),
    stopDeadlineMs: config.gracefulShutdownTimeoutMs,
  });
}

/** Builds the composite controller of one XRD, owning only this process's shard of its XRs. */
function compositeFactory(
  { context, settings, config }: Shared,
  runner: FunctionRunner,
): (input: CompositeFactoryInput) => CompositeController {
  const owns = shardFilter({ index: config.shardIndex, count: config.shardCount });
  return (input) =>
    new CompositeController({
      ...input,
      ...context,
      runner,
      settings: {
        ...settings,
        pollIntervalMs: config.pollIntervalMs,
        minPollIntervalMs: config.minPollIntervalMs,
        realtime: config.enableRealtimeCompositions,
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
function claimFactory({ context, settings }: Shared): (input: ClaimFactoryInput) => ClaimController {
  return (input) => new ClaimController({ ...input, ...context, settings });
}
