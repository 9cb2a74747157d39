/**
 * The flags the engine is built from, parsed and validated by the CLI (whose StartConfig satisfies this); nothing
 * below the engine reads a flag. Durations are in milliseconds.
 */
export interface EngineConfig {
  /** False keeps metadata.managedFields in the caches: COMPOSITOR_CACHE_TRIM=false, read by the CLI. */
  cacheTrim?: boolean;
  pollIntervalMs: number;
  minPollIntervalMs: number;
  managedPollIntervalMs: number;
  syncIntervalMs: number;
  maxReconcileRate: number;
  maxConcurrentReconciles: number;
  fairQueue: boolean;
  maxConcurrentApplies: number;
  /** --max-composed-resources: desired composed resources one function response may hold; 0 means no limit. */
  maxComposedResources: number;
  enableRealtimeCompositions: boolean;
  circuitBreakerBurst: number;
  circuitBreakerRefillRate: number;
  circuitBreakerCooldownMs: number;
  circuitBreakerHalfOpenIntervalMs: number;
  shardIndex: number;
  shardCount: number;
  functionTimeoutMs: number;
  functionInsecure: boolean;
  functionTlsDir: string;
  /** Deployment: compositor runs Function packages itself; External: something else does. */
  packageRuntime: 'Deployment' | 'External';
  /** --xpkg-cache-dir: where pulled packages are cached; a directory under the system's temporary one by default. */
  xpkgCacheDir?: string;
  /** compositor's namespace (--leader-election-namespace, the chart's release namespace): where packages run. */
  leaderElectionNamespace: string;
  /** --builtin-functions: false runs no Function in-process. */
  builtinFunctions: boolean;
  /** --builtin-function-registries: the locations of upstream's built-in packages, and mirrors of them. */
  builtinFunctionRegistries: readonly string[];
  enableFunctionResponseCache: boolean;
  xfnCacheMaxTtlMs: number;
  installCrds: boolean;
  manageCompositeRbac: boolean;
  maxCompositionRevisions: number;
  enableNopProvider: boolean;
  /** --enable-usages: the Usage controller and its admission policy (shard 0). */
  enableUsages: boolean;
  /** --enable-composed-resource-ordering (alpha): composite controllers order by the graph functions declare. */
  enableComposedResourceOrdering: boolean;
  /** --enable-operations: the Operation, CronOperation and WatchOperation controllers (shard 0). */
  enableOperations: boolean;
  /** --enable-providers (alpha): the Provider, ProviderRevision, MRD and MRAP controllers (shard 0). */
  enableProviders: boolean;
  /** --manage-provider-rbac: with --enable-providers, each ProviderRevision's ClusterRoles and binding. */
  manageProviderRbac: boolean;
  /** --enable-dependency-version-upgrades (alpha): the Lock's resolver moves installed dependencies. */
  enableDependencyVersionUpgrades: boolean;
  /** --enable-dependency-version-downgrades (alpha): upgrades, and moves to lower versions too. */
  enableDependencyVersionDowngrades: boolean;
  /** --default-activations: comma-separated patterns of the "default" ManagedResourceActivationPolicy. */
  defaultActivations: string;
  /** How long a composite controller restarted for a changed XRD may finish its in-flight reconciles. */
  gracefulShutdownTimeoutMs: number;
}
