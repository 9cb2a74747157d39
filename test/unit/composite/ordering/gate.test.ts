import { expect } from 'chai';
import {
  gateCreates,
  graphOf,
  requiredObjectReady,
  type RequiredMatch,
  type ResourceState,
} from '../../../../src/composite/ordering/index.js';
import type { Dependency } from '../../../../src/functions/index.js';

const on = (resource: string, composedResource: string): Dependency => ({ resource, composedResource });
const NEW: ResourceState = { desired: true, observed: false, ready: false };
const EXISTS: ResourceState = { desired: true, observed: true, ready: false };
const READY: ResourceState = { desired: true, observed: true, ready: true };
const LEAVING: ResourceState = { desired: false, observed: true, ready: false };

describe('composite/ordering gateCreates', () => {
  const chain = graphOf([on('subnet', 'vpc'), on('db', 'subnet'), on('db', 'vpc')]);
  const cases: Record<
    string,
    { reason: string; states: Record<string, ResourceState>; apply: string[]; held: Record<string, string> }
  > = {
    fresh: {
      reason: 'only what depends on nothing goes first; the rest say what they wait on',
      states: { vpc: NEW, subnet: NEW, db: NEW },
      apply: ['vpc'],
      held: { db: 'waits on subnet, vpc', subnet: 'waits on vpc' },
    },
    created: {
      reason: 'existing is not Ready: the pipeline verdict decides',
      states: { vpc: EXISTS, subnet: NEW, db: NEW },
      apply: ['vpc'],
      held: { db: 'waits on subnet, vpc', subnet: 'waits on vpc' },
    },
    secondWave: {
      reason: 'a Ready dependency releases its dependents',
      states: { vpc: READY, subnet: NEW, db: NEW },
      apply: ['subnet', 'vpc'],
      held: { db: 'waits on subnet' },
    },
    updatesNotGated: {
      reason: 'a resource that exists is applied whatever its dependencies do (gates creation, not updates)',
      states: { vpc: EXISTS, subnet: EXISTS, db: EXISTS },
      apply: ['db', 'subnet', 'vpc'],
      held: {},
    },
    notDesired: {
      reason: 'a dependency the pipeline does not desire (yet) is waited for',
      states: { subnet: NEW },
      apply: [],
      held: { subnet: 'waits on vpc' },
    },
    deadlock: {
      reason: 'a dependency the pipeline is deleting will never be Ready',
      states: { vpc: LEAVING, subnet: NEW },
      apply: [],
      held: { subnet: 'cannot be created: vpc is being deleted by the pipeline' },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      const gate = gateCreates(chain, new Map(Object.entries(c.states)));
      expect(gate.apply, c.reason).to.deep.equal(c.apply);
      expect(Object.fromEntries(gate.held.map((h) => [h.resource, h.reason])), c.reason).to.deep.equal(c.held);
      expect(
        gate.held.every((h) => h.deadlocked === (name === 'deadlock')),
        c.reason,
      ).to.equal(true);
    });
  }

  it('lets a create-before-destroy replacement be created while its predecessor is deleted', () => {
    const g = graphOf([{ ...on('db-v2', 'db-v1'), createResourceBeforeDestroyingDependency: true }]);
    const gate = gateCreates(g, new Map(Object.entries({ 'db-v1': LEAVING, 'db-v2': NEW })));
    expect(gate.apply).to.deep.equal(['db-v2']);
  });

  describe('edges to required resources', () => {
    const g = graphOf([
      { resource: 'app', requiredResource: { requirementName: 'nets' } },
      { resource: 'web', requiredResource: { requirementName: 'nets', name: 'b', namespace: 'infra' } },
    ]);
    const states = new Map(Object.entries({ app: NEW, web: NEW }));
    const cases: Record<string, { reason: string; matches: RequiredMatch[] | undefined; apply: string[] }> = {
      unfetched: { reason: 'nothing fetched yet is not vacuously ready', matches: undefined, apply: [] },
      empty: { reason: 'a requirement that matched nothing waits', matches: [], apply: [] },
      oneUnready: {
        reason: 'without a name every match must be ready; with one, that one',
        matches: [
          { name: 'a', namespace: 'infra', ready: false },
          { name: 'b', namespace: 'infra', ready: true },
        ],
        apply: ['web'],
      },
      wrongNamespace: {
        reason: 'a name matches only in its namespace',
        matches: [{ name: 'b', namespace: 'other', ready: true }],
        apply: ['app'],
      },
      allReady: {
        reason: 'all ready releases both',
        matches: [{ name: 'b', namespace: 'infra', ready: true }],
        apply: ['app', 'web'],
      },
    };
    for (const [name, c] of Object.entries(cases)) {
      it(name, () => {
        const required = new Map(c.matches === undefined ? [] : [['nets', c.matches] as const]);
        const gate = gateCreates(g, states, required);
        expect(gate.apply, c.reason).to.deep.equal(c.apply);
        for (const h of gate.held) expect(h.waitsOn, c.reason).to.deep.equal(['requirement nets']);
      });
    }
  });
});

describe('composite/ordering requiredObjectReady', () => {
  const cases: Record<string, { reason: string; object: { status?: { conditions?: unknown } }; want: boolean }> = {
    noStatus: { reason: 'a ConfigMap exists, and that is all it can be', object: {}, want: true },
    readyTrue: {
      reason: 'Ready True',
      object: { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      want: true,
    },
    readyFalse: {
      reason: 'Ready False',
      object: { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
      want: false,
    },
    otherOnly: {
      reason: 'no Ready condition',
      object: { status: { conditions: [{ type: 'Synced', status: 'False' }] } },
      want: true,
    },
    garbage: { reason: 'conditions that are not a list are none', object: { status: { conditions: 'x' } }, want: true },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => expect(requiredObjectReady(c.object), c.reason).to.equal(c.want));
  }
});
