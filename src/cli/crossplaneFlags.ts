import type { ValueKind } from './values.js';

// The flags of `crossplane core start` (cmd/crossplane/core/core.go in Crossplane v2, plus the global --debug), so
// that the argument list of a Crossplane Deployment runs compositor unchanged. Three kinds:
// - flags compositor has under the same name (SAME_NAME_FLAGS): they are compositor flags, in START_FLAGS;
// - flags with another spelling here (MAPPED_FLAGS): each sets a compositor flag, and the later of the two on the
//   command line wins, as repeating one flag would;
// - flags that mean nothing to compositor (IGNORED_FLAGS): accepted with Crossplane's value forms, and each one
//   given is logged once at start with the reason, so a Crossplane configuration never stops compositor starting.
// Only the command-line forms are read: Crossplane's environment variables (POD_NAMESPACE, LEADER_ELECTION, ...) are
// left alone, as compositor reads COMPOSITOR_<FLAG> only.

/** Crossplane flags that are compositor flags too, with the same value forms. */
export const SAME_NAME_FLAGS: readonly string[] = [
  'poll-interval',
  'min-poll-interval',
  'sync-interval',
  'max-reconcile-rate',
  'max-concurrent-reconciles',
  'circuit-breaker-burst',
  'circuit-breaker-refill-rate',
  'circuit-breaker-cooldown',
  'circuit-breaker-half-open-interval',
  'leader-election',
  'enable-realtime-compositions',
  'enable-function-response-cache',
  'enable-usages',
  'enable-composed-resource-ordering',
  'enable-operations',
  'xfn-cache-max-ttl',
  'xpkg-cache-dir',
  'enable-dependency-version-upgrades',
  'enable-dependency-version-downgrades',
];

/** A Crossplane flag with its commander spelling ("-d, --debug", "-l") and the kind of value it takes. */
interface CrossplaneFlag {
  flags: string;
  kind: ValueKind;
}

export interface MappedFlag extends CrossplaneFlag {
  /** The compositor flag it sets (a name in START_FLAGS). */
  sets: string;
  /** What it means in compositor, for the docs: "--log-level=debug". */
  means: string;
  /** The compositor flag's parsed value, from this flag's parsed value; undefined leaves it as it was. */
  value: (parsed: unknown) => unknown;
}

export interface IgnoredFlagDefinition extends CrossplaneFlag {
  /** Why it has no effect in compositor: the second half of its warning. */
  reason: string;
}

const bindAll = (port: unknown): string => `:${String(port)}`;

export const MAPPED_FLAGS: readonly MappedFlag[] = [
  {
    flags: '-d, --debug',
    kind: 'boolean',
    sets: 'log-level',
    means: '--log-level=debug',
    value: (on) => (on === true ? 'debug' : undefined),
  },
  { flags: '-l', kind: 'boolean', sets: 'leader-election', means: '--leader-election', value: (on) => on },
  { flags: '-s', kind: 'positiveDuration', sets: 'sync-interval', means: '--sync-interval', value: (ms) => ms },
  {
    flags: '--metrics-port',
    kind: 'port',
    sets: 'metrics-bind-address',
    means: '--metrics-bind-address=:<port>',
    value: bindAll,
  },
  {
    flags: '--health-probe-port',
    kind: 'port',
    sets: 'health-probe-bind-address',
    means: '--health-probe-bind-address=:<port>',
    value: bindAll,
  },
  { flags: '-c', kind: 'text', sets: 'xpkg-cache-dir', means: '--xpkg-cache-dir', value: (dir) => dir },
  { flags: '--cache-dir', kind: 'text', sets: 'xpkg-cache-dir', means: '--xpkg-cache-dir', value: (dir) => dir },
  {
    flags: '--tls-client-certs-dir',
    kind: 'path',
    sets: 'function-tls-dir',
    means: '--function-tls-dir',
    value: (dir) => dir,
  },
];

const NO_WEBHOOKS = 'compositor serves no webhooks';

export const IGNORED_FLAGS: readonly IgnoredFlagDefinition[] = [
  { flags: '--profile', kind: 'text', reason: 'compositor serves no pprof endpoint' },
  {
    flags: '-n, --namespace',
    kind: 'text',
    reason: 'compositor runs package runtimes in --leader-election-namespace (the chart sets its release namespace)',
  },
  {
    flags: '--service-account',
    kind: 'text',
    reason: "compositor adds no ServiceAccount's image pull secrets of its own to package runtimes",
  },
  { flags: '--ca-bundle-path', kind: 'text', reason: 'compositor pulls packages trusting the system CAs only' },
  { flags: '--user-agent', kind: 'text', reason: 'compositor pulls packages as "compositor"' },
  {
    flags: '--max-concurrent-package-establishers',
    kind: 'nonNegativeInteger',
    reason: "compositor establishes a package's objects one after another",
  },
  { flags: '--enable-webhooks', kind: 'boolean', reason: NO_WEBHOOKS },
  { flags: '--webhook-enabled', kind: 'boolean', reason: NO_WEBHOOKS },
  { flags: '--webhook-port', kind: 'port', reason: NO_WEBHOOKS },
  { flags: '--tls-server-secret-name', kind: 'text', reason: `${NO_WEBHOOKS}, so it needs no server certificate` },
  { flags: '--tls-server-certs-dir', kind: 'text', reason: `${NO_WEBHOOKS}, so it needs no server certificate` },
  {
    flags: '--tls-client-secret-name',
    kind: 'text',
    reason: 'compositor reads its function client certificate from --function-tls-dir, not from a Secret',
  },
  {
    flags: '--enable-signature-verification',
    kind: 'boolean',
    reason: 'compositor verifies no package signature; an ImageConfig asking for it is recorded as skipped',
  },
  {
    flags: '--enable-deployment-runtime-configs',
    kind: 'boolean',
    reason: "compositor always applies DeploymentRuntimeConfigs, as Crossplane with this flag's default",
  },
  {
    flags: '--enable-custom-to-managed-resource-conversion',
    kind: 'boolean',
    reason:
      "compositor always installs a Provider's CRDs as ManagedResourceDefinitions, as Crossplane with this flag's default",
  },
  { flags: '--enable-pipeline-inspector', kind: 'boolean', reason: 'compositor has no pipeline inspector' },
  { flags: '--pipeline-inspector-socket', kind: 'text', reason: 'compositor has no pipeline inspector' },
  {
    flags: '--enable-provider-deletion-protection',
    kind: 'boolean',
    reason: 'compositor protects no Provider from deletion: only Usages name what they protect',
  },
  {
    flags: '--enable-ssa-claims',
    kind: 'boolean',
    reason: 'compositor always syncs claims and their XRs with server-side apply',
  },
  {
    flags: '--enable-required-resource-watches',
    kind: 'boolean',
    reason: 'compositor always watches the resources functions require while realtime compositions are on',
  },
  {
    flags: '--xfn-cache-dir',
    kind: 'text',
    reason: 'compositor keeps cached function responses in memory, not on disk',
  },
  {
    flags: '--restrict-namespaced-events',
    kind: 'boolean',
    reason: 'compositor records events on cluster-scoped objects too; it has no such filter',
  },
  {
    flags: '--watch-cache-namespaced',
    kind: 'boolean',
    reason: 'compositor watches cluster-wide and needs cluster-wide list and watch rights',
  },
  // Crossplane v2 refuses to start when these removed features are asked for; compositor lacks them too.
  {
    flags: '--enable-composition-webhook-schema-validation',
    kind: 'boolean',
    reason: `Crossplane v2 removed it (Compositions are validated with CEL) and ${NO_WEBHOOKS}`,
  },
  {
    flags: '--enable-external-secret-stores',
    kind: 'boolean',
    reason: 'Crossplane v2 removed External Secret Stores, and compositor has none',
  },
  {
    flags: '--registry',
    kind: 'text',
    reason: 'Crossplane v2 removed the default registry: a package names its registry',
  },
];

/** The long name of a flag spelling ("--namespace" of "-n, --namespace"), or the short one when it has none. */
export function displayName(flags: string): string {
  const names = flags.split(/,\s*/);
  return names.find((name) => name.startsWith('--')) ?? names[0] ?? flags;
}
