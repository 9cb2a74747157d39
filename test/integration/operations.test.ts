import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { ENDPOINT_ANNOTATION } from '../../src/functions/index.js';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import type { Operation } from '../../src/operations/index.js';
import { startFunction, type FunctionProcess } from '../functions/process.js';
import { apply, get, remove, startEngine, type RunningEngine } from './engine.js';
import { controlPlane, eventually } from './harness.js';

// compositor start --enable-operations on a real API server: Operations run an SDK function served over gRPC once to
// completion and apply what it returns; a WatchOperation starts one for a change of a resource it watches.
const OPS_FUNCTION = fileURLToPath(new URL('../functions/ops-function.ts', import.meta.url));
const FN = 'ops-probe';
const NS = 'default';
const OPS = 'ops.crossplane.io/v1alpha1';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

interface OperationExtra {
  failTimes?: number;
  retryLimit?: number;
  labels?: Record<string, string>;
}

function operation(name: string, configMap: string, extra: OperationExtra = {}): Operation {
  const { failTimes, retryLimit, labels } = extra;
  return {
    apiVersion: OPS,
    kind: 'Operation',
    metadata: { name },
    spec: {
      ...(retryLimit === undefined ? {} : { retryLimit }),
      mode: 'Pipeline',
      pipeline: [
        {
          step: 'write',
          functionRef: { name: FN },
          input: {
            apiVersion: 'ops.fn.compositor.test/v1',
            kind: 'Input',
            configMap: { namespace: NS, name: configMap, ...(labels === undefined ? {} : { labels }) },
            ...(failTimes === undefined ? {} : { failTimes }),
          },
        },
      ],
    },
  };
}

const WATCHED_LABEL = { 'ops.compositor.test/watch': 'yes' };

/** A CronOperation or WatchOperation as the tests read it. */
type OwnerObject = KubeObject & {
  status?: { conditions?: { type: string; status: string; reason?: string }[]; lastSuccessfulTime?: string };
};

function configMapRef(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS } };
}

function succeeded(op: Operation | undefined): { status?: string; reason?: string } | undefined {
  return op?.status?.conditions?.find((c) => c.type === 'Succeeded');
}

describe('Operations (integration)', function () {
  this.timeout(120_000);
  let client: KubeClient;
  let fn: FunctionProcess;
  let running: RunningEngine;
  const created: KubeObject[] = [];

  before(async () => {
    client = controlPlane().client();
    fn = await startFunction(OPS_FUNCTION);
    running = await startEngine({ functionInsecure: true, enableOperations: true });
    await apply(client, {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: FN, annotations: { [ENDPOINT_ANNOTATION]: fn.endpoint } },
      spec: { package: 'example.org/ops-probe:v0.1.0' },
    });
  });

  after(async () => {
    for (const object of created.reverse()) await remove(client, object).catch(() => undefined);
    await running.stop();
    await fn.stop();
  });

  const create = async <T extends KubeObject>(object: T): Promise<T> => {
    created.push(object);
    return apply(client, object);
  };

  const done = (name: string): Promise<Operation> =>
    eventually(`Operation "${name}" Succeeded True`, async () => {
      const op = await get<Operation & KubeObject>(client, { apiVersion: OPS, kind: 'Operation', metadata: { name } });
      if (succeeded(op)?.status === 'True') return op;
      if (op?.status) throw new Error(JSON.stringify(op.status));
      return undefined;
    });

  it('runs an Operation once, applies the ConfigMap its function returns and reports it', async () => {
    created.push(configMapRef('ops-once'));
    await create(operation('ops-once', 'ops-once') as Operation & KubeObject);
    const op = await done('ops-once');
    expect(succeeded(op)?.reason).to.equal('PipelineSuccess');
    expect(op.status?.appliedResourceRefs).to.deep.equal([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'ops-once' },
    ]);
    expect(op.status?.pipeline).to.deep.equal([{ step: 'write', output: { call: 1 } }]);
    const cm = await get<ConfigMap>(client, configMapRef('ops-once'));
    expect(cm?.data).to.deep.equal({ call: '1' });
  });

  it('retries an Operation whose function fails, within its retryLimit, until it succeeds', async () => {
    created.push(configMapRef('ops-retry'));
    await create(operation('ops-retry', 'ops-retry', { failTimes: 1, retryLimit: 3 }) as Operation & KubeObject);
    const op = await done('ops-retry');
    expect(op.status?.failures).to.equal(1);
    const cm = await get<ConfigMap>(client, configMapRef('ops-retry'));
    expect(cm?.data).to.deep.equal({ call: '2' });
  });

  it('starts an Operation within seconds per change of a watched ConfigMap, none for its own writes', async () => {
    // The Operation writes a ConfigMap the WatchOperation selects too: the echo of that write must start nothing.
    const template = operation('unused', 'ops-watch-result', { labels: WATCHED_LABEL });
    created.push(configMapRef('ops-watch-result'));
    await create({
      apiVersion: OPS,
      kind: 'WatchOperation',
      metadata: { name: 'ops-watch' },
      spec: {
        watch: { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, matchLabels: WATCHED_LABEL },
        operationTemplate: { spec: template.spec },
      },
    });
    await eventually('WatchOperation Watching', async () => {
      const wo = await get<OwnerObject>(client, {
        apiVersion: OPS,
        kind: 'WatchOperation',
        metadata: { name: 'ops-watch' },
      });
      return wo?.status?.conditions?.find((c) => c.type === 'Watching')?.status === 'True' ? true : undefined;
    });
    const watched = (value: string): ConfigMap => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ops-watched', namespace: NS, labels: WATCHED_LABEL },
      data: { value },
    });
    const resultFor = (version: unknown): Promise<ConfigMap> =>
      eventually(
        `the Operation for version ${String(version)} of the watched ConfigMap applied its result`,
        async () => {
          const result = await get<ConfigMap>(client, configMapRef('ops-watch-result'));
          if (result?.data?.watchedVersion === version) return result;
          throw new Error(JSON.stringify(result?.data));
        },
        { timeoutMs: 10_000 },
      );
    const first = await create(watched('one'));
    expect((await resultFor(first.metadata.resourceVersion)).data?.watched).to.equal('ops-watched');
    const second = await apply(client, watched('two'));
    await resultFor(second.metadata.resourceVersion);
    const ops = await client.request<{ items: Operation[] }>('GET', `/apis/${OPS}/operations`, {
      query: { labelSelector: 'ops.crossplane.io/watchoperation=ops-watch' },
    });
    const versions = ops.items.map(
      (op) => op.metadata.annotations?.['ops.crossplane.io/watched-resource-resourceversion'],
    );
    expect(versions.sort()).to.deep.equal([first.metadata.resourceVersion, second.metadata.resourceVersion].sort());
    const names = ops.items.map((op) => op.metadata.annotations?.['ops.crossplane.io/watched-resource-name']);
    expect(names).to.deep.equal(['ops-watched', 'ops-watched']);
  });

  it('creates an Operation per run of a CronOperation scheduled @every 2s, each run to success', async () => {
    created.push(configMapRef('ops-cron-result'));
    await create({
      apiVersion: OPS,
      kind: 'CronOperation',
      metadata: { name: 'ops-cron' },
      spec: { schedule: '@every 2s', operationTemplate: { spec: operation('unused', 'ops-cron-result').spec } },
    });
    const ops = await eventually(
      'two Operations of the CronOperation Succeeded',
      async () => {
        const list = await client.request<{ items: Operation[] }>('GET', `/apis/${OPS}/operations`, {
          query: { labelSelector: 'ops.crossplane.io/cronoperation=ops-cron' },
        });
        const done = list.items.filter((op) => succeeded(op)?.status === 'True');
        if (done.length >= 2) return done;
        throw new Error(JSON.stringify(list.items.map((op) => [op.metadata.name, succeeded(op)])));
      },
      { timeoutMs: 15_000 },
    );
    expect(ops.every((op) => /^ops-cron-\d+$/.test(op.metadata.name))).to.equal(true);
    const co = await eventually('the CronOperation reports its last success', async () => {
      const stored = await get<OwnerObject>(client, {
        apiVersion: OPS,
        kind: 'CronOperation',
        metadata: { name: 'ops-cron' },
      });
      return stored?.status?.lastSuccessfulTime === undefined ? undefined : stored;
    });
    expect(co.status?.conditions?.find((c) => c.type === 'Scheduling')?.reason).to.equal('ScheduleActive');
  });
});
