import { expect } from 'chai';
import {
  createWaves,
  deleteWaves,
  DependencyCycleError,
  gateDeletes,
  graphOf,
  graphOfRefs,
  orderedRefs,
  type Graph,
  type ResourceState,
} from '../../../../src/composite/ordering/index.js';
import type { ResourceRef } from '../../../../src/composite/xr.js';
import type { Dependency } from '../../../../src/functions/index.js';

const on = (resource: string, composedResource: string): Dependency => ({ resource, composedResource });
const PRESENT: ResourceState = { desired: false, observed: true, ready: true };

/** cluster <- release <- app, and cluster <- monitoring: the Helm release goes before the cluster it runs on. */
const PLATFORM = graphOf([on('release', 'cluster'), on('app', 'release'), on('monitoring', 'cluster')]);

/**
 * Reconciles an XR's deletion until nothing is left: each pass deletes what the gate allows; a deleted object is gone
 * by the next pass unless `stuck` holds it (a finalizer nobody removes). Returns what each pass deleted.
 */
function simulate(graph: Graph, names: string[], stuck: Set<string> = new Set(), passes = 10): string[][] {
  const present = new Set(names);
  const deleting = new Set<string>();
  const out: string[][] = [];
  for (let pass = 0; pass < passes && present.size > 0; pass++) {
    for (const name of deleting) if (!stuck.has(name)) present.delete(name);
    const states = new Map([...present].map((n) => [n, PRESENT] as const));
    const gate = gateDeletes(graph, states, present);
    const fresh = gate.delete.filter((n) => !deleting.has(n));
    for (const n of fresh) deleting.add(n);
    if (fresh.length > 0) out.push(fresh);
  }
  return out;
}

describe('composite/ordering delete order', () => {
  it('tears down in reverse topological waves, one per reconcile', () => {
    expect(simulate(PLATFORM, ['cluster', 'release', 'app', 'monitoring'])).to.deep.equal([
      ['app', 'monitoring'],
      ['release'],
      ['cluster'],
    ]);
    expect(deleteWaves(PLATFORM, ['cluster', 'release', 'app', 'monitoring'])).to.deep.equal([
      ['app', 'monitoring'],
      ['release'],
      ['cluster'],
    ]);
    expect(createWaves(PLATFORM, ['cluster', 'release', 'app', 'monitoring'])).to.deep.equal([
      ['cluster'],
      ['monitoring', 'release'],
      ['app'],
    ]);
  });

  it('holds everything behind a deletion that does not finish, saying what waits for what', () => {
    expect(simulate(PLATFORM, ['cluster', 'release', 'app', 'monitoring'], new Set(['release']))).to.deep.equal([
      ['app', 'monitoring'],
      ['release'],
    ]);
    const states = new Map([
      ['cluster', PRESENT],
      ['release', PRESENT],
    ]);
    expect(gateDeletes(PLATFORM, states, ['cluster', 'release']).held).to.deep.equal([
      { resource: 'cluster', waitsOn: ['release'], reason: 'waits for release to be deleted', deadlocked: false },
    ]);
  });

  it('collects garbage the same way: what the pipeline still desires is kept, a contradiction is reported', () => {
    const states = new Map<string, ResourceState>([
      ['cluster', PRESENT],
      ['release', { desired: true, observed: true, ready: true }],
    ]);
    const gate = gateDeletes(PLATFORM, states, ['cluster']);
    expect(gate.delete).to.deep.equal([]);
    expect(gate.held[0]).to.deep.include({ deadlocked: true, waitsOn: ['release'] });
    expect(gate.held[0]?.reason).to.equal('cannot be deleted: the pipeline still desires release, which depends on it');
  });

  it('deletes what has no graph data at once, as without ordering (references written by an earlier release)', () => {
    const states = new Map([
      ['cluster', PRESENT],
      ['release', PRESENT],
      ['legacy', PRESENT],
    ]);
    expect(gateDeletes(PLATFORM, states, ['cluster', 'release', 'legacy']).delete).to.deep.equal(['legacy', 'release']);
  });

  describe('create-before-destroy', () => {
    const g = graphOf([{ ...on('db-v2', 'db-v1'), createResourceBeforeDestroyingDependency: true }]);
    const cases: Record<string, { reason: string; replacement: ResourceState | undefined; deletes: boolean }> = {
      notCreated: {
        reason: 'a replacement not created yet is the reason to wait',
        replacement: { desired: true, observed: false, ready: false },
        deletes: false,
      },
      notReady: {
        reason: 'it must be Ready first',
        replacement: { desired: true, observed: true, ready: false },
        deletes: false,
      },
      ready: {
        reason: 'then the predecessor goes',
        replacement: { desired: true, observed: true, ready: true },
        deletes: true,
      },
      teardown: {
        reason: 'when the replacement goes too (XR deletion) the edge orders as any other',
        replacement: undefined,
        deletes: true,
      },
    };
    for (const [name, c] of Object.entries(cases)) {
      it(name, () => {
        const states = new Map<string, ResourceState>([['db-v1', PRESENT]]);
        if (c.replacement) states.set('db-v2', c.replacement);
        expect(gateDeletes(g, states, ['db-v1']).delete.length === 1, c.reason).to.equal(c.deletes);
      });
    }
  });

  it('refuses to compute waves of a cycle', () => {
    expect(() => deleteWaves(graphOf([on('a', 'b'), on('b', 'a')]), ['a', 'b'])).to.throw(DependencyCycleError);
  });
});

describe('composite/ordering graph in resourceRefs', () => {
  const ref = (kind: string, name: string): ResourceRef => ({ apiVersion: 'v1', kind, name });
  const entries = [
    { ref: ref('Cluster', 'x-cluster'), name: 'cluster' },
    { ref: ref('Release', 'x-release'), name: 'release' },
    { ref: ref('App', 'x-app'), name: 'app' },
  ];

  it('persists each reference with its name and what it depends on among the references', () => {
    expect(orderedRefs(entries, PLATFORM)).to.deep.equal([
      { ...ref('Cluster', 'x-cluster'), resourceName: 'cluster' },
      { ...ref('Release', 'x-release'), resourceName: 'release', dependsOn: ['cluster'] },
      { ...ref('App', 'x-app'), resourceName: 'app', dependsOn: ['release'] },
    ]);
  });

  it('reads back the same order without the pipeline', () => {
    const back = graphOfRefs(orderedRefs(entries, PLATFORM));
    expect(back.unnamed).to.deep.equal([]);
    expect(deleteWaves(back.graph, back.named.keys())).to.deep.equal([['app'], ['release'], ['cluster']]);
  });

  it('tolerates references a user edited, or that an earlier release wrote', () => {
    const refs = [
      { ...ref('A', 'a'), resourceName: 'a', dependsOn: ['b', 7, '', 'missing'] },
      { ...ref('B', 'b'), resourceName: 'b', dependsOn: 'a' },
      { ...ref('C', 'c1'), resourceName: 'c' },
      { ...ref('C', 'c2'), resourceName: 'c' },
      ref('Old', 'old'),
    ] as unknown as ResourceRef[];
    const back = graphOfRefs(refs);
    expect(back.graph.edges).to.deep.equal([{ resource: 'a', dependsOn: 'b', createBeforeDestroy: false }]);
    expect([...back.named.keys()]).to.deep.equal(['a', 'b']);
    expect(back.unnamed.map((r) => r.name)).to.deep.equal(['c1', 'c2', 'old']);
  });
});
