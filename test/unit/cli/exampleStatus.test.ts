import { expect } from 'chai';
import { join } from 'node:path';
import { packageRoot } from '../../../src/apis/index.js';
import {
  compositesOf,
  describeObject,
  examplesSummary,
  stateOf,
  type Composite,
  type ExampleState,
} from '../../../src/cli/exampleStatus.js';
import { readManifests } from '../../../src/cli/examples.js';
import type { Condition } from '../../../src/controller/index.js';
import type { KubeObject } from '../../../src/kube/index.js';

const APP: Composite = {
  object: {
    apiVersion: 'example.compositor.crossplane.io/v1',
    kind: 'App',
    metadata: { name: 'example', namespace: 'default' },
  },
  claim: false,
};

function stored(...conditions: Condition[]): KubeObject {
  return { ...APP.object, status: { conditions } };
}

const condition = (type: string, status: Condition['status'], reason: string, message?: string): Condition => ({
  type,
  status,
  reason,
  ...(message === undefined ? {} : { message }),
});

describe('cli/exampleStatus', () => {
  it('finds the XR of examples/ and the claim of examples/legacy/ (and nothing else) as dev applies them', async () => {
    const objects = [
      ...(await readManifests(join(packageRoot(), 'examples'))),
      ...(await readManifests(join(packageRoot(), 'examples', 'legacy'))),
    ];
    expect(compositesOf(objects).map((c) => [describeObject(c.object), c.claim])).to.deep.equal([
      ['App default/example', false],
      ['Database default/orders-db', true],
    ]);
  });

  it('ignores objects of a group an XRD does not define, even with the same kind', () => {
    const xrd = {
      apiVersion: 'apiextensions.crossplane.io/v2',
      kind: 'CompositeResourceDefinition',
      metadata: { name: 'apps.example.compositor.crossplane.io' },
      spec: { group: 'example.compositor.crossplane.io', names: { kind: 'App', plural: 'apps' } },
    };
    const crossplanesApp = { ...APP.object, apiVersion: 'example.crossplane.io/v1' };
    expect(compositesOf([xrd, crossplanesApp, APP.object]).map((c) => c.object)).to.deep.equal([APP.object]);
  });

  const states: Record<string, { stored: KubeObject | string | undefined; want: Partial<ExampleState> }> = {
    'Ready True': {
      stored: stored(condition('Synced', 'True', 'ReconcileSuccess'), condition('Ready', 'True', 'Available')),
      want: { ready: true, why: '' },
    },
    'a failing reconcile before the Ready condition it leaves': {
      stored: stored(
        condition('Synced', 'False', 'ReconcileError', 'cannot compose resources: boom'),
        condition('Ready', 'False', 'Creating'),
      ),
      want: { ready: false, why: 'Synced False (ReconcileError): cannot compose resources: boom' },
    },
    'Ready False while Synced': {
      stored: stored(
        condition('Synced', 'True', 'ReconcileSuccess'),
        condition('Ready', 'False', 'Creating', 'Unready resources: settings'),
      ),
      want: { ready: false, why: 'Ready False (Creating): Unready resources: settings' },
    },
    'no conditions': { stored: stored(), want: { ready: false, why: 'no Ready condition yet' } },
    'not created': { stored: undefined, want: { ready: false, why: 'not created yet' } },
    'not readable': { stored: 'its kind is not served yet', want: { ready: false, why: 'its kind is not served yet' } },
  };
  for (const [reason, { stored: object, want }] of Object.entries(states)) {
    it(`says ${reason}`, () => {
      expect(stateOf(APP, object), reason).to.deep.equal({
        what: 'App default/example',
        claim: false,
        ...want,
      });
    });
  }

  const summaries: Record<string, { states: ExampleState[]; elapsedMs: number; want: string }> = {
    'all Ready, an XR and a claim': {
      states: [
        { what: 'App default/example', claim: false, ready: true, why: '' },
        { what: 'Database default/orders-db', claim: true, ready: true, why: '' },
      ],
      elapsedMs: 3140,
      want: 'examples: 2 of 2 XRs and claims Ready in 3.1 s\n',
    },
    'all Ready, XRs only': {
      states: [{ what: 'App default/example', claim: false, ready: true, why: '' }],
      elapsedMs: 800,
      want: 'examples: 1 of 1 XRs Ready in 0.8 s\n',
    },
    'one not Ready at the deadline, with why': {
      states: [
        { what: 'App default/example', claim: false, ready: true, why: '' },
        { what: 'Database default/orders-db', claim: true, ready: false, why: 'Synced False (ReconcileError): x' },
      ],
      elapsedMs: 120_000,
      want:
        'examples: 1 of 2 XRs and claims Ready after 120.0 s; not Ready:\n' +
        '  Database default/orders-db: Synced False (ReconcileError): x\n',
    },
  };
  for (const [reason, { states: given, elapsedMs, want }] of Object.entries(summaries)) {
    it(`sums up ${reason}`, () => {
      expect(examplesSummary(given, elapsedMs), reason).to.equal(want);
    });
  }
});
