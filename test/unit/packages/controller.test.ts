import { expect } from 'chai';
import pino from 'pino';
import type { KubeClient, KubeObject } from '../../../src/kube/index.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { FunctionPackageController, type FunctionPackage } from '../../../src/packages/index.js';
import { reconcileLimits } from '../../../src/base/index.js';
import { ReconcileLimiter } from '../../../src/queue/index.js';
import { FakeInformers, until } from '../fakes/index.js';

const FUNCTION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function' };

function fn(name: string, generation = 1): KubeObject {
  return { ...FUNCTION, metadata: { name, generation }, spec: { package: `xpkg.example.org/${name}:v1` } };
}

/**
 * A package controller over fake Function informers whose Functions something else runs (isExternal): a pass then
 * writes nothing and makes no request, and `looked` lists the Functions each pass looked at, in order.
 */
function world(): { informers: FakeInformers; controller: FunctionPackageController; looked: string[] } {
  const informers = new FakeInformers();
  const looked: string[] = [];
  const client = {
    request: () => Promise.reject(new Error('no request is expected: every Function runs elsewhere')),
  } as unknown as KubeClient;
  const controller = new FunctionPackageController({
    client,
    namespace: 'crossplane-system',
    logger: pino({ level: 'silent' }),
    metrics: createMetrics({ processMetrics: false }),
    reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles),
    informers: informers.registry,
    isExternal: (pkg: FunctionPackage) => {
      looked.push(pkg.metadata.name);
      return true;
    },
  });
  return { informers, controller, looked };
}

/** Lets promise callbacks and queued work run; no timer is waited for. */
async function ticks(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('packages/FunctionPackageController', () => {
  it('resolves start once the first pass has looked at every cached Function', async () => {
    const { informers, controller, looked } = world();
    const functions = informers.informer(FUNCTION.apiVersion, FUNCTION.kind);
    functions.seed(fn('function-a'));
    functions.seed(fn('function-b'));
    await controller.start(new AbortController().signal);
    expect(looked, 'one pass over both Functions, even though each arrived as an event').to.deep.equal([
      'function-a',
      'function-b',
    ]);
    await controller.stop(AbortSignal.timeout(1_000));
    expect(informers.held(FUNCTION.apiVersion, FUNCTION.kind), 'the lease is released').to.equal(0);
  });

  it('passes once more on a Function change, and not on a resync', async () => {
    const { informers, controller, looked } = world();
    const functions = informers.informer(FUNCTION.apiVersion, FUNCTION.kind);
    functions.seed(fn('function-a'));
    await controller.start(new AbortController().signal);
    functions.resync(fn('function-a'));
    await ticks();
    expect(looked, 'a resync changes nothing').to.deep.equal(['function-a']);
    functions.update(fn('function-a', 2));
    functions.add(fn('function-b'));
    await until(() => looked.length === 4, 'the passes after the changes');
    await ticks();
    expect(looked, 'the update starts a pass at once; the add, made while it runs, one more after it').to.deep.equal([
      'function-a',
      'function-a',
      'function-a',
      'function-b',
    ]);
    await controller.stop(AbortSignal.timeout(1_000));
  });
});
