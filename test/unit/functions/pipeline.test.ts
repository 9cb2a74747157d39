import { expect } from 'chai';
import {
  builtinFunctions,
  DEFAULT_BUILTIN_POLICY,
  PipelineFatalError,
  RoutingRunner,
  runPipeline,
  type FunctionCall,
  type JsonObject,
  type PipelineStep,
  type RunFunctionResponse,
} from '../../../src/functions/index.js';

const PACKAGES: Record<string, string> = {
  pt: 'xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8',
  ready: 'xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0',
  other: 'xpkg.crossplane.io/acme/function-other:v1',
};

const XR: JsonObject = {
  apiVersion: 'example.crossplane.io/v1',
  kind: 'App',
  metadata: { name: 'example', namespace: 'default' },
  spec: { image: 'nginx', crossplane: {} },
};

const PT_INPUT: JsonObject = {
  apiVersion: 'pt.fn.crossplane.io/v1beta1',
  kind: 'Resources',
  resources: [
    {
      name: 'settings',
      base: { apiVersion: 'v1', kind: 'ConfigMap' },
      patches: [{ fromFieldPath: 'spec.image', toFieldPath: 'data.image' }],
    },
  ],
};

function steps(ptInput: JsonObject = PT_INPUT): PipelineStep[] {
  return [
    { step: 'patch-and-transform', functionRef: { name: 'pt' }, input: ptInput },
    { step: 'auto-ready', functionRef: { name: 'ready' } },
  ];
}

function router(remoteCalls: FunctionCall[], enabled = true, dropBuiltinTtl = false): RoutingRunner {
  return new RoutingRunner({
    dropBuiltinTtl,
    builtins: builtinFunctions(),
    functionOf: (name) => Promise.resolve({ metadata: {}, spec: { package: PACKAGES[name] } }),
    remote: {
      run: (call): Promise<RunFunctionResponse> => {
        remoteCalls.push(call);
        return Promise.resolve({ desired: call.request.desired ?? {} });
      },
    },
    policy: { ...DEFAULT_BUILTIN_POLICY, enabled },
  });
}

describe('functions/pipeline with the built-ins', () => {
  it('runs patch-and-transform then auto-ready in-process, passing desired state and context along', async () => {
    const remote: FunctionCall[] = [];
    const observed = {
      composite: { resource: XR },
      resources: { settings: { resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'example-abc' } } } },
    };
    const out = await runPipeline({ steps: steps(), observed }, { runner: router(remote) });
    expect(remote).to.deep.equal([]);
    expect(out.desired.resources).to.deep.equal({
      settings: {
        resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'example-abc' }, data: { image: 'nginx' } },
        // P&T leaves readiness to auto-ready: a ConfigMap is ready once it exists.
        ready: 'READY_TRUE',
      },
    });
    expect(out.context).to.deep.equal({
      'apiextensions.crossplane.io/environment': { apiVersion: 'internal.crossplane.io/v1alpha1', kind: 'Environment' },
    });
    expect(out.ttlMs).to.equal(60_000);
    expect(out.events).to.deep.equal([]);
  });

  it("keeps a built-in's TTL (60 s, the SDK default) unless the engine drops it", async () => {
    const observed = { composite: { resource: XR } };
    const kept = await runPipeline({ steps: steps(), observed }, { runner: router([]) });
    expect(kept.ttlMs).to.equal(60_000);
    const dropped = await runPipeline({ steps: steps(), observed }, { runner: router([], true, true) });
    expect(dropped.ttlMs, 'no requeue for built-ins').to.equal(undefined);
  });

  it('calls the real functions over the remote runner when --builtin-functions=false', async () => {
    const remote: FunctionCall[] = [];
    await runPipeline({ steps: steps(), observed: { composite: { resource: XR } } }, { runner: router(remote, false) });
    expect(remote.map((c) => [c.functionName, c.step])).to.deep.equal([
      ['pt', 'patch-and-transform'],
      ['ready', 'auto-ready'],
    ]);
    expect(remote[0]?.request.meta?.tag).to.match(/^[0-9a-f]{64}$/);
  });

  it('stops at a FATAL result from patch-and-transform, so auto-ready never runs', async () => {
    const remote: FunctionCall[] = [];
    let thrown: unknown;
    await runPipeline(
      {
        steps: steps({ apiVersion: 'pt.fn.crossplane.io/v1beta1', kind: 'Resources' }),
        observed: { composite: { resource: XR } },
      },
      { runner: router(remote) },
    ).catch((err: unknown) => (thrown = err));
    expect(thrown).to.be.instanceOf(PipelineFatalError);
    expect((thrown as PipelineFatalError).step).to.equal('patch-and-transform');
    expect((thrown as Error).message).to.equal(
      'pipeline step "patch-and-transform" returned a fatal result: invalid Function input: resources: Required value: resources or environment patches are required',
    );
  });

  it('turns a warning into a Warning event carrying the function message', async () => {
    const input = structuredClone(PT_INPUT);
    (input.resources as JsonObject[])[0] = {
      name: 'settings',
      base: { apiVersion: 'v1', kind: 'ConfigMap' },
      readinessChecks: [{ type: 'MatchString', fieldPath: 'data..x', matchString: 'y' }],
    };
    const observed = { composite: { resource: XR }, resources: { settings: { resource: { kind: 'ConfigMap' } } } };
    const out = await runPipeline({ steps: steps(input), observed }, { runner: router([]) });
    expect(out.events.map((e) => [e.type, e.reason, e.detail])).to.deep.equal([
      [
        'Warning',
        'ComposeResources',
        `cannot check readiness of composed resource "settings": cannot run readiness check at index 0: cannot parse path "data..x": unexpected '.' at position 5`,
      ],
    ]);
  });

  it("passes a step's timeout to the runner and fails an invalid one naming the step", async () => {
    const calls: FunctionCall[] = [];
    const timed: PipelineStep[] = [{ step: 'slow', functionRef: { name: 'other' }, timeout: '1m30s' }];
    await runPipeline({ steps: timed, observed: { composite: { resource: XR } } }, { runner: router(calls) });
    expect(calls.map((c) => c.timeoutMs)).to.deep.equal([90_000]);

    for (const timeout of ['soon', '0s', 5 as unknown as string]) {
      const invalid: PipelineStep[] = [{ step: 'slow', functionRef: { name: 'other' }, timeout }];
      let thrown: unknown;
      await runPipeline({ steps: invalid, observed: { composite: { resource: XR } } }, { runner: router([]) }).catch(
        (e: unknown) => (thrown = e),
      );
      expect((thrown as Error | undefined)?.message).to.equal(
        `cannot run function "other" for pipeline step "slow": invalid timeout ${JSON.stringify(timeout)}: use a positive duration such as 10s or 1m30s`,
      );
    }
  });

  it('fails a step whose Secret credentials do not exist, naming the step', async () => {
    const step: PipelineStep = {
      step: 'needs-creds',
      functionRef: { name: 'other' },
      credentials: [{ name: 'creds', source: 'Secret', secretRef: { namespace: 'ns', name: 'gone' } }],
    };
    let thrown: unknown;
    await runPipeline(
      { steps: [step], observed: {} },
      { runner: router([]), getSecret: () => Promise.resolve(undefined) },
    ).catch((err: unknown) => (thrown = err));
    expect((thrown as Error).message).to.equal(
      'cannot get credentials "creds" of pipeline step "needs-creds": Secret ns/gone not found',
    );
  });
});
