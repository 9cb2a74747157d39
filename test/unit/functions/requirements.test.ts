import { expect } from 'chai';
import {
  FunctionCallError,
  RequirementsRunner,
  type FunctionCall,
  type RequiredResourceFetcher,
  type Resources,
  type RunFunctionResponse,
} from '../../../src/functions/index.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' } };
const REQUIRE_CM = { resources: { cm: { apiVersion: 'v1', kind: 'ConfigMap', matchName: 'settings' } } };

/** A function that always requires the ConfigMap, recording what each call was sent. */
function requiring(
  calls: FunctionCall[],
  fatalOnFirst = false,
): { run: (c: FunctionCall) => Promise<RunFunctionResponse> } {
  return {
    run: (call) => {
      calls.push(call);
      if (fatalOnFirst) return Promise.resolve({ results: [{ severity: 'SEVERITY_FATAL', message: 'no' }] });
      return Promise.resolve({ requirements: REQUIRE_CM, context: { n: calls.length } });
    },
  };
}

const fetcher: RequiredResourceFetcher = {
  fetchResources: (): Promise<Resources> => Promise.resolve({ items: [{ resource: CM }] }),
  fetchSchema: () => Promise.resolve({}),
};

describe('functions/requirements loop', () => {
  it('calls again with what the function required and the context it returned, then stops when stable', async () => {
    const calls: FunctionCall[] = [];
    await new RequirementsRunner(requiring(calls), fetcher).run({ functionName: 'f', request: {} });
    expect(calls).to.have.length(2);
    expect(calls[1]?.request.requiredResources).to.deep.equal({ cm: { items: [{ resource: CM }] } });
    expect(calls[1]?.request.context).to.deep.equal({ n: 1 });
  });

  it('answers after one call when the request was already seeded with what the function requires', async () => {
    const calls: FunctionCall[] = [];
    const request = { requiredResources: { cm: { items: [{ resource: CM }] } } };
    await new RequirementsRunner(requiring(calls), fetcher).run({ functionName: 'f', request });
    expect(calls).to.have.length(1);
  });

  it('returns a FATAL response at once, without fetching', async () => {
    const calls: FunctionCall[] = [];
    const rsp = await new RequirementsRunner(requiring(calls, true), fetcher).run({ functionName: 'f', request: {} });
    expect(calls).to.have.length(1);
    expect(rsp.results?.[0]?.severity).to.equal('SEVERITY_FATAL');
  });

  it('names function and step when a required resource cannot be fetched', async () => {
    const failing: RequiredResourceFetcher = {
      fetchResources: () => Promise.reject(new Error('forbidden')),
      fetchSchema: () => Promise.resolve({}),
    };
    let thrown: unknown;
    await new RequirementsRunner(requiring([]), failing)
      .run({ functionName: 'f', step: 's', request: {} })
      .catch((err: unknown) => (thrown = err));
    expect(thrown).to.be.instanceOf(FunctionCallError);
    expect((thrown as Error).message).to.equal(
      'cannot run function "f" for pipeline step "s": cannot fetch required resources: forbidden',
    );
  });

  it("fetches the step's declared requirements and sends them on the first call (bootstrap requirements)", async () => {
    const calls: FunctionCall[] = [];
    const asked: unknown[] = [];
    const recording: RequiredResourceFetcher = {
      fetchResources: (selector) => {
        asked.push(selector);
        return Promise.resolve({ items: [{ resource: CM }] });
      },
      fetchSchema: (selector) => Promise.resolve({ openapiV3: { type: 'object', kind: selector.kind ?? '' } }),
    };
    const bootstrap = {
      requiredResources: [{ requirementName: 'cm', apiVersion: 'v1', kind: 'ConfigMap', name: 'settings' }],
      requiredSchemas: [{ requirementName: 'schema', apiVersion: 'v1', kind: 'ConfigMap' }],
    };
    await new RequirementsRunner(requiring(calls), recording).run({ functionName: 'f', request: {}, bootstrap });
    // The function asks for exactly what was bootstrapped, so one call is enough.
    expect(calls).to.have.length(1);
    expect(asked[0]).to.deep.equal({ apiVersion: 'v1', kind: 'ConfigMap', matchName: 'settings' });
    expect(calls[0]?.request.requiredResources).to.deep.equal({ cm: { items: [{ resource: CM }] } });
    expect(calls[0]?.request.requiredSchemas).to.deep.equal({
      schema: { openapiV3: { type: 'object', kind: 'ConfigMap' } },
    });
  });

  it('keeps bootstrapped resources on later calls, beside what the function asked for', async () => {
    const calls: FunctionCall[] = [];
    const bootstrap = {
      requiredResources: [
        { requirementName: 'env', apiVersion: 'v1', kind: 'ConfigMap', matchLabels: { env: 'prod' }, namespace: 'x' },
      ],
    };
    await new RequirementsRunner(requiring(calls), fetcher).run({ functionName: 'f', request: {}, bootstrap });
    expect(calls).to.have.length(2);
    expect(Object.keys(calls[1]?.request.requiredResources ?? {})).to.have.members(['env', 'cm']);
  });
});
