import { BUILTIN_RELEASES, DEFAULT_BUILTIN_REGISTRIES } from '../functions/index.js';
import type { EngineConfig } from '../engine/index.js';
import { parseValue, type LogLevel, type ValueKind } from './values.js';

/**
 * Everything `compositor start` is configured with, parsed and validated once here: what the engine is built from
 * (cacheTrim aside, an environment variable) and what the process around it needs.
 */
export interface StartConfig extends Omit<EngineConfig, 'cacheTrim'> {
  leaderElection: boolean;
  leaderElectionLeaseDurationMs: number;
  leaderElectionRenewDeadlineMs: number;
  leaderElectionRetryPeriodMs: number;
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  logLevel: LogLevel;
  kubeconfig: string | undefined;
  idleHeapCompaction: boolean;
  heapGrowthPercent: number;
  /** Crossplane flags given on the command line that mean nothing to compositor; each is logged once at start. */
  ignoredFlags: readonly IgnoredFlag[];
}

/** A flag compositor accepted only because `crossplane core start` has it, and why it changes nothing. */
export interface IgnoredFlag {
  /** As a user would type it, e.g. --enable-usages. */
  flag: string;
  reason: string;
}

export interface FlagDefinition {
  /** The flag without its leading dashes; also names the environment variable COMPOSITOR_<FLAG>. */
  name: string;
  key: Exclude<keyof StartConfig, 'ignoredFlags'>;
  kind: ValueKind;
  /** The default as a user would type it; undefined means "derived" or "unset" (see the description). */
  default: string | undefined;
  description: string;
}

/** The flags of `compositor start`; the flag table of docs/flags.md is generated from this list. */
export const START_FLAGS: readonly FlagDefinition[] = [
  {
    name: 'poll-interval',
    key: 'pollIntervalMs',
    kind: 'positiveDuration',
    default: '1m',
    description:
      'How often an XR is reconciled when realtime compositions are off. The annotation crossplane.io/poll-interval overrides it per resource.',
  },
  {
    name: 'min-poll-interval',
    key: 'minPollIntervalMs',
    kind: 'positiveDuration',
    default: '1s',
    description:
      'Lower bound that per-resource crossplane.io/poll-interval values are clamped up to; --poll-interval and --managed-poll-interval must not be below it.',
  },
  {
    name: 'managed-poll-interval',
    key: 'managedPollIntervalMs',
    kind: 'positiveDuration',
    default: '10m',
    description: 'How often a managed resource is observed; crossplane.io/poll-interval overrides it per resource.',
  },
  {
    name: 'sync-interval',
    key: 'syncIntervalMs',
    kind: 'positiveDuration',
    default: '1h',
    description: 'How often informers resync their caches. Resyncs cost no circuit-breaker token.',
  },
  {
    name: 'max-reconcile-rate',
    key: 'maxReconcileRate',
    kind: 'positiveInteger',
    default: '100',
    description:
      "Reconciles started per second by all controllers together (one token bucket for the whole process, burst 10x; controllers waiting for a token take turns). Also sets the API client limits (QPS 5x, burst 10x), the Normal Events the whole process writes (burst 1x, then x/50 per second: 2 per second at 100; a Normal Event over it is counted in its Event series but not written, Warnings are never limited) and the default --max-concurrent-reconciles. Crossplane v2.1 and later read this flag as another name for --max-concurrent-reconciles, a worker count without any rate limit: the same value here keeps the worker count and adds the limits; to carry over only the workers, pass Crossplane's value as --max-concurrent-reconciles.",
  },
  {
    name: 'max-concurrent-reconciles',
    key: 'maxConcurrentReconciles',
    kind: 'positiveInteger',
    default: undefined,
    description: 'Reconciles run at once per controller. Defaults to --max-reconcile-rate.',
  },
  {
    name: 'max-concurrent-applies',
    key: 'maxConcurrentApplies',
    kind: 'positiveInteger',
    default: '8',
    description:
      'Composed resources one XR applies (or deletes) at once, under the global API client rate limit. 1 applies them one after another, as Crossplane does.',
  },
  {
    name: 'max-composed-resources',
    key: 'maxComposedResources',
    kind: 'nonNegativeInteger',
    default: '1000',
    description:
      'Desired composed resources one function response may hold. A response with more fails its pipeline step: the XR reports it (Synced False, a Warning event) and nothing is applied or deleted. 0 means no limit, as in Crossplane, which has none.',
  },
  {
    name: 'fair-queue',
    key: 'fairQueue',
    kind: 'boolean',
    default: 'true',
    description:
      'Serve queued XRs round-robin by namespace, so a burst in one namespace delays another by about one reconcile, not the whole backlog. A Namespace label compositor.crossplane.io/queue-weight: "<n>" gives it n turns per round. false: one FIFO queue, as Crossplane.',
  },
  {
    name: 'enable-realtime-compositions',
    key: 'enableRealtimeCompositions',
    kind: 'boolean',
    default: 'true',
    description: 'Watch composed resources and reconcile XRs on their changes. When false, XRs are polled.',
  },
  {
    name: 'circuit-breaker-burst',
    key: 'circuitBreakerBurst',
    kind: 'positiveNumber',
    default: '100',
    description:
      "Tokens in each XR's watch-event bucket. As in Crossplane, an update event costs 2 tokens and a create 1; resyncs and echoes of compositor's own writes are free.",
  },
  {
    name: 'circuit-breaker-refill-rate',
    key: 'circuitBreakerRefillRate',
    kind: 'positiveNumber',
    default: '1',
    description: "Tokens per second added back to each XR's bucket.",
  },
  {
    name: 'circuit-breaker-cooldown',
    key: 'circuitBreakerCooldownMs',
    kind: 'positiveDuration',
    default: '5m',
    description: "How long an XR's circuit stays open once its bucket is empty. The XR is requeued when it closes.",
  },
  {
    name: 'circuit-breaker-half-open-interval',
    key: 'circuitBreakerHalfOpenIntervalMs',
    kind: 'positiveDuration',
    default: '30s',
    description: 'While a circuit is open, one event per interval is let through.',
  },
  {
    name: 'leader-election',
    key: 'leaderElection',
    kind: 'boolean',
    default: 'false',
    description: 'Elect a leader with a coordination.k8s.io Lease so only one replica reconciles.',
  },
  {
    name: 'leader-election-namespace',
    key: 'leaderElectionNamespace',
    kind: 'name',
    default: 'crossplane-system',
    description:
      'Namespace of the leader election Lease (compositor-leader-election); the chart sets its own namespace.',
  },
  {
    name: 'leader-election-lease-duration',
    key: 'leaderElectionLeaseDurationMs',
    kind: 'positiveDuration',
    default: '60s',
    description: 'How long a standby waits after the last renewal before it takes the lease over.',
  },
  {
    name: 'leader-election-renew-deadline',
    key: 'leaderElectionRenewDeadlineMs',
    kind: 'positiveDuration',
    default: '50s',
    description:
      'How long the leader keeps trying to renew before it stops reconciling and exits; below the lease duration, so it stops before a standby can take over.',
  },
  {
    name: 'leader-election-retry-period',
    key: 'leaderElectionRetryPeriodMs',
    kind: 'positiveDuration',
    default: '10s',
    description: 'How often the leader renews the lease and a standby tries to acquire it.',
  },
  {
    name: 'shard-index',
    key: 'shardIndex',
    kind: 'nonNegativeInteger',
    default: '0',
    description:
      'The shard of XRs and managed resources this process reconciles: those whose fnv1a32(uid) mod --shard-count is this index. Shard 0 also runs the cluster-wide controllers (XRDs, revisions). With --leader-election, one Lease per shard (compositor-shard-<index>) lets a standby take a shard over.',
  },
  {
    name: 'shard-count',
    key: 'shardCount',
    kind: 'positiveInteger',
    default: '1',
    description:
      'How many shards the XRs are split into, one process (plus standbys) per shard; 1 means no sharding. Keep it fixed: changing it moves most XRs to another shard.',
  },
  {
    name: 'function-timeout',
    key: 'functionTimeoutMs',
    kind: 'positiveDuration',
    default: '60s',
    description: 'Deadline of one RunFunction call.',
  },
  {
    name: 'function-insecure',
    key: 'functionInsecure',
    kind: 'boolean',
    default: 'false',
    description: 'Call composition functions over plaintext gRPC instead of mTLS (local use only).',
  },
  {
    name: 'function-tls-dir',
    key: 'functionTlsDir',
    kind: 'path',
    default: '/tls/client',
    description:
      'Directory with the mTLS client certificate for function calls (ca.crt, tls.crt, tls.key), as Crossplane mounts it.',
  },
  {
    name: 'package-runtime',
    key: 'packageRuntime',
    kind: 'packageRuntime',
    default: 'Deployment',
    description:
      "How Function packages (pkg.crossplane.io/v1 Functions) run. Deployment: compositor runs each one as Crossplane's package manager does (FunctionRevisions, a Deployment, Service and ServiceAccount in compositor's namespace, --leader-election-namespace) and calls it over mTLS with certificates it generates; a Function annotated compositor.crossplane.io/endpoint is still called there. Configurations (pkg.crossplane.io/v1) are installed too, pulled from their registries (--xpkg-cache-dir). External: something else runs Functions and installs Configurations (Crossplane's package manager, which must then be the only one), compositor only calls Functions with the certificate in --function-tls-dir.",
  },
  {
    name: 'xpkg-cache-dir',
    key: 'xpkgCacheDir',
    kind: 'path',
    default: undefined,
    description:
      "Directory where pulled package images are cached by digest (Crossplane's --xpkg-cache-dir, -c). Default: compositor-xpkg-cache under the system's temporary directory.",
  },
  {
    name: 'builtin-functions',
    key: 'builtinFunctions',
    kind: 'boolean',
    default: 'true',
    description: `Run function-patch-and-transform and function-auto-ready in-process instead of over gRPC, for Functions that pin upstream's package (--builtin-function-registries) at a release the built-in reproduces (${Object.values(
      BUILTIN_RELEASES,
    )
      .map((r) => r.reproduces)
      .join(
        ' and ',
      )}); any other Function runs its package as written. The annotation compositor.crossplane.io/builtin: "true" or "false" on a Function forces either way. false: no Function runs in-process, whatever its annotation.`,
  },
  {
    name: 'builtin-function-registries',
    key: 'builtinFunctionRegistries',
    kind: 'locationList',
    default: DEFAULT_BUILTIN_REGISTRIES.join(','),
    description:
      'Where upstream\'s function-patch-and-transform and function-auto-ready are published: a Function whose package is <location>/function-patch-and-transform (or function-auto-ready) at a release the built-in reproduces runs in-process. Add the location of a registry that mirrors xpkg.crossplane.io/crossplane-contrib (e.g. registry.acme.io/mirror/crossplane-contrib) to keep the built-ins for its packages; a fork elsewhere runs as written. Empty: only Functions annotated compositor.crossplane.io/builtin: "true" run in-process.',
  },
  {
    name: 'enable-function-response-cache',
    key: 'enableFunctionResponseCache',
    kind: 'boolean',
    default: 'true',
    description:
      "Reuse a function's response for an identical request until the TTL the function returned ends (at most --xfn-cache-max-ttl), as the function protocol allows. The cache is in memory (10,000 entries and about 256 MiB at most). Crossplane's flag of this name defaults to false and caches on disk.",
  },
  {
    name: 'xfn-cache-max-ttl',
    key: 'xfnCacheMaxTtlMs',
    kind: 'duration',
    default: '24h',
    description:
      "Longest a cached function response is reused, whatever TTL the function returned; 0 means no bound (the function's TTL alone), as in Crossplane.",
  },
  {
    name: 'metrics-bind-address',
    key: 'metricsBindAddress',
    kind: 'address',
    default: ':8080',
    description: 'Address of the Prometheus /metrics endpoint; 0 disables it.',
  },
  {
    name: 'health-probe-bind-address',
    key: 'healthProbeBindAddress',
    kind: 'address',
    default: ':8081',
    description: 'Address of the /healthz and /readyz probes; 0 disables them.',
  },
  {
    name: 'log-level',
    key: 'logLevel',
    kind: 'logLevel',
    default: 'info',
    description: 'Minimum level of the JSON logs.',
  },
  {
    name: 'kubeconfig',
    key: 'kubeconfig',
    kind: 'path',
    default: undefined,
    description: 'Kubeconfig file. Defaults to $KUBECONFIG, then ~/.kube/config, then the in-cluster service account.',
  },
  {
    name: 'install-crds',
    key: 'installCrds',
    kind: 'boolean',
    default: 'true',
    description: "Install compositor's CRDs at start when they are absent (false when the chart manages them).",
  },
  {
    name: 'manage-composite-rbac',
    key: 'manageCompositeRbac',
    kind: 'boolean',
    default: 'false',
    description:
      "Grant compositor its rights on each XR kind with one ClusterRole per XRD labelled compositor.crossplane.io/aggregate-to-compositor, as Crossplane's RBAC manager does (the chart turns it on).",
  },
  {
    name: 'enable-nop-provider',
    key: 'enableNopProvider',
    kind: 'boolean',
    default: 'false',
    description:
      "Run the built-in nop provider: NopResources (nop.compositor.crossplane.io/v1alpha1, and provider-nop's cluster-scoped nop.crossplane.io/v1alpha1) whose external system is in memory, for testing compositions without a cloud.",
  },
  {
    name: 'enable-usages',
    key: 'enableUsages',
    kind: 'boolean',
    default: 'true',
    description:
      'Serve Usages and ClusterUsages (protection.crossplane.io/v1beta1): label what they name crossplane.io/in-use and refuse its deletion with a ValidatingAdmissionPolicy (no webhook), deletion ordering and replayDeletion. As Crossplane v2, on by default.',
  },
  {
    name: 'enable-composed-resource-ordering',
    key: 'enableComposedResourceOrdering',
    kind: 'boolean',
    default: 'false',
    description:
      'Alpha, as Crossplane: create a composed resource once every resource functions say it depends on is Ready, and delete it (on garbage collection and XR deletion) once nothing depending on it remains, in reverse order from the graph kept in resourceRefs (docs/ordering.md).',
  },
  {
    name: 'enable-operations',
    key: 'enableOperations',
    kind: 'boolean',
    default: 'false',
    description:
      "Run Operations, CronOperations and WatchOperations (ops.crossplane.io/v1alpha1): function pipelines that run once to completion, on a schedule or on a watched resource's change. As Crossplane v2's alpha feature, off by default.",
  },
  {
    name: 'enable-providers',
    key: 'enableProviders',
    kind: 'boolean',
    default: 'false',
    description:
      "Alpha, compositor's own (Crossplane always runs Providers): install Providers with --package-runtime=Deployment: the Provider and ProviderRevision controllers (a package's CRDs as ManagedResourceDefinitions, the active revision's runtime: Deployment, Service, ServiceAccount, TLS Secrets and webhooks), the ManagedResourceDefinition and ManagedResourceActivationPolicy controllers, which create the CRDs of active ones, and with --manage-provider-rbac each revision's ClusterRoles (docs/packages.md#providers). Off by default while Providers are new.",
  },
  {
    name: 'manage-provider-rbac',
    key: 'manageProviderRbac',
    kind: 'boolean',
    default: 'true',
    description:
      "With --enable-providers: give each ProviderRevision the ClusterRoles crossplane:provider:<revision>:aggregate-to-edit, :aggregate-to-view and :system for the kinds it installs, and bind :system to its runtime's ServiceAccount, as Crossplane's RBAC manager does. Needs the escalate and bind verbs on ClusterRoles (the chart grants them with rbac.manageProviderRoles).",
  },
  {
    name: 'enable-dependency-version-upgrades',
    key: 'enableDependencyVersionUpgrades',
    kind: 'boolean',
    default: 'false',
    description:
      "Alpha, as Crossplane: the Lock's resolver moves an installed dependency whose version breaks a constraint of a package depending on it to the lowest tag at or above it satisfying every constraint, or to the digest they all pin, by updating its spec.package (docs/packages.md#dependency-version-upgrades).",
  },
  {
    name: 'enable-dependency-version-downgrades',
    key: 'enableDependencyVersionDowngrades',
    kind: 'boolean',
    default: 'false',
    description:
      'Alpha, as Crossplane: --enable-dependency-version-upgrades, and when no tag at or above the installed version satisfies every constraint, the highest one below it is taken.',
  },
  {
    name: 'default-activations',
    key: 'defaultActivations',
    kind: 'text',
    default: '',
    description:
      'With --enable-providers: the comma-separated name patterns (such as * or *.aws.crossplane.io) of the ManagedResourceActivationPolicy "default", created at start when absent, as crossplane core init creates it from its --activation flags. Empty: no default policy. The chart sets *, as Crossplane\'s.',
  },
  {
    name: 'max-composition-revisions',
    key: 'maxCompositionRevisions',
    kind: 'positiveInteger',
    default: '10',
    description:
      'CompositionRevisions kept per Composition; older ones are deleted unless an XR still references them.',
  },
  {
    name: 'graceful-shutdown-timeout',
    key: 'gracefulShutdownTimeoutMs',
    kind: 'positiveDuration',
    default: '30s',
    description: 'On SIGTERM, how long in-flight reconciles may finish before the process exits.',
  },
  {
    name: 'idle-heap-compaction',
    key: 'idleHeapCompaction',
    kind: 'boolean',
    default: 'true',
    description:
      'Once start-up is done (before /readyz passes), run one full compacting garbage collection; then, checking every 10 s and at most once a minute, run one when the process is idle (event loop at most 5% busy) with at least 32 MiB of unused heap, or settled (at most 50% busy, as when function response TTLs requeue every XR) with at least 64 MiB, so the memory start-up or a burst of work took goes back to the OS and the settled RSS stays flat. The pause, a few hundred ms at 5,000 to 10,000 XRs, never falls in a burst. false: leave it to V8, which may keep the peak.',
  },
  {
    name: 'heap-growth-percent',
    key: 'heapGrowthPercent',
    kind: 'nonNegativeInteger',
    default: '25',
    description:
      "How far the JavaScript heap may grow past what survived the last full garbage collection, in percent (V8's --heap-growing-percent): 25 lets it reach 1.25 times the live heap, so the garbage of a burst of reconciles is collected before it doubles the RSS, for a few percent more CPU. 0 leaves V8's own factor, up to 4 times while allocation is fast. A --heap-growing-percent given to Node itself (command line or NODE_OPTIONS) wins.",
  },
];

/** COMPOSITOR_<FLAG>: the environment variable that sets a flag when it is not given on the command line. */
export function envName(flag: FlagDefinition): string {
  return `COMPOSITOR_${flag.name.toUpperCase().replace(/-/g, '_')}`;
}

/** The parsed default of every flag that has one, keyed by config key. */
export function flagDefaults(): Partial<StartConfig> {
  const defaults: Record<string, unknown> = {};
  for (const flag of START_FLAGS) {
    if (flag.default !== undefined) defaults[flag.key] = parseValue(flag.kind, flag.default);
  }
  return defaults;
}
