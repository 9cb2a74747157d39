// The gRPC runner and the pipeline against a real function process built with the TypeScript SDK, started on
// loopback as a separate process and stopped afterwards. No control plane is needed.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { packageRoot } from '../../src/apis/index.js';
import { systemClock } from '../../src/base/index.js';
import { DEVELOPMENT_TARGET_ANNOTATION, runRender } from '../../src/cli/index.js';
import {
  CachingRunner,
  FunctionCallError,
  GrpcFunctionRunner,
  insecureCredentials,
  PipelineFatalError,
  RequirementsRunner,
  runPipeline,
  staticEndpointResolver,
  type FunctionRunner,
  type JsonObject,
  type RequiredResourceFetcher,
  type Resources,
} from '../../src/functions/index.js';
import { freePort } from '../../e2e/controlplane/ports.js';
import { startFunction, type FunctionProcess } from '../functions/process.js';

const XR = { apiVersion: 'example.org/v1', kind: 'XApp', metadata: { name: 'app', namespace: 'default' } };
const observed = { composite: { resource: XR } };

function step(name: string, input: JsonObject): { step: string; functionRef: { name: string }; input: JsonObject } {
  return { step: name, functionRef: { name: 'probe' }, input };
}

describe('functions: gRPC runner against a real function process', function () {
  this.timeout(30_000);
  let fn: FunctionProcess;
  let grpc: GrpcFunctionRunner;

  before(async () => {
    fn = await startFunction();
    grpc = new GrpcFunctionRunner({
      resolveEndpoint: staticEndpointResolver({ probe: fn.endpoint }),
      credentials: insecureCredentials(),
      timeoutMs: 5_000,
    });
  });
  after(async () => {
    grpc.close();
    await fn.stop();
  });

  it('returns the response TTL, echoes the tag and reports the shortest TTL of the pipeline', async () => {
    const rsp = await grpc.run({ functionName: 'probe', request: { meta: { tag: 'abc' }, input: { ttlSeconds: 7 } } });
    expect(rsp.meta).to.deep.equal({ tag: 'abc', ttlMs: 7000 });
    const out = await runPipeline(
      { steps: [step('a', { ttlSeconds: 30 }), step('b', { ttlSeconds: 5 }), step('c', {})], observed },
      { runner: grpc },
    );
    expect(out.ttlMs).to.equal(5000);
  });

  it('passes context and desired state from one step to the next', async () => {
    const out = await runPipeline(
      {
        steps: [
          step('first', { setContext: { greeting: 'hello' }, resources: ['one'] }),
          step('second', { recordContext: true }),
        ],
        observed,
      },
      { runner: grpc },
    );
    const status = out.desired.composite?.resource?.status as JsonObject;
    expect(status.seenContext).to.deep.equal({ greeting: 'hello' });
    expect(Object.keys(out.desired.resources ?? {})).to.deep.equal(['one']);
    expect(out.context).to.deep.equal({ greeting: 'hello' });
  });

  it('maps WARNING and NORMAL results to events and function conditions to XR conditions', async () => {
    const out = await runPipeline(
      {
        steps: [
          step('report', {
            results: [
              { severity: 'WARNING', message: 'careful' },
              { severity: 'NORMAL', message: 'done' },
            ],
            conditions: [
              { type: 'DatabaseReady', status: 'True', reason: 'Available' },
              { type: 'Ready', status: 'False', reason: 'Sneaky' },
            ],
          }),
        ],
        observed,
      },
      { runner: grpc },
    );
    expect(out.events.map((e) => [e.type, e.reason, e.message])).to.deep.equal([
      ['Warning', 'ComposeResources', 'Pipeline step "report": careful'],
      ['Normal', 'ComposeResources', 'Pipeline step "report": done'],
    ]);
    expect(out.conditions).to.deep.equal([
      { type: 'DatabaseReady', status: 'True', reason: 'Available', target: 'Composite' },
    ]);
  });

  it('stops the pipeline at a FATAL result, keeping earlier events', async () => {
    let thrown: unknown;
    try {
      await runPipeline(
        {
          steps: [
            step('ok', { results: [{ severity: 'NORMAL', message: 'fine' }] }),
            step('boom', { results: [{ severity: 'FATAL', message: 'bad input' }] }),
            step('never', { resources: ['x'] }),
          ],
          observed,
        },
        { runner: grpc },
      );
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(PipelineFatalError);
    const fatal = thrown as PipelineFatalError;
    expect(fatal.message).to.equal('pipeline step "boom" returned a fatal result: bad input');
    expect(fatal.partial.events.map((e) => e.message)).to.deep.equal(['Pipeline step "ok": fine']);
  });

  it('runs the requirements loop until the requirements stop changing', async () => {
    const served: string[] = [];
    const fetcher: RequiredResourceFetcher = {
      fetchResources: (selector): Promise<Resources> => {
        served.push(selector.matchName ?? '');
        return Promise.resolve({ items: [{ resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } } }] });
      },
      fetchSchema: () => Promise.resolve({}),
    };
    const runner = new RequirementsRunner(grpc, fetcher);
    const rsp = await runner.run({ functionName: 'probe', request: { input: { requireConfigMap: 'settings' } } });
    expect(served).to.deep.equal(['settings']);
    const status = rsp.desired?.composite?.resource?.status as JsonObject;
    expect(status.required).to.deep.equal([{ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } }]);
  });

  it('gives up when requirements never stabilise, after 6 calls', async () => {
    let calls = 0;
    const counting: FunctionRunner = { run: (call) => (calls++, grpc.run(call)) };
    const runner = new RequirementsRunner(counting, {
      fetchResources: () => Promise.resolve({}),
      fetchSchema: () => Promise.resolve({}),
    });
    let thrown: unknown;
    await runner
      .run({ functionName: 'probe', step: 'loop', request: { input: { requireForever: true } } })
      .catch((e: unknown) => {
        thrown = e;
      });
    expect(calls).to.equal(6);
    expect(thrown).to.be.instanceOf(FunctionCallError);
    expect((thrown as Error).message).to.contain(
      "requirements didn't stabilize after the maximum number of iterations (5)",
    );
  });

  it('fails a call that outlives --function-timeout with an error naming function and step', async () => {
    const slow = new GrpcFunctionRunner({
      resolveEndpoint: staticEndpointResolver({ probe: fn.endpoint }),
      credentials: insecureCredentials(),
      timeoutMs: 200,
    });
    try {
      let thrown: unknown;
      await slow
        .run({ functionName: 'probe', step: 'slow', request: { input: { sleepMs: 1500 } } })
        .catch((e: unknown) => {
          thrown = e;
        });
      expect(thrown).to.be.instanceOf(FunctionCallError);
      expect((thrown as Error).message).to.equal(
        `cannot run function "probe" for pipeline step "slow": cannot call ${fn.endpoint}: timed out after 200ms (--function-timeout)`,
      );
    } finally {
      slow.close();
    }
  });

  it("bounds a call by its step's timeout instead of --function-timeout, without holding up other calls", async () => {
    const runner = new GrpcFunctionRunner({
      resolveEndpoint: staticEndpointResolver({ probe: fn.endpoint }),
      credentials: insecureCredentials(),
      timeoutMs: 30_000,
    });
    try {
      const started = Date.now();
      const slow = runner
        .run({ functionName: 'probe', step: 'slow', request: { input: { sleepMs: 3000 } }, timeoutMs: 300 })
        .then(
          () => new Error('the slow step did not time out'),
          (e: unknown) => ({ error: e as Error, afterMs: Date.now() - started }),
        );
      const fast = await runner.run({ functionName: 'probe', step: 'fast', request: { input: {} } });
      const fastAfterMs = Date.now() - started;
      const failed = await slow;
      if (failed instanceof Error) throw failed;
      expect(failed.error.message).to.equal(
        `cannot run function "probe" for pipeline step "slow": cannot call ${fn.endpoint}: timed out after 300ms (the step's timeout)`,
      );
      expect(failed.afterMs, 'the step timeout, not --function-timeout, ended the call').to.be.below(3000);
      expect(fast.desired?.composite).to.not.equal(undefined);
      expect(fastAfterMs, 'the fast call answered while the slow one was still running').to.be.below(failed.afterMs);
    } finally {
      runner.close();
    }
  });

  it('serves an identical request from the response cache until its TTL ends', async () => {
    let now = 0;
    let calls = 0;
    const counting: FunctionRunner = { run: (call) => (calls++, grpc.run(call)) };
    const cache = new CachingRunner(counting, { clock: { now: () => now } });
    const call = { functionName: 'probe', request: { input: { ttlSeconds: 10 } } };
    await cache.run(call);
    now = 9_999;
    const hit = await cache.run(call);
    expect(calls).to.equal(1);
    expect(hit.meta?.ttlMs).to.equal(10_000);
    now = 10_000;
    await cache.run(call);
    expect(calls).to.equal(2);
  });
});

describe('functions: gRPC runner when the function is down', function () {
  this.timeout(15_000);

  it('retries UNAVAILABLE with backoff, then names function and step', async () => {
    const port = await freePort();
    const delays: number[] = [];
    const grpc = new GrpcFunctionRunner({
      resolveEndpoint: staticEndpointResolver({ gone: `127.0.0.1:${port}` }),
      credentials: insecureCredentials(),
      timeoutMs: 5_000,
      attempts: 3,
      clock: { ...systemClock, sleep: (ms) => (delays.push(ms), Promise.resolve()) },
    });
    try {
      let thrown: unknown;
      await grpc.run({ functionName: 'gone', step: 'compose', request: {} }).catch((e: unknown) => {
        thrown = e;
      });
      expect(thrown).to.be.instanceOf(FunctionCallError);
      const err = thrown as FunctionCallError;
      expect(err.code).to.equal(14);
      expect(err.message).to.match(
        /^cannot run function "gone" for pipeline step "compose": cannot call 127\.0\.0\.1:\d+: /,
      );
      expect(delays).to.deep.equal([100, 200]);
    } finally {
      grpc.close();
    }
  });

  it('recovers when the function comes up while a call is retrying', async () => {
    const port = await freePort();
    const grpc = new GrpcFunctionRunner({
      resolveEndpoint: staticEndpointResolver({ late: `127.0.0.1:${port}` }),
      credentials: insecureCredentials(),
      timeoutMs: 20_000,
      attempts: 20,
      backoffMs: 100,
      maxBackoffMs: 1_000,
    });
    let fn: FunctionProcess | undefined;
    try {
      const pending = grpc.run({ functionName: 'late', step: 'compose', request: { input: { ttlSeconds: 3 } } });
      fn = await startFunction(undefined, port);
      const rsp = await pending;
      expect(rsp.meta?.ttlMs).to.equal(3000);
    } finally {
      grpc.close();
      await fn?.stop();
    }
  });

  it('fails the pipeline with a FunctionCallError, so nothing is applied, when the process has stopped', async () => {
    const fn = await startFunction();
    const grpc = new GrpcFunctionRunner({
      resolveEndpoint: staticEndpointResolver({ probe: fn.endpoint }),
      credentials: insecureCredentials(),
      timeoutMs: 3_000,
      attempts: 1,
    });
    try {
      await fn.stop();
      let thrown: unknown;
      await runPipeline({ steps: [step('s', {})], observed }, { runner: grpc }).catch((e: unknown) => {
        thrown = e;
      });
      expect(thrown).to.be.instanceOf(FunctionCallError);
      const err = thrown as FunctionCallError;
      expect([err.functionName, err.step]).to.deep.equal(['probe', 's']);
      expect(err.message).to.match(/^cannot run function "probe" for pipeline step "s": cannot call /);
    } finally {
      grpc.close();
    }
  });
});

describe('compositor render with a function at its development target', function () {
  this.timeout(30_000);
  let fn: FunctionProcess;
  before(async () => {
    fn = await startFunction();
  });
  after(async () => {
    await fn.stop();
  });

  it('calls the running function over gRPC and the built-ins in-process, in pipeline order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'compositor-render-'));
    const functions = join(dir, 'functions.yaml');
    writeFileSync(
      functions,
      stringify({
        apiVersion: 'pkg.crossplane.io/v1',
        kind: 'Function',
        metadata: { name: 'probe', annotations: { [DEVELOPMENT_TARGET_ANNOTATION]: fn.endpoint } },
        spec: { package: 'xpkg.crossplane.io/acme/function-probe:v1' },
      }) +
        '---\n' +
        readFileSync(join(packageRoot(), 'examples', '00-function.yaml'), 'utf8'),
    );
    const composition = parse(readFileSync(join(packageRoot(), 'examples', '20-composition.yaml'), 'utf8')) as {
      spec: { pipeline: unknown[] };
    };
    composition.spec.pipeline.unshift({
      step: 'probe',
      functionRef: { name: 'probe' },
      input: { resources: ['extra'], results: [{ severity: 'WARNING', message: 'from the probe' }] },
    });
    const compositionFile = join(dir, 'composition.yaml');
    writeFileSync(compositionFile, stringify(composition));
    let stdout = '';
    let stderr = '';
    const code = await runRender(
      {
        xr: join(packageRoot(), 'examples', '30-app.yaml'),
        composition: compositionFile,
        functions,
        includeFunctionResults: true,
        includeContext: false,
        timeoutMs: 10_000,
      },
      { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    );
    expect(stderr).to.equal('');
    expect(code).to.equal(0);
    const docs = parseAllDocuments(stdout).map(
      (d) => d.toJS() as { kind: string; metadata?: { annotations?: Record<string, string> } },
    );
    const names = docs.map(
      (d) => `${d.kind}/${d.metadata?.annotations?.['crossplane.io/composition-resource-name'] ?? ''}`,
    );
    expect(names.slice(0, 3)).to.deep.equal(['App/', 'ConfigMap/extra', 'ConfigMap/settings']);
    // As crank v2.3 prints them: the reconciler's events in the order it recorded them, the function's result
    // among them, each a Result with the event's type as its severity.
    const results = (
      docs.slice(3) as unknown as { kind: string; severity: string; reason: string; message: string }[]
    ).map((r) => `${r.kind} ${r.severity} ${r.reason}: ${r.message}`);
    expect(results).to.deep.equal([
      'Result Normal SelectComposition: Successfully selected composition: apps.example.compositor.crossplane.io',
      'Result Warning ComposeResources: Pipeline step "probe": from the probe',
      'Result Normal ComposeResources: Composed resource "extra" is not yet ready',
      'Result Normal ComposeResources: Composed resource "settings" is not yet ready',
    ]);
  });
});
