import { expect } from 'chai';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../e2e/controlplane/ports.js';
import { loadCrds } from '../../src/apis/index.js';
import { ENDPOINT_ANNOTATION } from '../../src/functions/index.js';
import { ensureCrds, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import type { Operation } from '../../src/operations/index.js';
import { startFunction, type FunctionProcess } from '../functions/process.js';
import { compositor, type CompositorProcess } from './compositorProcess.js';
import { apply, eventsFor, get, remove } from './engine.js';
import { controlPlane, eventually } from './harness.js';

// Exactly once across a crash: compositor runs as a separate process with --enable-operations and is SIGKILLed while
// an Operation's function is mid-call. The next process must report the run as interrupted and not call the function
// again; an Operation that completed before the crash must not run again either (docs/operations.md#exactly-once).
const OPS_FUNCTION = fileURLToPath(new URL('../functions/ops-function.ts', import.meta.url));
const FN = 'ops-crash-probe';
const NS = 'default';
const OPS = 'ops.crossplane.io/v1alpha1';
const RUN_ATTEMPT_ANNOTATION = 'compositor.crossplane.io/operation-attempt';

type OperationObject = Operation & KubeObject;

function operation(name: string, callLog: string, holdMs?: number): OperationObject {
  return {
    apiVersion: OPS,
    kind: 'Operation',
    metadata: { name },
    spec: {
      mode: 'Pipeline',
      pipeline: [
        {
          step: 'write',
          functionRef: { name: FN },
          input: {
            apiVersion: 'ops.fn.compositor.test/v1',
            kind: 'Input',
            configMap: { namespace: NS, name },
            callLog,
            ...(holdMs === undefined ? {} : { holdMs }),
          },
        },
      ],
    },
  };
}

function succeeded(op: Operation | undefined): { status?: string; reason?: string; message?: string } | undefined {
  return op?.status?.conditions?.find((c) => c.type === 'Succeeded');
}

/** The sum of one controller's reconciles on a Prometheus endpoint, undefined while it does not answer. */
async function reconciles(port: number, controller: string): Promise<number | undefined> {
  const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
  const lines = text.split('\n').filter((l) => l.startsWith(`controller_runtime_reconcile_total{`));
  const mine = lines.filter((l) => l.includes(`controller="${controller}"`));
  return mine.reduce((total, l) => total + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

describe('Operations across a compositor crash (integration)', function () {
  this.timeout(90_000);
  let client: KubeClient;
  let fn: FunctionProcess;
  let callLog: string;
  const processes: CompositorProcess[] = [];
  const created: KubeObject[] = [];

  before(async () => {
    client = controlPlane().client();
    // As compositor installs them; the Function is created before compositor first starts.
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    callLog = join(mkdtempSync(join(tmpdir(), 'ops-crash-')), 'calls');
    // Each call appends its Operation's name here; the function process outlives both compositor processes.
    fn = await startFunction(OPS_FUNCTION);
    await create({
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: FN, annotations: { [ENDPOINT_ANNOTATION]: fn.endpoint } },
      spec: { package: 'example.org/ops-crash-probe:v0.1.0' },
    });
  });

  after(async () => {
    for (const { child } of processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const object of created.reverse()) await remove(client, object).catch(() => undefined);
    // SIGKILL: the held call would keep a gracefully stopping server waiting.
    await fn.stop('SIGKILL');
  });

  async function create<T extends KubeObject>(object: T): Promise<T> {
    created.push(object);
    return apply(client, object);
  }

  function start(metricsPort?: number): CompositorProcess {
    const started = compositor([
      'start',
      `--kubeconfig=${controlPlane().kubeconfigPath}`,
      `--metrics-bind-address=${metricsPort === undefined ? '0' : `127.0.0.1:${metricsPort}`}`,
      '--health-probe-bind-address=0',
      '--enable-operations',
      '--function-insecure',
    ]);
    processes.push(started);
    return started;
  }

  const calls = (): string[] => {
    try {
      return readFileSync(callLog, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };

  const read = (name: string): Promise<OperationObject | undefined> =>
    get<OperationObject>(client, { apiVersion: OPS, kind: 'Operation', metadata: { name } });

  /** What the test saw, for a timeout's message: the Operation's status, the calls and the process's last log lines. */
  const seen = (op: OperationObject | undefined, process: CompositorProcess): string =>
    JSON.stringify({
      annotations: op?.metadata.annotations,
      status: op?.status,
      calls: calls(),
      log: `${process.output.stdout}${process.output.stderr}`.split('\n').slice(-8),
    });

  it('reports a run cut short by SIGKILL as interrupted and never calls its function again', async () => {
    const first = start();
    created.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ops-crash-done', namespace: NS } });
    await create(operation('ops-crash-done', callLog));
    await eventually('the control Operation Succeeded True before the crash', async () => {
      const op = await read('ops-crash-done');
      if (succeeded(op)?.status === 'True') return op;
      throw new Error(seen(op, first));
    });

    // Held for longer than the test runs: the call is in flight when compositor dies.
    await create(operation('ops-crash-held', callLog, 600_000));
    const claimed = await eventually('the held Operation claimed and its function called', async () => {
      const op = await read('ops-crash-held');
      if (calls().includes('ops-crash-held') && op?.metadata.annotations?.[RUN_ATTEMPT_ANNOTATION] === '0') return op;
      throw new Error(seen(op, first));
    });
    expect(succeeded(claimed)?.reason).to.equal('PipelineRunning');
    const doneBefore = await read('ops-crash-done');
    first.child.kill('SIGKILL');
    await first.exited;

    const metricsPort = await freePort();
    const operations = await client.request<{ items: Operation[] }>('GET', `/apis/${OPS}/operations`);
    const second = start(metricsPort);
    const interrupted = await eventually(
      'the held Operation reported interrupted by the new process',
      async () => {
        const op = await read('ops-crash-held');
        if (succeeded(op)?.status === 'False') return op;
        throw new Error(seen(op, second));
      },
      { timeoutMs: 40_000 },
    );
    expect(succeeded(interrupted)).to.include({ status: 'False', reason: 'PipelineError' });
    expect(succeeded(interrupted)?.message).to.match(/did not record its end/);
    expect(interrupted.status?.failures).to.equal(1);
    const events = await eventsFor(client, NS, interrupted.metadata.uid ?? '', 'InterruptedRun');
    expect(events.map((e) => e.type)).to.deep.equal(['Warning']);

    // Every Operation that existed when the new process started has been reconciled by it, the control one included.
    await eventually(`the new process reconciled all ${operations.items.length} Operations`, async () => {
      const count = await reconciles(metricsPort, 'ops/operation');
      return count !== undefined && count >= operations.items.length ? count : undefined;
    });
    expect(calls().sort(), 'calls of the function over both processes').to.deep.equal([
      'ops-crash-done',
      'ops-crash-held',
    ]);
    const doneAfter = await read('ops-crash-done');
    expect(succeeded(doneAfter)?.status).to.equal('True');
    expect(doneAfter?.metadata.resourceVersion, 'the completed Operation untouched').to.equal(
      doneBefore?.metadata.resourceVersion,
    );
  });
});
