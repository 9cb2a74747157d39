import { expect } from 'chai';
import pino from 'pino';
import { ensureNamespace, get } from './engine.js';
import { LeaderElector, type LeaderElectionOptions } from '../../src/manager/index.js';
import type { KubeObject } from '../../src/kube/index.js';
import { compositor, type CompositorProcess } from './compositorProcess.js';
import { controlPlane, eventually } from './harness.js';

// Leader election against the real API server, with short durations: lease 6s, renew deadline 4s, retry 1s.
const NAMESPACE = 'leader-election-test';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Lease = KubeObject & { spec?: { holderIdentity?: string; renewTime?: string; leaseTransitions?: number } };

describe('leader election', function () {
  this.timeout(60_000);
  const stops: AbortController[] = [];

  function elector(identity: string, name: string): LeaderElector {
    const options: LeaderElectionOptions = {
      client: controlPlane().client(),
      namespace: NAMESPACE,
      name,
      identity,
      leaseDurationMs: 6_000,
      renewDeadlineMs: 4_000,
      retryPeriodMs: 1_000,
      log: pino({ level: 'silent' }),
    };
    return new LeaderElector(options);
  }

  function stopper(): AbortSignal {
    const controller = new AbortController();
    stops.push(controller);
    return controller.signal;
  }

  const lease = (name: string): Promise<Lease | undefined> =>
    get<Lease>(controlPlane().client(), {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: NAMESPACE },
    });

  before(async () => {
    await ensureNamespace(controlPlane().client(), NAMESPACE);
  });

  afterEach(() => {
    for (const stop of stops.splice(0)) stop.abort();
  });

  it('elects one leader; the standby takes over at once on release, and writes MicroTime the server accepts', async () => {
    const a = elector('a', 'handover');
    const b = elector('b', 'handover');
    await a.acquire(stopper());
    const standby = b.acquire(stopper());
    void a.keepRenewing(stopper(), () => undefined);
    await sleep(7_000);
    expect([a.isLeader, b.isLeader], 'only a leads, also past the lease duration while a renews').to.deep.equal([
      true,
      false,
    ]);
    const held = await lease('handover');
    expect(held?.spec?.holderIdentity).to.equal('a');
    expect(held?.spec?.renewTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    const releasedAt = Date.now();
    await a.release();
    await standby;
    expect(b.isLeader).to.equal(true);
    expect(Date.now() - releasedAt).to.be.below(2_500);
    expect((await lease('handover'))?.spec).to.include({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('lets a standby take over a dead leader only once the lease duration has passed', async () => {
    const a = elector('a', 'dead-leader');
    const b = elector('b', 'dead-leader');
    await a.acquire(stopper()); // and never renews: a crashed leader
    const diedAt = Date.now();
    await b.acquire(stopper());
    const waited = Date.now() - diedAt;
    expect(waited).to.be.at.least(6_000).and.below(9_000);
  });

  it('stops leading before its lease ends when it cannot reach the API server', async function () {
    const plane = controlPlane();
    if (plane.external) this.skip();
    const a = elector('a', 'cut-off');
    await a.acquire(stopper());
    let lostAt: number | undefined;
    void a.keepRenewing(stopper(), () => (lostAt = Date.now()));
    await sleep(1_000);
    await plane.restartApiServer({ downMs: 7_000 });
    const renewed = await eventually('the lease readable again', () => lease('cut-off'));
    const lastRenewal = Date.parse(renewed.spec?.renewTime ?? '');
    expect(lostAt, 'the leader gave up').to.not.equal(undefined);
    expect((lostAt ?? Infinity) - lastRenewal, 'gave up before the lease expired').to.be.below(6_000);
    expect(a.isLeader).to.equal(false);
  });
});

describe('leader election between compositor processes', function () {
  this.timeout(120_000);
  const started: CompositorProcess[] = [];

  function start(): CompositorProcess {
    const process = compositor([
      'start',
      `--kubeconfig=${controlPlane().kubeconfigPath}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      '--leader-election',
      `--leader-election-namespace=${NAMESPACE}`,
      '--leader-election-lease-duration=6s',
      '--leader-election-renew-deadline=4s',
      '--leader-election-retry-period=1s',
    ]);
    started.push(process);
    return process;
  }

  /** The time (ms) of the first log line with this message, waiting for it. */
  async function logged(process: CompositorProcess, msg: string, timeoutMs = 30_000): Promise<number> {
    return eventually(
      `compositor to log "${msg}"`,
      () => {
        for (const line of process.output.stdout.split('\n')) {
          if (!line.startsWith('{')) continue;
          const entry = JSON.parse(line) as { msg?: string; time?: number | string };
          if (entry.msg === msg) return Promise.resolve(new Date(entry.time ?? Date.now()).getTime());
        }
        return Promise.resolve(undefined);
      },
      { timeoutMs },
    );
  }

  after(() => {
    for (const { child } of started) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('one leads; SIGTERM hands over within 5 s, SIGKILL within the lease; never two leaders at once', async () => {
    await ensureNamespace(controlPlane().client(), NAMESPACE);
    const a = start();
    await logged(a, 'compositor is ready');
    const b = start();
    await logged(b, 'waiting for the leader election lease');

    const termAt = Date.now();
    a.child.kill('SIGTERM');
    expect((await a.exited).code).to.equal(0);
    const bLeads = await logged(b, 'became leader', 10_000);
    expect(bLeads - termAt, 'handover after SIGTERM').to.be.below(5_000);
    expect(await logged(a, 'stopped'), 'a stopped its controllers before b started').to.be.at.most(bLeads);

    const c = start();
    await logged(c, 'waiting for the leader election lease');
    const killAt = Date.now();
    b.child.kill('SIGKILL');
    const cLeads = await logged(c, 'became leader', 20_000);
    expect(cLeads - killAt, 'takeover after SIGKILL')
      .to.be.at.least(4_000)
      .and.below(6_000 + 3_000);
    c.child.kill('SIGTERM');
    expect((await c.exited).code).to.equal(0);
  });
});
