import { expect } from 'chai';
import {
  builtinFunctions,
  RoutingRunner,
  runPipeline,
  type FunctionCall,
  type PipelineStep,
  type RunFunctionResponse,
} from '../../../src/functions/index.js';

// What every RunFunctionRequest carries besides the state (Crossplane v2.3's compositions page): the capabilities
// compositor advertises, and a step's Secret credentials.
function remoteRunner(calls: FunctionCall[]): RoutingRunner {
  return new RoutingRunner({
    dropBuiltinTtl: false,
    builtins: builtinFunctions(),
    packageOf: () => Promise.resolve('xpkg.crossplane.io/acme/function-other:v1'),
    remote: {
      run: (call): Promise<RunFunctionResponse> => {
        calls.push(call);
        return Promise.resolve({ desired: call.request.desired ?? {} });
      },
    },
    enabled: true,
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
});
