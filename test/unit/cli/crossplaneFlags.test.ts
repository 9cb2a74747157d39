import { expect } from 'chai';
import { pino } from 'pino';
import {
  envName,
  IGNORED_FLAGS,
  MAPPED_FLAGS,
  runProgram,
  SAME_NAME_FLAGS,
  START_FLAGS,
  warnIgnoredFlags,
  type StartConfig,
  type ValueKind,
} from '../../../src/cli/index.js';

interface Run {
  code: number;
  stderr: string;
  config: StartConfig | undefined;
}

/** Runs `compositor start <args>` with a start handler that records the config instead of starting anything. */
async function start(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const result: Run = { code: -1, stderr: '', config: undefined };
  const saved = new Map(START_FLAGS.map((flag) => [envName(flag), process.env[envName(flag)]]));
  for (const name of saved.keys()) Reflect.deleteProperty(process.env, name);
  Object.assign(process.env, env);
  try {
    result.code = await runProgram(
      ['start', ...args],
      {
        start: (config) => {
          result.config = config;
          return Promise.resolve(0);
        },
        dev: () => Promise.resolve(0),
      },
      { writeOut: () => undefined, writeErr: (text) => (result.stderr += text) },
    );
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = value;
    }
  }
  return result;
}

/** A value Crossplane would accept for a flag of this kind. */
const SAMPLE: Record<ValueKind, string> = {
  duration: '1m',
  positiveDuration: '30s',
  positiveInteger: '100',
  nonNegativeInteger: '10',
  positiveNumber: '100.0',
  boolean: 'true',
  locationList: 'xpkg.crossplane.io/crossplane-contrib',
  address: ':8080',
  logLevel: 'info',
  packageRuntime: 'Deployment',
  path: '/tls/client',
  name: 'crossplane-system',
  port: '9443',
  text: 'anything',
};

/** Every spelling of every `crossplane core start` flag compositor knows, with the kind of value it takes. */
function everyCrossplaneFlag(): { spelling: string; kind: ValueKind }[] {
  const same = SAME_NAME_FLAGS.map((name) => {
    const flag = START_FLAGS.find((f) => f.name === name);
    return { spelling: `--${name}`, kind: flag?.kind ?? 'text' };
  });
  const others = [...MAPPED_FLAGS, ...IGNORED_FLAGS].flatMap((flag) =>
    flag.flags.split(/,\s*/).map((spelling) => ({ spelling, kind: flag.kind })),
  );
  return [...same, ...others];
}

describe('cli/crossplane flags', () => {
  it('are compositor flags where SAME_NAME_FLAGS says so', () => {
    const names = new Set(START_FLAGS.map((flag) => flag.name));
    for (const name of SAME_NAME_FLAGS) expect(names.has(name), name).to.equal(true);
  });

  it('map onto compositor flags that exist', () => {
    const names = new Set(START_FLAGS.map((flag) => flag.name));
    for (const flag of MAPPED_FLAGS) expect(names.has(flag.sets), flag.flags).to.equal(true);
  });

  for (const { spelling, kind } of everyCrossplaneFlag()) {
    const args = kind === 'boolean' ? [spelling] : [spelling, SAMPLE[kind]];
    it(`accepts ${args.join(' ')} and starts`, async () => {
      const { code, stderr, config } = await start(args);
      expect(code, stderr).to.equal(0);
      expect(config, 'the start handler ran').to.not.equal(undefined);
    });
  }

  const mapped: Record<string, { args: string[]; env?: Record<string, string>; want: Partial<StartConfig> }> = {
    '--debug sets the debug log level': { args: ['--debug'], want: { logLevel: 'debug' } },
    '-d is --debug': { args: ['-d'], want: { logLevel: 'debug' } },
    '--debug=false leaves the log level alone': { args: ['--debug=false'], want: { logLevel: 'info' } },
    '--debug after --log-level wins': { args: ['--log-level=warn', '--debug'], want: { logLevel: 'debug' } },
    '--log-level after --debug wins': { args: ['--debug', '--log-level=warn'], want: { logLevel: 'warn' } },
    '--debug beats COMPOSITOR_LOG_LEVEL': {
      args: ['--debug'],
      env: { COMPOSITOR_LOG_LEVEL: 'error' },
      want: { logLevel: 'debug' },
    },
    '-l is --leader-election': { args: ['-l'], want: { leaderElection: true } },
    '-s is --sync-interval': { args: ['-s', '30m'], want: { syncIntervalMs: 1_800_000 } },
    '--metrics-port binds every address': { args: ['--metrics-port=9090'], want: { metricsBindAddress: ':9090' } },
    '--health-probe-port binds every address': {
      args: ['--health-probe-port', '9091'],
      want: { healthProbeBindAddress: ':9091' },
    },
    '--tls-client-certs-dir is --function-tls-dir': {
      args: ['--tls-client-certs-dir=/certs'],
      want: { functionTlsDir: '/certs' },
    },
    '-c is --xpkg-cache-dir': { args: ['-c', '/cache/xpkg'], want: { xpkgCacheDir: '/cache/xpkg' } },
    '--cache-dir is --xpkg-cache-dir': { args: ['--cache-dir=/cache/xpkg'], want: { xpkgCacheDir: '/cache/xpkg' } },
    '--enable-function-response-cache (on by default)': { args: [], want: { enableFunctionResponseCache: true } },
    '--enable-function-response-cache=false turns the cache off': {
      args: ['--enable-function-response-cache=false'],
      want: { enableFunctionResponseCache: false },
    },
    '--xfn-cache-max-ttl bounds cached responses': {
      args: ['--xfn-cache-max-ttl', '5m'],
      want: { xfnCacheMaxTtlMs: 300_000 },
    },
    '--xfn-cache-max-ttl=0 is no bound, as in Crossplane': {
      args: ['--xfn-cache-max-ttl=0'],
      want: { xfnCacheMaxTtlMs: 0 },
    },
    '--max-reconcile-rate keeps compositor meaning (rate and workers)': {
      args: ['--max-reconcile-rate=20'],
      want: { maxReconcileRate: 20, maxConcurrentReconciles: 20 },
    },
  };
  for (const [name, { args, env, want }] of Object.entries(mapped)) {
    it(name, async () => {
      const { code, stderr, config } = await start(args, env);
      expect(code, stderr).to.equal(0);
      expect(config).to.include(want);
      expect(config?.ignoredFlags).to.deep.equal([]);
    });
  }

  it('lists each ignored flag given once, in any value form, and still starts', async () => {
    const { code, stderr, config } = await start([
      '--enable-pipeline-inspector',
      '--enable-pipeline-inspector=false',
      '--webhook-port',
      '9443',
      '--registry=',
      '-n',
      'crossplane-system',
    ]);
    expect(code, stderr).to.equal(0);
    expect(stderr).to.equal('');
    expect(config?.ignoredFlags.map((f) => f.flag)).to.deep.equal([
      '--namespace',
      '--webhook-port',
      '--enable-pipeline-inspector',
      '--registry',
    ]);
  });

  it('logs one warning per ignored flag, naming it and why it has no effect', () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const reason = IGNORED_FLAGS.find((f) => f.flags === '--enable-pipeline-inspector')?.reason ?? '';
    warnIgnoredFlags([{ flag: '--enable-pipeline-inspector', reason }], log);
    expect(lines).to.have.length(1);
    const entry = JSON.parse(lines[0] ?? '{}') as { level: number; flag: string; msg: string };
    expect(entry.level).to.equal(40);
    expect(entry.flag).to.equal('--enable-pipeline-inspector');
    expect(entry.msg).to.include('--enable-pipeline-inspector').and.include(reason);
  });

  it('rejects a Crossplane flag with a value Crossplane would reject, naming it (exit code 2)', async () => {
    const { code, stderr, config } = await start(['--webhook-port=http']);
    expect(code).to.equal(2);
    expect(config).to.equal(undefined);
    expect(stderr).to.include('--webhook-port');
  });

  it('still stops at a flag that Crossplane does not have either, naming it (exit code 2)', async () => {
    const { code, stderr, config } = await start(['--enable-everything']);
    expect(code).to.equal(2);
    expect(config, 'the command must not run').to.equal(undefined);
    expect(stderr.trimEnd().split('\n')).to.have.length(1);
    expect(stderr).to.include('--enable-everything');
  });
});
