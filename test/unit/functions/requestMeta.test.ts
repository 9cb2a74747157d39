import { expect } from 'chai';
import {
  builtinFunctions,
  RoutingRunner,
  runPipeline,
  type FunctionCall,
  type PipelineStep,
  type RunFunctionResponse,
} from '../../../src/functions/index.js';
import { digest } from '../../../src/functions/hash.js';

// What every RunFunctionRequest carries besides the state (Crossplane v2.3's compositions page): the capabilities
// compositor advertises, and a step's Secret credentials.
function remoteRunner(calls: FunctionCall[]): RoutingRunner {
  return new RoutingRunner({
    dropBuiltinTtl: false,
    builtins: builtinFunctions(),
    functionOf: () => Promise.resolve({ metadata: {}, spec: { package: 'xpkg.crossplane.io/acme/function-other:v1' } }),
    remote: {
      run: (call): Promise<RunFunctionResponse> => {
        calls.push(call);
        return Promise.resolve({ desired: call.request.desired ?? {} });
      },
    },
  });
}

describe('functions/pipeline request meta and credentials', () => {
  it("advertises every capability of Crossplane v2.3's protocol", async () => {
    const calls: FunctionCall[] = [];
    await runPipeline(
      { steps: [{ step: 'one', functionRef: { name: 'other' } }], observed: {} },
      { runner: remoteRunner(calls) },
    );
    expect(calls[0]?.request.meta?.capabilities).to.have.members([
      'CAPABILITY_CAPABILITIES',
      'CAPABILITY_REQUIRED_RESOURCES',
      'CAPABILITY_CREDENTIALS',
      'CAPABILITY_CONDITIONS',
      'CAPABILITY_REQUIRED_SCHEMAS',
    ]);
  });

  it("passes a step's Secret credentials to the function, decoded", async () => {
    const calls: FunctionCall[] = [];
    const step: PipelineStep = {
      step: 'with-creds',
      functionRef: { name: 'other' },
      credentials: [{ name: 'creds', source: 'Secret', secretRef: { namespace: 'ns', name: 'token' } }],
    };
    const getSecret = (): Promise<Record<string, string>> =>
      Promise.resolve({ token: Buffer.from('s3cret').toString('base64') });
    await runPipeline({ steps: [step], observed: {} }, { runner: remoteRunner(calls), getSecret });
    const data = calls[0]?.request.credentials?.creds?.credentialData?.data ?? {};
    expect(Buffer.from(data.token ?? new Uint8Array()).toString()).to.equal('s3cret');
  });

  it('tags each request with the digest of the request before its meta, as Crossplane does, equal for equal requests', async () => {
    const calls: FunctionCall[] = [];
    const steps: PipelineStep[] = [
      { step: 'one', functionRef: { name: 'other' } },
      { step: 'two', functionRef: { name: 'other' } },
    ];
    const observed = { composite: { resource: { apiVersion: 'example.org/v1', kind: 'XR', metadata: { name: 'a' } } } };
    await runPipeline({ steps, observed }, { runner: remoteRunner(calls) });
    await runPipeline({ steps, observed }, { runner: remoteRunner(calls) });
    const tags = calls.map((c) => c.request.meta?.tag);
    for (const [i, call] of calls.entries()) {
      const { meta: _meta, ...rest } = call.request;
      expect(tags[i], `call ${i}`).to.match(/^[0-9a-f]{64}$/);
      expect(tags[i], `call ${i}`).to.equal(digest(rest));
    }
    expect(tags[2]).to.equal(tags[0]);
    expect(tags[3]).to.equal(tags[1]);
    // What a function reached over the wire gets: the tag is an ordinary property once read.
    expect(JSON.parse(JSON.stringify(calls[0]?.request.meta))).to.have.property('tag', tags[0]);
  });

  it("echoes the request's tag in a built-in's response, as the SDK's response.To does", async () => {
    const responses: RunFunctionResponse[] = [];
    const runner = new RoutingRunner({
      dropBuiltinTtl: false,
      builtins: builtinFunctions(),
      functionOf: () =>
        Promise.resolve({
          metadata: {},
          spec: { package: 'xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0' },
        }),
      remote: { run: () => Promise.reject(new Error('not remote')) },
    });
    const calls: FunctionCall[] = [];
    await runPipeline(
      { steps: [{ step: 'ready', functionRef: { name: 'auto-ready' } }], observed: {} },
      {
        runner: {
          run: async (call) => {
            calls.push(call);
            const rsp = await runner.run(call);
            responses.push(rsp);
            return rsp;
          },
        },
      },
    );
    expect(responses[0]?.meta?.tag)
      .to.equal(calls[0]?.request.meta?.tag)
      .and.to.match(/^[0-9a-f]{64}$/);
  });
});
