// A function asking for more than the engine fetches: a selector matching a whole cluster, thousands of selectors,
// required resources nested past what the engine walks. Each fails the call with a message saying which bound.
import { expect } from 'chai';
import {
  FunctionCallError,
  MAX_REQUIRED_RESOURCES,
  MAX_REQUIRED_SELECTORS,
  RequirementsLimitError,
  RequirementsRunner,
  type FunctionCall,
  type JsonObject,
  type RequiredResourceFetcher,
  type Requirements,
  type ResourceSelector,
  type Resources,
  type RunFunctionResponse,
} from '../../../src/functions/index.js';

const ALL_CONFIGMAPS: ResourceSelector = { apiVersion: 'v1', kind: 'ConfigMap', matchLabels: { labels: {} } };

/** A function that asks for `requirements` on every call. */
function asking(requirements: Requirements): { calls: number; run: (c: FunctionCall) => Promise<RunFunctionResponse> } {
  const fn = {
    calls: 0,
    run: (): Promise<RunFunctionResponse> => {
      fn.calls++;
      return Promise.resolve({ requirements });
    },
  };
  return fn;
}

/** A cluster with `count` ConfigMaps; records the maxItems each fetch was given and serves at most maxItems + 1. */
function cluster(count: number): RequiredResourceFetcher & { asked: (number | undefined)[] } {
  const asked: (number | undefined)[] = [];
  return {
    asked,
    fetchResources: (_selector, maxItems): Promise<Resources> => {
      asked.push(maxItems);
      const served = Math.min(count, maxItems === undefined ? count : maxItems + 1);
      const items = Array.from({ length: served }, (_, i) => ({
        resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } },
      }));
      return Promise.resolve({ items });
    },
    fetchSchema: () => Promise.resolve({}),
  };
}

async function failure(runner: RequirementsRunner): Promise<Error> {
  const err = await runner.run({ functionName: 'f', step: 's', request: {} }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Error)) throw new Error('expected the call to fail');
  return err;
}

describe('functions/requirements loop bounds', () => {
  it('refuses a selector matching more objects than one call takes, having listed one page past the bound', async () => {
    const fetcher = cluster(100_000);
    const fn = asking({ resources: { all: ALL_CONFIGMAPS } });
    const started = performance.now();
    const err = await failure(new RequirementsRunner(fn, fetcher));
    expect(performance.now() - started).to.be.below(5000);
    expect(err).to.be.instanceOf(FunctionCallError);
    expect(err.cause).to.be.instanceOf(RequirementsLimitError);
    expect(err.message).to.equal(
      `cannot run function "f" for pipeline step "s": cannot fetch required resources: required resources "all" (ConfigMap v1) bring the objects of one call past ${MAX_REQUIRED_RESOURCES}: select fewer with matchLabels or a namespace`,
    );
    expect(fetcher.asked).to.deep.equal([MAX_REQUIRED_RESOURCES]);
    expect(fn.calls).to.equal(1);
  });

  it('counts every selector of a call against one budget', async () => {
    const fetcher = cluster(600);
    const fn = asking({ resources: { first: ALL_CONFIGMAPS, second: ALL_CONFIGMAPS } });
    const err = await failure(new RequirementsRunner(fn, fetcher));
    expect(err.message).to.include('required resources "second"');
    expect(fetcher.asked).to.deep.equal([MAX_REQUIRED_RESOURCES, MAX_REQUIRED_RESOURCES - 600]);
  });

  it('serves exactly the bound', async () => {
    const fetcher = cluster(MAX_REQUIRED_RESOURCES);
    const fn = asking({ resources: { all: ALL_CONFIGMAPS } });
    await new RequirementsRunner(fn, fetcher).run({ functionName: 'f', request: {} });
    expect(fn.calls).to.equal(2);
  });

  it('refuses thousands of selectors before fetching any', async () => {
    const fetcher = cluster(1);
    const resources: Record<string, ResourceSelector> = {};
    for (let i = 0; i < 10_000; i++) resources[`r${i}`] = { apiVersion: 'v1', kind: 'ConfigMap', matchName: `cm-${i}` };
    const err = await failure(new RequirementsRunner(asking({ resources }), fetcher));
    expect(err.message).to.equal(
      `cannot run function "f" for pipeline step "s": cannot fetch required resources: asked for 10000 required resource selectors, more than ${MAX_REQUIRED_SELECTORS}`,
    );
    expect(fetcher.asked).to.deep.equal([]);
  });

  it('refuses a required resource nested deeper than the engine walks', async () => {
    let deep: JsonObject = { leaf: true };
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const fetcher: RequiredResourceFetcher = {
      fetchResources: () =>
        Promise.resolve({ items: [{ resource: { apiVersion: 'v1', kind: 'ConfigMap', data: deep } }] }),
      fetchSchema: () => Promise.resolve({}),
    };
    const err = await failure(new RequirementsRunner(asking({ resources: { cm: ALL_CONFIGMAPS } }), fetcher));
    expect(err.message).to.match(
      /cannot fetch required resources: required resource "cm" nests deeper than 512 levels of objects and arrays \(at data\.a\.a\.a\.a\.a…\)$/,
    );
  });
});
