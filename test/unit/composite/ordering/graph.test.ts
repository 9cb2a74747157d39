import { expect } from 'chai';
import {
  DependencyCycleError,
  edgeList,
  findCycle,
  graphOf,
  InvalidDependencyError,
  validateGraph,
} from '../../../../src/composite/ordering/index.js';
import type { Dependency } from '../../../../src/functions/index.js';

const on = (resource: string, composedResource: string): Dependency => ({ resource, composedResource });

describe('composite/ordering graphOf', () => {
  it('sorts, collapses duplicates and keeps create-before-destroy if any copy sets it', () => {
    const g = graphOf([
      on('subnet', 'vpc'),
      on('app', 'subnet'),
      { ...on('subnet', 'vpc'), createResourceBeforeDestroyingDependency: true },
      on('subnet', 'vpc'),
    ]);
    expect(g.edges).to.deep.equal([
      { resource: 'app', dependsOn: 'subnet', createBeforeDestroy: false },
      { resource: 'subnet', dependsOn: 'vpc', createBeforeDestroy: true },
    ]);
  });

  it('keeps edges to required resources apart', () => {
    const g = graphOf([{ resource: 'app', requiredResource: { requirementName: 'net', name: 'n', namespace: 'x' } }]);
    expect(g.edges).to.deep.equal([]);
    expect(g.required).to.deep.equal([{ resource: 'app', requirement: 'net', name: 'n', namespace: 'x' }]);
  });

  const invalid: Record<string, { reason: string; dependency: Dependency }> = {
    noResource: { reason: 'every pair names its resource', dependency: { composedResource: 'vpc' } },
    noTarget: { reason: 'every pair names what it depends on', dependency: { resource: 'subnet' } },
    both: {
      reason: 'the oneof holds one target',
      dependency: { resource: 'a', composedResource: 'b', requiredResource: { requirementName: 'r' } },
    },
    unnamedRequirement: { reason: 'a requirement has a name', dependency: { resource: 'a', requiredResource: {} } },
    requiredCbd: {
      reason: 'create-before-destroy has no meaning for what the engine never deletes',
      dependency: {
        resource: 'a',
        requiredResource: { requirementName: 'r' },
        createResourceBeforeDestroyingDependency: true,
      },
    },
  };
  for (const [name, c] of Object.entries(invalid)) {
    it(`refuses ${name}`, () => {
      let caught: unknown;
      try {
        graphOf([c.dependency]);
      } catch (err) {
        caught = err;
      }
      expect(caught, c.reason).to.be.instanceOf(InvalidDependencyError);
      expect((caught as InvalidDependencyError).dependency, c.reason).to.equal(c.dependency);
    });
  }
});

describe('composite/ordering findCycle', () => {
  const cases: Record<string, { reason: string; pairs: Dependency[]; want: string[] | undefined }> = {
    dag: {
      reason: 'a diamond is no cycle',
      pairs: [on('b', 'a'), on('c', 'a'), on('d', 'b'), on('d', 'c')],
      want: undefined,
    },
    self: { reason: 'a resource cannot wait on itself', pairs: [on('a', 'a')], want: ['a', 'a'] },
    two: { reason: 'the path closes where it started', pairs: [on('a', 'b'), on('b', 'a')], want: ['a', 'b', 'a'] },
    tail: {
      reason: 'only the cycle is named, not the path into it',
      pairs: [on('a', 'b'), on('b', 'c'), on('c', 'd'), on('d', 'b')],
      want: ['b', 'c', 'd', 'b'],
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      expect(findCycle(graphOf(c.pairs)), c.reason).to.deep.equal(c.want);
    });
  }

  it('names the same cycle whatever order the pairs came in', () => {
    const pairs = [on('x', 'y'), on('y', 'z'), on('z', 'x'), on('q', 'x')];
    expect(findCycle(graphOf(pairs))).to.deep.equal(findCycle(graphOf([...pairs].reverse())));
  });

  it('walks a chain of 20,000 without exhausting the stack', () => {
    const pairs = Array.from({ length: 20_000 }, (_, i) => on(`r${i + 1}`, `r${i}`));
    expect(findCycle(graphOf(pairs))).to.equal(undefined);
    pairs.push(on('r0', 'r20000'));
    expect(findCycle(graphOf(pairs))).to.have.length(20_002);
  });
});

describe('composite/ordering validateGraph', () => {
  it('prunes edges naming what is neither desired nor observed, and says which', () => {
    const v = validateGraph(
      graphOf([on('subnet', 'vpc'), on('subnet', 'gone'), on('typo', 'vpc')]),
      new Set(['subnet', 'vpc']),
    );
    expect(v.graph.edges).to.deep.equal([{ resource: 'subnet', dependsOn: 'vpc', createBeforeDestroy: false }]);
    expect(edgeList(v.pruned)).to.equal('subnet -> gone, typo -> vpc');
  });

  it('refuses a cycle, naming it in upstream words', () => {
    let caught: unknown;
    try {
      validateGraph(graphOf([on('a', 'b'), on('b', 'a')]), new Set(['a', 'b']));
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(DependencyCycleError);
    expect((caught as DependencyCycleError).cycle).to.deep.equal(['a', 'b', 'a']);
    // Compatibility text: what upstream's prototype writes into the XR's Synced condition.
    expect((caught as Error).message).to.equal('invalid composed resource dependencies: dependency cycle: [a b a]');
  });

  it('does not report a cycle through a pruned name', () => {
    const v = validateGraph(graphOf([on('a', 'b'), on('b', 'a'), on('c', 'd')]), new Set(['a', 'c', 'd']));
    expect(v.graph.edges.map((e) => e.resource)).to.deep.equal(['c']);
  });

  it('refuses an edge to a requirement no step declared, and keeps one that a step did', () => {
    const g = graphOf([{ resource: 'app', requiredResource: { requirementName: 'net' } }]);
    expect(() => validateGraph(g, new Set(['app']))).to.throw(InvalidDependencyError);
    expect(validateGraph(g, new Set(['app']), new Set(['net'])).graph.required).to.have.length(1);
  });
});
