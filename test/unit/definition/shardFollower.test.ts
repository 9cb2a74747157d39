import { expect } from 'chai';
import { followAction, type FollowAction } from '../../../src/definition/index.js';

type Xrd = Parameters<typeof followAction>[0];

function xrd(generation: number, established?: { status: 'True' | 'False'; observedGeneration: number }): Xrd {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'CompositeResourceDefinition',
    metadata: { name: 'xapps.example.org', generation },
    spec: { group: 'example.org', names: { kind: 'XApp', plural: 'xapps' }, versions: [] },
    status: established
      ? { conditions: [{ type: 'Established', reason: 'WatchingCompositeResource', ...established }] }
      : {},
  };
}

function deleting(object: Xrd): Xrd {
  if (!object) return object;
  return { ...object, metadata: { ...object.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
}

describe('definition/shardFollower followAction', () => {
  const cases: Record<
    string,
    { xrd: Xrd; running: { generation: number | undefined } | undefined; want: FollowAction }
  > = {
    'starts once the cluster-wide replica established the current generation': {
      xrd: xrd(1, { status: 'True', observedGeneration: 1 }),
      running: undefined,
      want: 'start',
    },
    'waits while the XRD is not established yet (no CRD to watch)': {
      xrd: xrd(1),
      running: undefined,
      want: 'keep',
    },
    'waits while it is established False (invalid, missing RBAC)': {
      xrd: xrd(1, { status: 'False', observedGeneration: 1 }),
      running: undefined,
      want: 'keep',
    },
    'leaves a controller of the current generation alone': {
      xrd: xrd(2, { status: 'True', observedGeneration: 2 }),
      running: { generation: 2 },
      want: 'keep',
    },
    'keeps the old controller while a new generation is not established yet': {
      xrd: xrd(3, { status: 'True', observedGeneration: 2 }),
      running: { generation: 2 },
      want: 'keep',
    },
    'restarts once the new generation is established': {
      xrd: xrd(3, { status: 'True', observedGeneration: 3 }),
      running: { generation: 2 },
      want: 'start',
    },
    'keeps running while the XRD is deleted: its XRs in this shard must be finalized': {
      xrd: deleting(xrd(4, { status: 'False', observedGeneration: 4 })),
      running: { generation: 3 },
      want: 'keep',
    },
    'starts for a deleting XRD after a restart, to finalize this shard': {
      xrd: deleting(xrd(4, { status: 'False', observedGeneration: 4 })),
      running: undefined,
      want: 'start',
    },
    'stops once the XRD is gone': { xrd: undefined, running: { generation: 4 }, want: 'stop' },
  };
  for (const [reason, { xrd: object, running, want }] of Object.entries(cases)) {
    it(reason, () => {
      expect(followAction(object, running), reason).to.equal(want);
    });
  }
});
