import { expect } from 'chai';
import type { KubeClient } from '../../src/kube/index.js';
import { shardOf } from '../../src/watch/index.js';
import { compositor, type CompositorProcess } from './compositorProcess.js';
import { apply, condition, ensureNamespace, get, installApi, remove, testApi, xrd, type XrObject } from './engine.js';
import { controlPlane, eventually } from './harness.js';

// Sharded replicas (docs/scaling.md) as users run them: compositor processes started from the CLI on one control
// plane with --shard-count=2, each reconciling the XRs whose uid hashes to its --shard-index, and a standby of shard
// 1 (same index, leader election on) that takes the shard over when its holder is SIGKILLed. Which process
// reconciled which XR is read from each process's own debug log line per reconcile ("reconcile", with the XR key),
// so an XR reconciled by both processes, or by the process of the wrong shard, fails the test.

const NAMESPACE = 'sharding-test';
const SHARDS = 2;
const XRS = 20;
const api = testApi('shard.compositor.test', 'XShard');

interface LogLine {
  msg?: string;
  controller?: string;
  xr?: string;
}

function logLines(process: CompositorProcess): LogLine[] {
  return process.output.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** The XR keys ("namespace/name") this process has reconciled so far. */
function reconciled(process: CompositorProcess): Set<string> {
  const keys = logLines(process)
    .filter((line) => line.msg === 'reconcile' && line.controller === api.controller && line.xr !== undefined)
    .map((line) => line.xr ?? '');
  return new Set(keys);
}

function logged(process: CompositorProcess, msg: string, timeoutMs = 60_000): Promise<true> {
  return eventually(
    `compositor (${process.child.spawnargs.find((a) => a.startsWith('--shard-index')) ?? ''}) to log "${msg}"`,
    () => Promise.resolve(logLines(process).some((line) => line.msg === msg) ? true : undefined),
    { timeoutMs, intervalMs: 200 },
  );
}

function xr(name: string, image: string): XrObject {
  return {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name, namespace: NAMESPACE },
    spec: { image } as XrObject['spec'],
  };
}

async function listXrs(client: KubeClient): Promise<XrObject[]> {
  const list = await client.request<{ items: XrObject[] }>(
    'GET',
    `/apis/${api.apiVersion}/namespaces/${NAMESPACE}/${api.plural}`,
  );
  return list.items;
}

/** XR keys in the reconcile logs of both processes. */
function reconciledByBoth([a, b]: readonly [CompositorProcess, CompositorProcess]): string[] {
  const byB = reconciled(b);
  return [...reconciled(a)].filter((key) => byB.has(key));
}

/**
 * Waits until every named XR is Ready with status.image equal to `image` (copied back from its ConfigMap), failing
 * at once, naming them, when the two running processes have reconciled one XR both (as they would without shards).
 */
async function converged(
  client: KubeClient,
  names: readonly string[],
  image: string,
  running: readonly [CompositorProcess, CompositorProcess],
): Promise<void> {
  const both = await eventually(
    `${names.length} XRs Ready with image ${image}`,
    async () => {
      const overlap = reconciledByBoth(running);
      if (overlap.length > 0) return overlap;
      const items = await listXrs(client);
      const done = items.filter(
        (x) => names.includes(x.metadata.name) && condition(x, 'Ready')?.status === 'True' && x.status?.image === image,
      );
      if (done.length === names.length) return [];
      const waiting = names.filter((n) => !done.some((x) => x.metadata.name === n));
      throw new Error(`${done.length}/${names.length}; waiting for ${waiting.join(', ')}`);
    },
    { timeoutMs: 180_000, intervalMs: 1_000 },
  );
  expect(both, 'XRs reconciled by both running processes').to.deep.equal([]);
}

describe('sharded replicas: two compositor processes on one control plane', function () {
  this.timeout(600_000);
  const started: CompositorProcess[] = [];
  let client: KubeClient;

  function start(index: number): CompositorProcess {
    const process = compositor([
      'start',
      `--kubeconfig=${controlPlane().kubeconfigPath}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      '--log-level=debug',
      `--shard-count=${SHARDS}`,
      `--shard-index=${index}`,
      '--leader-election',
      `--leader-election-namespace=${NAMESPACE}`,
      '--leader-election-lease-duration=6s',
      '--leader-election-renew-deadline=4s',
      '--leader-election-retry-period=1s',
    ]);
    started.push(process);
    return process;
  }

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NAMESPACE);
  });

  after(() => {
    for (const { child } of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('reconciles every XR in exactly one process, and a standby takes over a killed shard', async () => {
    const shard0 = start(0);
    const shard1 = start(1);
    await Promise.all([logged(shard0, 'compositor is ready'), logged(shard1, 'compositor is ready')]);
    const standby = start(1);
    await logged(standby, 'waiting for the leader election lease');

    // Shard 0 runs the XRD controller: the XRD becomes Established only through it.
    await installApi(client, api);
    const names = Array.from({ length: XRS }, (_, i) => `app-${i}`);
    await Promise.all(names.map((name) => apply(client, xr(name, 'v1'))));
    await converged(client, names, 'v1', [shard0, shard1]);

    const shardOfKey = new Map<string, number>();
    for (const item of await listXrs(client)) {
      shardOfKey.set(`${NAMESPACE}/${item.metadata.name}`, shardOf(item.metadata.uid ?? '', SHARDS));
    }
    const keysOf = (shard: number): string[] => [...shardOfKey].filter(([, s]) => s === shard).map(([key]) => key);
    expect(keysOf(0), 'both shards own XRs (else this test proves nothing)').to.not.be.empty;
    expect(keysOf(1), 'both shards own XRs (else this test proves nothing)').to.not.be.empty;

    const by0 = reconciled(shard0);
    const by1 = reconciled(shard1);
    expect(reconciledByBoth([shard0, shard1]), 'XRs reconciled by both processes').to.deep.equal([]);
    expect(
      [...by0].filter((key) => shardOfKey.get(key) !== 0),
      'XRs the shard-0 process reconciled outside shard 0',
    ).to.deep.equal([]);
    expect(
      [...by1].filter((key) => shardOfKey.get(key) !== 1),
      'XRs the shard-1 process reconciled outside shard 1',
    ).to.deep.equal([]);
    expect([...by0, ...by1].sort(), 'every XR was reconciled').to.deep.equal([...shardOfKey.keys()].sort());
    expect([...reconciled(standby)], 'the standby reconciles nothing while it waits').to.deep.equal([]);

    const holder = async (shard: number): Promise<string | undefined> => {
      const lease = await get<XrObject & { spec?: { holderIdentity?: string } }>(client, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: `compositor-shard-${shard}`, namespace: NAMESPACE },
      });
      return lease?.spec?.holderIdentity;
    };
    const heldBefore = await holder(1);
    expect(await holder(0), 'Lease compositor-shard-0 is held')
      .to.be.a('string')
      .and.not.equal('');
    expect(heldBefore, 'Lease compositor-shard-1 is held').to.be.a('string').and.not.equal('');

    // Kill shard 1's holder, then change its XRs and add new ones while nobody holds shard 1.
    shard1.child.kill('SIGKILL');
    await shard1.exited;
    const shard1Names = keysOf(1).map((key) => key.slice(NAMESPACE.length + 1));
    await Promise.all(shard1Names.map((name) => apply(client, xr(name, 'v2'))));
    const late = Array.from({ length: 6 }, (_, i) => `late-${i}`);
    await Promise.all(late.map((name) => apply(client, xr(name, 'v1'))));

    await logged(standby, 'became leader', 60_000);
    await converged(client, shard1Names, 'v2', [shard0, standby]);
    await converged(client, late, 'v1', [shard0, standby]);
    expect(await holder(1), 'the standby holds compositor-shard-1 now').to.not.equal(heldBefore);

    for (const item of await listXrs(client)) {
      shardOfKey.set(`${NAMESPACE}/${item.metadata.name}`, shardOf(item.metadata.uid ?? '', SHARDS));
    }
    const after0 = reconciled(shard0);
    const afterStandby = reconciled(standby);
    expect(
      [...after0].filter((key) => shardOfKey.get(key) !== 0),
      'XRs the shard-0 process reconciled outside shard 0 (it must not take shard 1 over)',
    ).to.deep.equal([]);
    expect(
      [...afterStandby].filter((key) => shardOfKey.get(key) !== 1),
      'XRs the standby reconciled outside shard 1',
    ).to.deep.equal([]);
    for (const key of shard1Names.map((name) => `${NAMESPACE}/${name}`)) {
      expect(afterStandby.has(key), `${key} (shard 1, changed after the kill) reconciled by the standby`).to.equal(
        true,
      );
    }
    for (const name of late) {
      const key = `${NAMESPACE}/${name}`;
      const owner = shardOfKey.get(key) === 0 ? after0 : afterStandby;
      expect(owner.has(key), `${key} (created after the kill) reconciled by its shard's process`).to.equal(true);
    }

    // Deleting the XRD needs both shards: each removes the finalizers of its own XRs.
    await remove(client, xrd(api));
    await eventually(
      'the XRD and its XRs gone',
      async () => {
        const left = await get(client, xrd(api));
        if (!left) return true;
        const xrs = await listXrs(client).catch(() => []);
        throw new Error(`XRD still there; XRs left: ${xrs.map((x) => x.metadata.name).join(', ')}`);
      },
      { timeoutMs: 120_000, intervalMs: 1_000 },
    );

    for (const process of [shard0, standby]) {
      process.child.kill('SIGTERM');
      expect((await process.exited).code, process.output.stderr).to.equal(0);
    }
  });
});
