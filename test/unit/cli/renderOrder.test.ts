import { expect } from 'chai';
import { orderDocument } from '../../../src/cli/renderOrder.js';
import { DependencyCycleError } from '../../../src/composite/ordering/index.js';
import type { JsonObject, PipelineOutput } from '../../../src/functions/index.js';

function output(ready: string[], dependencies: PipelineOutput['dependencies']): PipelineOutput {
  const names = ['cluster', 'release', 'app', 'monitoring'];
  return {
    desired: {
      resources: Object.fromEntries(
        names.map((n) => [n, { resource: {}, ...(ready.includes(n) ? { ready: 'READY_TRUE' as const } : {}) }]),
      ),
    },
    context: undefined,
    events: [],
    conditions: [],
    ttlMs: undefined,
    requirements: {},
    outputs: [],
    ...(dependencies === undefined ? {} : { dependencies }),
  };
}

const PAIRS = [
  { resource: 'release', composedResource: 'cluster' },
  { resource: 'app', composedResource: 'release' },
  { resource: 'monitoring', composedResource: 'cluster' },
];

describe('cli/renderOrder: compositor render --include-order', () => {
  it('prints the dependencies, both sets of waves, and what waits given the observed resources', () => {
    const observed = new Map<string, JsonObject>([['cluster', {}]]);
    expect(orderDocument(output(['cluster'], PAIRS), observed, 'render.crossplane.io/v1beta1')).to.deep.equal({
      apiVersion: 'render.crossplane.io/v1beta1',
      kind: 'Order',
      dependencies: [
        { resource: 'app', dependsOn: ['release'] },
        { resource: 'monitoring', dependsOn: ['cluster'] },
        { resource: 'release', dependsOn: ['cluster'] },
      ],
      createWaves: [['cluster'], ['monitoring', 'release'], ['app']],
      deleteWaves: [['app', 'monitoring'], ['release'], ['cluster']],
      waiting: [{ resource: 'app', reason: 'waits on release' }],
    });
  });

  it('prints one wave of everything when no function declared dependencies', () => {
    const doc = orderDocument(output([], undefined), new Map(), 'v');
    expect(doc.createWaves).to.deep.equal([['app', 'cluster', 'monitoring', 'release']]);
    expect(doc.dependencies).to.deep.equal([]);
  });

  it('fails on a cycle, naming it, as the engine would', () => {
    const cyclic = [...PAIRS, { resource: 'cluster', composedResource: 'app' }];
    expect(() => orderDocument(output([], cyclic), new Map(), 'v')).to.throw(DependencyCycleError);
  });
});
