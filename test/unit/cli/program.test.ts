import { expect } from 'chai';
import {
  envName,
  runProgram,
  START_FLAGS,
  type CommandHandlers,
  type DevOptions,
  type StartConfig,
} from '../../../src/cli/index.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  config: StartConfig | undefined;
  dev: DevOptions | undefined;
}

/** Runs the CLI with handlers that record the parsed config instead of starting anything. */
async function run(argv: string[], env: Record<string, string> = {}): Promise<Run> {
  const result: Run = { code: -1, stdout: '', stderr: '', config: undefined, dev: undefined };
  const handlers: CommandHandlers = {
    start: (config) => {
      result.config = config;
      return Promise.resolve(0);
    },
    dev: (options) => {
      result.dev = options;
      return Promise.resolve(0);
    },
  };
  const saved = new Map(START_FLAGS.map((flag) => [envName(flag), process.env[envName(flag)]]));
  for (const name of saved.keys()) Reflect.deleteProperty(process.env, name);
  Object.assign(process.env, env);
  try {
    result.code = await runProgram(argv, handlers, {
      writeOut: (text) => (result.stdout += text),
      writeErr: (text) => (result.stderr += text),
    });
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = value;
    }
  }
  return result;
}

describe('cli/program', () => {
  it('applies every default of docs/flags.md', async () => {
    const { code, config } = await run(['start']);
    expect(code).to.equal(0);
    expect(config).to.deep.equal({
      pollIntervalMs: 60_000,
      minPollIntervalMs: 1_000,
      managedPollIntervalMs: 600_000,
      syncIntervalMs: 3_600_000,
      maxReconcileRate: 100,
      maxConcurrentReconciles: 100,
      fairQueue: true,
      maxConcurrentApplies: 8,
      enableRealtimeCompositions: true,
      circuitBreakerBurst: 100,
      circuitBreakerRefillRate: 1,
      circuitBreakerCooldownMs: 300_000,
      circuitBreakerHalfOpenIntervalMs: 30_000,
      leaderElection: false,
      leaderElectionNamespace: 'crossplane-system',
      leaderElectionLeaseDurationMs: 60_000,
      leaderElectionRenewDeadlineMs: 50_000,
      leaderElectionRetryPeriodMs: 10_000,
      shardIndex: 0,
      shardCount: 1,
      functionTimeoutMs: 60_000,
      functionInsecure: false,
      functionTlsDir: '/tls/client',
      packageRuntime: 'Deployment',
      builtinFunctions: true,
      builtinFunctionRegistries: [
        'xpkg.crossplane.io/crossplane-contrib',
        'xpkg.upbound.io/crossplane-contrib',
        'ghcr.io/crossplane-contrib',
      ],
      enableFunctionResponseCache: true,
      xfnCacheMaxTtlMs: 86_400_000,
      maxComposedResources: 1000,
      metricsBindAddress: ':8080',
      healthProbeBindAddress: ':8081',
      logLevel: 'info',
      installCrds: true,
      manageCompositeRbac: false,
      maxCompositionRevisions: 10,
      enableNopProvider: false,
      enableUsages: true,
      enableComposedResourceOrdering: false,
      enableOperations: false,
      enableProviders: false,
      manageProviderRbac: true,
      enableDependencyVersionUpgrades: false,
      enableDependencyVersionDowngrades: false,
      defaultActivations: '',
      gracefulShutdownTimeoutMs: 30_000,
      idleHeapCompaction: true,
      heapGrowthPercent: 25,
      ignoredFlags: [],
    } satisfies Omit<StartConfig, 'kubeconfig'>);
  });

  const accepted: Record<string, { args: string[]; want: Partial<StartConfig> }> = {
    '--poll-interval': { args: ['--poll-interval=1m30s'], want: { pollIntervalMs: 90_000 } },
    '--min-poll-interval': { args: ['--min-poll-interval', '500ms'], want: { minPollIntervalMs: 500 } },
    '--managed-poll-interval': { args: ['--managed-poll-interval=1m'], want: { managedPollIntervalMs: 60_000 } },
    '--sync-interval': { args: ['--sync-interval=30m'], want: { syncIntervalMs: 1_800_000 } },
    '--max-reconcile-rate also sets concurrency': {
      args: ['--max-reconcile-rate=50'],
      want: { maxReconcileRate: 50, maxConcurrentReconciles: 50 },
    },
    '--max-concurrent-reconciles overrides the derived default': {
      args: ['--max-reconcile-rate=50', '--max-concurrent-reconciles=4'],
      want: { maxReconcileRate: 50, maxConcurrentReconciles: 4 },
    },
    '--max-concurrent-applies': { args: ['--max-concurrent-applies=1'], want: { maxConcurrentApplies: 1 } },
    '--fair-queue=false falls back to one FIFO queue': { args: ['--fair-queue=false'], want: { fairQueue: false } },
    '--idle-heap-compaction=false leaves the heap to V8': {
      args: ['--idle-heap-compaction=false'],
      want: { idleHeapCompaction: false },
    },
    '--heap-growth-percent=0 leaves V8 its own factor': {
      args: ['--heap-growth-percent=0'],
      want: { heapGrowthPercent: 0 },
    },
    '--enable-realtime-compositions=false': {
      args: ['--enable-realtime-compositions=false'],
      want: { enableRealtimeCompositions: false },
    },
    '--circuit-breaker-burst': { args: ['--circuit-breaker-burst=250'], want: { circuitBreakerBurst: 250 } },
    '--circuit-breaker-refill-rate accepts fractions': {
      args: ['--circuit-breaker-refill-rate=0.5'],
      want: { circuitBreakerRefillRate: 0.5 },
    },
    '--circuit-breaker-cooldown': {
      args: ['--circuit-breaker-cooldown=1m'],
      want: { circuitBreakerCooldownMs: 60_000 },
    },
    '--circuit-breaker-half-open-interval': {
      args: ['--circuit-breaker-half-open-interval=10s'],
      want: { circuitBreakerHalfOpenIntervalMs: 10_000 },
    },
    '--leader-election without a value means true': { args: ['--leader-election'], want: { leaderElection: true } },
    '--leader-election-namespace': {
      args: ['--leader-election-namespace=platform'],
      want: { leaderElectionNamespace: 'platform' },
    },
    '--leader-election-lease-duration, --leader-election-renew-deadline and --leader-election-retry-period': {
      args: [
        '--leader-election-lease-duration=15s',
        '--leader-election-renew-deadline=10s',
        '--leader-election-retry-period=2s',
      ],
      want: {
        leaderElectionLeaseDurationMs: 15_000,
        leaderElectionRenewDeadlineMs: 10_000,
        leaderElectionRetryPeriodMs: 2_000,
      },
    },
    '--leader-election=true': { args: ['--leader-election=true'], want: { leaderElection: true } },
    '--shard-index and --shard-count': {
      args: ['--shard-index=3', '--shard-count=4'],
      want: { shardIndex: 3, shardCount: 4 },
    },
    '--shard-index=0 of one shard (no sharding)': {
      args: ['--shard-index=0', '--shard-count=1'],
      want: { shardIndex: 0, shardCount: 1 },
    },
    '--function-timeout': { args: ['--function-timeout=15s'], want: { functionTimeoutMs: 15_000 } },
    '--function-insecure': { args: ['--function-insecure'], want: { functionInsecure: true } },
    '--function-tls-dir': { args: ['--function-tls-dir=/certs'], want: { functionTlsDir: '/certs' } },
    '--xpkg-cache-dir': { args: ['--xpkg-cache-dir=/cache/xpkg'], want: { xpkgCacheDir: '/cache/xpkg' } },
    '--builtin-functions=false': { args: ['--builtin-functions=false'], want: { builtinFunctions: false } },
    '--builtin-function-registries (a mirror)': {
      args: [
        '--builtin-function-registries=xpkg.crossplane.io/crossplane-contrib, registry.acme.io:5000/mirror/crossplane-contrib',
      ],
      want: {
        builtinFunctionRegistries: [
          'xpkg.crossplane.io/crossplane-contrib',
          'registry.acme.io:5000/mirror/crossplane-contrib',
        ],
      },
    },
    '--builtin-function-registries= (none: only annotated Functions run in-process)': {
      args: ['--builtin-function-registries='],
      want: { builtinFunctionRegistries: [] },
    },
    '--package-runtime=External': {
      args: ['--package-runtime=External'],
      want: { packageRuntime: 'External' },
    },
    '--enable-function-response-cache=false': {
      args: ['--enable-function-response-cache=false'],
      want: { enableFunctionResponseCache: false },
    },
    '--xfn-cache-max-ttl': { args: ['--xfn-cache-max-ttl=1h'], want: { xfnCacheMaxTtlMs: 3_600_000 } },
    '--xfn-cache-max-ttl=0 (no bound)': { args: ['--xfn-cache-max-ttl=0'], want: { xfnCacheMaxTtlMs: 0 } },
    '--max-composed-resources': { args: ['--max-composed-resources=5000'], want: { maxComposedResources: 5000 } },
    '--max-composed-resources=0 (no limit)': {
      args: ['--max-composed-resources=0'],
      want: { maxComposedResources: 0 },
    },
    '--builtin-functions=0 (Go ParseBool spelling)': {
      args: ['--builtin-functions=0'],
      want: { builtinFunctions: false },
    },
    '--metrics-bind-address': {
      args: ['--metrics-bind-address=127.0.0.1:9090'],
      want: { metricsBindAddress: '127.0.0.1:9090' },
    },
    '--metrics-bind-address=0 disables': { args: ['--metrics-bind-address=0'], want: { metricsBindAddress: '0' } },
    '--health-probe-bind-address': {
      args: ['--health-probe-bind-address=:9091'],
      want: { healthProbeBindAddress: ':9091' },
    },
    '--log-level': { args: ['--log-level=debug'], want: { logLevel: 'debug' } },
    '--kubeconfig': { args: ['--kubeconfig=/tmp/kc'], want: { kubeconfig: '/tmp/kc' } },
    '--install-crds=false': { args: ['--install-crds=false'], want: { installCrds: false } },
    '--manage-composite-rbac': { args: ['--manage-composite-rbac'], want: { manageCompositeRbac: true } },
    '--max-composition-revisions': {
      args: ['--max-composition-revisions=3'],
      want: { maxCompositionRevisions: 3 },
    },
    '--enable-nop-provider': { args: ['--enable-nop-provider'], want: { enableNopProvider: true } },
    '--enable-composed-resource-ordering': {
      args: ['--enable-composed-resource-ordering'],
      want: { enableComposedResourceOrdering: true },
    },
    '--enable-usages=false': { args: ['--enable-usages=false'], want: { enableUsages: false } },
    '--enable-operations': { args: ['--enable-operations'], want: { enableOperations: true } },
    '--enable-providers': { args: ['--enable-providers'], want: { enableProviders: true } },
    '--manage-provider-rbac=false': { args: ['--manage-provider-rbac=false'], want: { manageProviderRbac: false } },
    '--enable-dependency-version-upgrades': {
      args: ['--enable-dependency-version-upgrades'],
      want: { enableDependencyVersionUpgrades: true },
    },
    '--enable-dependency-version-downgrades': {
      args: ['--enable-dependency-version-downgrades=true'],
      want: { enableDependencyVersionDowngrades: true },
    },
    '--default-activations': {
      args: ['--default-activations=*.nop.crossplane.io,*'],
      want: { defaultActivations: '*.nop.crossplane.io,*' },
    },
    '--graceful-shutdown-timeout': {
      args: ['--graceful-shutdown-timeout=5s'],
      want: { gracefulShutdownTimeoutMs: 5_000 },
    },
  };
  for (const [name, { args, want }] of Object.entries(accepted)) {
    it(`accepts ${name}`, async () => {
      const { code, config, stderr } = await run(['start', ...args]);
      expect(code, stderr).to.equal(0);
      expect(config).to.deep.include(want);
    });
  }

  it('covers every flag in the accepted table', () => {
    const covered = Object.keys(accepted).join(' ');
    for (const flag of START_FLAGS) expect(covered, flag.name).to.include(`--${flag.name}`);
  });

  const rejected: Record<string, { args: string[]; flag: string; form: string }> = {
    'a duration that is not one': { args: ['--poll-interval=abc'], flag: '--poll-interval', form: 'Go duration' },
    'a duration without a unit': { args: ['--sync-interval=10'], flag: '--sync-interval', form: 'Go duration' },
    'a zero poll interval': { args: ['--poll-interval=0s'], flag: '--poll-interval', form: 'positive' },
    'a negative cooldown': {
      args: ['--circuit-breaker-cooldown=-5m'],
      flag: '--circuit-breaker-cooldown',
      form: 'Go duration',
    },
    'a zero reconcile rate': { args: ['--max-reconcile-rate=0'], flag: '--max-reconcile-rate', form: 'greater than 0' },
    'a negative composed-resource limit': {
      args: ['--max-composed-resources=-1'],
      flag: '--max-composed-resources',
      form: 'whole number',
    },
    'a poll interval longer than Go can hold': {
      args: ['--poll-interval=3000000h'],
      flag: '--poll-interval',
      form: 'Go duration',
    },
    'a fractional reconcile rate': {
      args: ['--max-reconcile-rate=1.5'],
      flag: '--max-reconcile-rate',
      form: 'whole number',
    },
    'a negative refill rate': {
      args: ['--circuit-breaker-refill-rate=-1'],
      flag: '--circuit-breaker-refill-rate',
      form: 'greater than 0',
    },
    'a burst that is not a number': {
      args: ['--circuit-breaker-burst=lots'],
      flag: '--circuit-breaker-burst',
      form: 'number',
    },
    'a registry location with a scheme': {
      args: ['--builtin-function-registries=https://xpkg.crossplane.io/crossplane-contrib'],
      flag: '--builtin-function-registries',
      form: 'without scheme',
    },
    'a registry location with a trailing slash': {
      args: ['--builtin-function-registries=registry.acme.io/mirror/'],
      flag: '--builtin-function-registries',
      form: 'without scheme, tag or trailing slash',
    },
    'a registry location naming a tag': {
      args: ['--builtin-function-registries=xpkg.crossplane.io/crossplane-contrib,registry.acme.io/fn:v1'],
      flag: '--builtin-function-registries',
      form: 'comma-separated list',
    },
    'a package runtime Crossplane does not know': {
      args: ['--package-runtime=Pod'],
      flag: '--package-runtime',
      form: 'one of Deployment, External',
    },
    'zero concurrency': {
      args: ['--max-concurrent-reconciles=0'],
      flag: '--max-concurrent-reconciles',
      form: 'greater than 0',
    },
    'zero concurrent applies': {
      args: ['--max-concurrent-applies=0'],
      flag: '--max-concurrent-applies',
      form: 'greater than 0',
    },
    'a fractional number of concurrent applies': {
      args: ['--max-concurrent-applies=2.5'],
      flag: '--max-concurrent-applies',
      form: 'whole number',
    },
    'a boolean that is not one': {
      args: ['--leader-election=maybe'],
      flag: '--leader-election',
      form: 'true or false',
    },
    'a fair queue that is neither on nor off': {
      args: ['--fair-queue=fifo'],
      flag: '--fair-queue',
      form: 'true or false',
    },
    'an address without a port': {
      args: ['--metrics-bind-address=localhost'],
      flag: '--metrics-bind-address',
      form: ':8080',
    },
    'a port out of range': {
      args: ['--health-probe-bind-address=:70000'],
      flag: '--health-probe-bind-address',
      form: ':8080',
    },
    'an unknown log level': { args: ['--log-level=loud'], flag: '--log-level', form: 'debug, info' },
    'an empty kubeconfig path': { args: ['--kubeconfig='], flag: '--kubeconfig', form: 'file path' },
    'an unknown flag': { args: ['--pol-interval=1m'], flag: '--pol-interval', form: '--help' },
    'a poll interval below the minimum': {
      args: ['--poll-interval=500ms'],
      flag: '--min-poll-interval',
      form: 'at least the minimum',
    },
    'a managed poll interval below the minimum': {
      args: ['--min-poll-interval=30s', '--managed-poll-interval=10s'],
      flag: '--managed-poll-interval',
      form: 'at least the minimum',
    },
    'a lease namespace that is not a DNS label': {
      args: ['--leader-election-namespace=Crossplane_System'],
      flag: '--leader-election-namespace',
      form: 'lowercase DNS label',
    },
    'a renew deadline not below the lease duration': {
      args: ['--leader-election-renew-deadline=60s'],
      flag: '--leader-election-lease-duration',
      form: 'must stop before a standby',
    },
    'a retry period not below the renew deadline': {
      args: ['--leader-election-retry-period=50s'],
      flag: '--leader-election-renew-deadline',
      form: 'several renewal attempts',
    },
    'a shard index not below the shard count': {
      args: ['--shard-index=2', '--shard-count=2'],
      flag: '--shard-index',
      form: 'an index from 0 to 1',
    },
    'a shard index without --shard-count (one shard)': {
      args: ['--shard-index=1'],
      flag: '--shard-count',
      form: 'an index from 0 to 0',
    },
    'a negative shard index': { args: ['--shard-index=-1'], flag: '--shard-index', form: '0 or more' },
    'a shard count of zero': { args: ['--shard-count=0'], flag: '--shard-count', form: 'greater than 0' },
    'a fractional shard count': { args: ['--shard-count=1.5'], flag: '--shard-count', form: 'whole number' },
    'a positional argument': { args: ['now'], flag: 'start', form: 'too many arguments' },
  };
  for (const [name, { args, flag, form }] of Object.entries(rejected)) {
    it(`rejects ${name} with exit code 2 and one line naming the flag and the accepted form`, async () => {
      const { code, stderr, config } = await run(['start', ...args]);
      expect(code, stderr).to.equal(2);
      expect(config, 'the command must not run').to.equal(undefined);
      expect(stderr.trimEnd().split('\n'), stderr).to.have.length(1);
      expect(stderr).to.include(flag).and.include(form);
    });
  }

  describe('environment variables', () => {
    it('names each one COMPOSITOR_<FLAG>', () => {
      const flag = START_FLAGS.find((f) => f.name === 'circuit-breaker-half-open-interval');
      expect(flag && envName(flag)).to.equal('COMPOSITOR_CIRCUIT_BREAKER_HALF_OPEN_INTERVAL');
    });

    it('sets flags that are not on the command line', async () => {
      const { config } = await run(['start'], {
        COMPOSITOR_POLL_INTERVAL: '2m',
        COMPOSITOR_ENABLE_REALTIME_COMPOSITIONS: 'false',
        COMPOSITOR_MAX_RECONCILE_RATE: '20',
      });
      expect(config).to.include({ pollIntervalMs: 120_000, enableRealtimeCompositions: false, maxReconcileRate: 20 });
    });

    it('loses to the command line', async () => {
      const { config } = await run(['start', '--poll-interval=3m'], { COMPOSITOR_POLL_INTERVAL: '2m' });
      expect(config?.pollIntervalMs).to.equal(180_000);
    });

    it('rejects an invalid value naming the variable and the flag', async () => {
      const { code, stderr } = await run(['start'], { COMPOSITOR_MAX_RECONCILE_RATE: '0' });
      expect(code).to.equal(2);
      expect(stderr).to.include('COMPOSITOR_MAX_RECONCILE_RATE').and.include('--max-reconcile-rate');
    });
  });

  it('prints help with every flag and its default, exit code 0', async () => {
    const { code, stdout } = await run(['start', '--help']);
    expect(code).to.equal(0);
    for (const flag of START_FLAGS) {
      expect(stdout).to.include(`--${flag.name}`);
      if (flag.default !== undefined) expect(stdout).to.include(`default: ${flag.default}`);
    }
  });

  it('documents the circuit breaker token costs in the help', async () => {
    const { stdout } = await run(['start', '--help']);
    expect(stdout.replace(/\s+/g, ' ')).to.include('an update event costs 2 tokens and a create 1');
  });

  it('runs dev with the start flags except kubeconfig and install-crds', async () => {
    const ok = await run(['dev', '--poll-interval=10s', '--examples', 'elsewhere']);
    expect(ok.code).to.equal(0);
    expect(ok.dev?.config.pollIntervalMs).to.equal(10_000);
    expect(ok.dev?.examplesDirs).to.deep.equal(['elsewhere']);
    const defaults = await run(['dev']);
    expect(defaults.dev?.examplesDirs).to.deep.equal(['examples', 'examples/legacy']);
    const bad = await run(['dev', '--kubeconfig=/tmp/kc']);
    expect(bad.code).to.equal(2);
  });

  it('rejects an unknown command with exit code 2', async () => {
    const { code, stderr } = await run(['stat']);
    expect(code).to.equal(2);
    expect(stderr).to.include('stat');
  });
});
