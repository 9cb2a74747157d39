import { expect } from 'chai';
import {
  builtinFunctions,
  DEFAULT_BUILTIN_POLICY,
  nextDependencies,
  requestFromWire,
  requestToWire,
  responseFromWire,
  responseToWire,
  RoutingRunner,
  runFunctionMethod,
  runPipeline,
  type Dependency,
  type FunctionCall,
  type JsonObject,
  type PipelineStep,
  type RunFunctionRequest,
  type RunFunctionResponse,
  type State,
} from '../../../src/functions/index.js';

const edge = (resource: string, composedResource: string): Dependency => ({ resource, composedResource });

describe('functions/codec: dependencies through the real serialisers', () => {
  const method = runFunctionMethod();
  const viaWire = (rsp: RunFunctionResponse): RunFunctionResponse =>
    responseFromWire(method.deserializeResponse(method.serializeResponse(responseToWire(rsp))));

  it('keeps an unset field unset and a set but empty one set', () => {
    expect(viaWire({ desired: {} }).dependencies, 'unset is no opinion').to.equal(undefined);
    expect(viaWire({ dependencies: {} }).dependencies, 'empty is no constraints').to.deep.equal({ items: [] });
    expect(viaWire({ dependencies: { items: [] } }).dependencies).to.deep.equal({ items: [] });
  });

  it('round-trips both kinds of target and the create-before-destroy flag, without proto-loader virtual fields', () => {
    const dependencies = {
      items: [
        { resource: 'subnet', composedResource: 'vpc' },
        { resource: 'db', composedResource: 'old-db', createResourceBeforeDestroyingDependency: true },
        { resource: 'app', requiredResource: { requirementName: 'shared', name: 'net', namespace: 'infra' } },
        { resource: 'app', requiredResource: { requirementName: 'all' } },
      ],
    };
    expect(viaWire({ dependencies }).dependencies).to.deep.equal(dependencies);
    const req: RunFunctionRequest = { dependencies };
    const back = requestFromWire(method.deserializeRequest(method.serializeRequest(requestToWire(req))));
    expect(back).to.deep.equal(req);
  });

  it('reads the field from a response encoded by hand at field number 8 (the prototype wire contract)', () => {
    // RunFunctionResponse.dependencies = 8 (0x42), Dependencies.items = 1 (0x0a), Dependency.resource = 1 (0x0a),
    // Dependency.composed_resource = 2 (0x12).
    const dependency = Buffer.from([0x0a, 0x01, 0x61, 0x12, 0x01, 0x62]);
    const items = Buffer.concat([Buffer.from([0x0a, dependency.length]), dependency]);
    const bytes = Buffer.concat([Buffer.from([0x42, items.length]), items]);
    expect(responseFromWire(method.deserializeResponse(bytes)).dependencies).to.deep.equal({
      items: [{ resource: 'a', composedResource: 'b' }],
    });
  });
});

describe('functions/nextDependencies', () => {
  const observed: State = { resources: { vpc: {}, subnet: {}, old: {} } };
  const cases: Record<
    string,
    { reason: string; previous: Dependency[]; response: RunFunctionResponse; want: Dependency[] }
  > = {
    unset: {
      reason: 'a step without an opinion carries the set forward',
      previous: [edge('subnet', 'vpc')],
      response: { desired: { resources: {} } },
      want: [edge('subnet', 'vpc')],
    },
    replaced: {
      reason: 'a step with an opinion returns the whole set',
      previous: [edge('subnet', 'vpc')],
      response: { desired: { resources: { vpc: {}, subnet: {} } }, dependencies: { items: [edge('app', 'subnet')] } },
      want: [edge('app', 'subnet')],
    },
    emptied: {
      reason: 'a step may drop every constraint whose target it still desires',
      previous: [edge('subnet', 'vpc')],
      response: { desired: { resources: { vpc: {}, subnet: {} } }, dependencies: {} },
      want: [],
    },
    retained: {
      reason: 'an edge to a resource dropped from desired but still observed is kept: its deletion is pending',
      previous: [edge('subnet', 'old'), edge('subnet', 'vpc')],
      response: { desired: { resources: { subnet: {}, vpc: {} } }, dependencies: { items: [] } },
      want: [edge('subnet', 'old')],
    },
    notObserved: {
      reason: 'an edge to a resource neither desired nor observed is not kept',
      previous: [edge('subnet', 'gone')],
      response: { desired: { resources: { subnet: {} } }, dependencies: { items: [] } },
      want: [],
    },
    noDuplicate: {
      reason: 'an edge the step kept is not added twice',
      previous: [edge('subnet', 'old')],
      response: { desired: { resources: {} }, dependencies: { items: [edge('subnet', 'old')] } },
      want: [edge('subnet', 'old')],
    },
    prototypeKeys: {
      reason: 'names are compared as own keys, never through the prototype chain',
      previous: [edge('subnet', 'constructor')],
      response: { desired: { resources: {} }, dependencies: { items: [] } },
      want: [],
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      expect(nextDependencies(c.previous, c.response, observed), c.reason).to.deep.equal(c.want);
    });
  }
});

const XR: JsonObject = { apiVersion: 'example.org/v1', kind: 'XApp', metadata: { name: 'x' }, spec: {} };

/** A remote function per name: `declare` returns the given set, `silent` leaves it unset, as a function built
 * before the field existed does. Every call is recorded. */
function runner(calls: FunctionCall[], sets: Record<string, Dependency[]>): RoutingRunner {
  return new RoutingRunner({
    builtins: builtinFunctions(),
    functionOf: (name) =>
      Promise.resolve({
        metadata: {},
        spec: {
          package:
            name === 'ready'
              ? 'xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0'
              : `xpkg.crossplane.io/acme/${name}:v1`,
        },
      }),
    policy: DEFAULT_BUILTIN_POLICY,
    remote: {
      run: (call): Promise<RunFunctionResponse> => {
        calls.push(call);
        const rsp: RunFunctionResponse = { desired: call.request.desired ?? {} };
        const set = sets[call.functionName];
        if (set !== undefined) rsp.dependencies = { items: set };
        return Promise.resolve(rsp);
      },
    },
  });
}

const steps = (...names: string[]): PipelineStep[] => names.map((name) => ({ step: name, functionRef: { name } }));

describe('functions/pipeline with ordering', () => {
  it('sends each step the set so far, carries it past steps without an opinion, including a built-in', async () => {
    const calls: FunctionCall[] = [];
    const sets = { first: [edge('b', 'a')], third: [edge('b', 'a'), edge('c', 'b')] };
    const out = await runPipeline(
      {
        steps: steps('first', 'silent', 'ready', 'third', 'silent'),
        observed: { composite: { resource: XR } },
        ordering: true,
      },
      { runner: runner(calls, sets) },
    );
    // The built-in auto-ready ran in-process (it is not among the remote calls) and left the field unset.
    expect(calls.map((c) => c.functionName)).to.deep.equal(['first', 'silent', 'third', 'silent']);
    expect(calls.map((c) => c.request.dependencies)).to.deep.equal([
      { items: [] },
      { items: [edge('b', 'a')] },
      { items: [edge('b', 'a')] },
      { items: [edge('b', 'a'), edge('c', 'b')] },
    ]);
    expect(calls[0]?.request.meta?.capabilities).to.include('CAPABILITY_DEPENDENCIES');
    expect(out.dependencies).to.deep.equal([edge('b', 'a'), edge('c', 'b')]);
  });

  it('digests the dependencies into the request tag, so a cached response never answers another set', async () => {
    const tags: string[] = [];
    for (const set of [[edge('b', 'a')], [edge('c', 'a')]]) {
      const calls: FunctionCall[] = [];
      await runPipeline(
        { steps: steps('first', 'silent'), observed: { composite: { resource: XR } }, ordering: true },
        { runner: runner(calls, { first: set }) },
      );
      tags.push(calls[1]?.request.meta?.tag ?? '');
    }
    expect(tags[0]).to.not.equal(tags[1]);
  });

  it('neither sends, advertises nor reads the field with ordering off', async () => {
    const calls: FunctionCall[] = [];
    const out = await runPipeline(
      { steps: steps('first', 'silent'), observed: { composite: { resource: XR } } },
      { runner: runner(calls, { first: [edge('b', 'a')] }) },
    );
    expect(calls.map((c) => c.request.dependencies)).to.deep.equal([undefined, undefined]);
    expect(calls[0]?.request.meta?.capabilities).to.not.include('CAPABILITY_DEPENDENCIES');
    expect(out.dependencies).to.equal(undefined);
  });
});
