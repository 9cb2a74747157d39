import { expect } from 'chai';
import {
  DependencyCycleError,
  orderedRefs,
  graphOf,
  planCompose,
  planTeardown,
  type PresentResource,
} from '../../../../src/composite/ordering/index.js';
import type { ResourceRef } from '../../../../src/composite/xr.js';
import type { Dependency } from '../../../../src/functions/index.js';

const on = (resource: string, composedResource: string): Dependency => ({ resource, composedResource });
const present = (...names: string[]): Map<string, PresentResource> => new Map(names.map((n) => [n, { metadata: {} }]));
const ref = (name: string): ResourceRef => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `x-${name}` });

describe('composite/ordering planCompose', () => {
  it('applies what may be created or exists, references only that and what is still there', () => {
    const plan = planCompose({
      desired: [
        { name: 'vpc', ready: false },
        { name: 'subnet', ready: false },
      ],
      observed: present('vpc', 'old'),
      dependencies: [on('subnet', 'vpc'), on('old', 'vpc'), on('subnet', 'typo')],
    });
    expect([...plan.apply]).to.deep.equal(['vpc']);
    expect([...plan.referenced].sort()).to.deep.equal(['old', 'vpc']);
    expect([...plan.deletable]).to.deep.equal(['old']);
    expect(plan.held.map((h) => `${h.resource} ${h.reason}`)).to.deep.equal(['subnet waits on vpc']);
    expect(plan.pruned.map((e) => e.dependsOn)).to.deep.equal(['typo']);
  });

  it('defers a garbage collection until what depends on it is gone, keeping it referenced', () => {
    const plan = planCompose({
      desired: [],
      observed: present('vpc', 'subnet'),
      dependencies: [on('subnet', 'vpc')],
    });
    expect([...plan.deletable]).to.deep.equal(['subnet']);
    expect([...plan.referenced].sort()).to.deep.equal(['subnet', 'vpc']);
    expect(plan.held.map((h) => h.reason)).to.deep.equal(['waits for subnet to be deleted']);
  });

  it('keeps the persisted order for what the pipeline stopped desiring together with its edges', () => {
    const persisted = graphOf([on('subnet', 'vpc'), on('app', 'subnet')]);
    const plan = planCompose({
      desired: [{ name: 'app', ready: true }],
      observed: present('vpc', 'subnet', 'app'),
      dependencies: [],
      persisted,
    });
    // subnet -> vpc is kept (subnet is going); app -> subnet is the pipeline's to retract (app stays).
    expect([...plan.deletable]).to.deep.equal(['subnet']);
    expect(plan.held.map((h) => `${h.resource} ${h.reason}`)).to.deep.equal(['vpc waits for subnet to be deleted']);
  });

  it('fails the pass on a cycle, so nothing is applied or deleted', () => {
    expect(() =>
      planCompose({
        desired: [
          { name: 'a', ready: true },
          { name: 'b', ready: true },
        ],
        observed: present(),
        dependencies: [on('a', 'b'), on('b', 'a')],
      }),
    ).to.throw(DependencyCycleError);
  });
});

describe('composite/ordering planTeardown', () => {
  const graph = graphOf([on('release', 'cluster'), on('app', 'release')]);
  const refs = orderedRefs(
    ['cluster', 'release', 'app'].map((name) => ({ ref: ref(name), name })),
    graph,
  );

  it('tears down from resourceRefs alone, the first wave first, and says what the rest wait for', () => {
    const plan = planTeardown(refs, present('cluster', 'release', 'app'));
    expect([...plan.deletable]).to.deep.equal(['app']);
    expect(plan.waves).to.deep.equal([['app'], ['release'], ['cluster']]);
    expect(plan.held.map((h) => `${h.resource} ${h.reason}`)).to.deep.equal([
      'cluster waits for release to be deleted',
      'release waits for app to be deleted',
    ]);
  });

  it('goes on once a wave is gone', () => {
    expect([...planTeardown(refs, present('cluster', 'release')).deletable]).to.deep.equal(['release']);
  });

  it('deletes at once what was referenced without graph data (ordering off, or an earlier release)', () => {
    const plan = planTeardown([...refs, ref('legacy')], present('cluster', 'release', 'app', 'legacy'));
    expect([...plan.deletable]).to.deep.equal(['app', 'legacy']);
  });

  it('refuses a cycle written into resourceRefs: nothing is deleted', () => {
    const cyclic = [
      { ...ref('a'), resourceName: 'a', dependsOn: ['b'] },
      { ...ref('b'), resourceName: 'b', dependsOn: ['a'] },
    ];
    expect(() => planTeardown(cyclic, present('a', 'b'))).to.throw(DependencyCycleError);
  });
});
