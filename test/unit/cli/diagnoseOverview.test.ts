import { expect } from 'chai';
import { formatOverview, type Overview } from '../../../src/cli/diagnoseOverview.js';

const NOW = new Date('2026-11-23T12:00:00Z');
const LEASE = {
  namespace: 'crossplane-system',
  name: 'compositor-leader-election',
  holder: 'compositor-7d9f-abcde',
  renewTime: '2026-11-23T11:59:50.000000Z',
  leaseDurationSeconds: 60,
};
const STUCK: Overview['stuck'][number] = {
  key: 'team-a/web',
  kind: 'XApp',
  resource: 'xapps.example.org',
  condition: 'Synced',
  reason: 'ReconcileError',
  message: 'cannot compose resources: boom',
  sinceMs: NOW.getTime() - 7_380_000,
  forSeconds: 7380,
};

describe('cli/diagnoseOverview', () => {
  const cases: Record<string, { overview: Overview; want: string[] }> = {
    'nothing stuck, a live leader': {
      overview: { stuck: [], total: 0, lease: LEASE },
      want: [
        'no XR is stuck: every XR is Ready and Synced (or paused)',
        'Leader: compositor-7d9f-abcde (lease crossplane-system/compositor-leader-election renewed 2026-11-23T11:59:50.000000Z)',
      ],
    },
    'a stuck namespaced XR and no lease: the next command names its type, name and namespace': {
      overview: { stuck: [STUCK], total: 1 },
      want: [
        '1 XR is not Ready or not Synced; oldest first:',
        '  XApp team-a/web: Synced ReconcileError for 2h3m0s: cannot compose resources: boom',
        'Leader: no compositor-leader-election lease (compositor not running, or --leader-election off)',
        'Next: compositor diagnose xapps.example.org web -n team-a',
      ],
    },
    'a stuck cluster-scoped XR: no namespace flag': {
      overview: { stuck: [{ ...STUCK, key: 'web' }], total: 3, lease: LEASE },
      want: [
        '3 XRs are not Ready or not Synced; oldest first:',
        '  XApp web: Synced ReconcileError for 2h3m0s: cannot compose resources: boom',
        '  ... and 2 more',
        'Leader: compositor-7d9f-abcde (lease crossplane-system/compositor-leader-election renewed 2026-11-23T11:59:50.000000Z)',
        'Next: compositor diagnose xapps.example.org web',
      ],
    },
    'the failed and stuck Operations after the XRs, before the leader': {
      overview: {
        stuck: [],
        total: 0,
        lease: LEASE,
        operations: {
          operations: [
            {
              name: 'rotate-1',
              state: 'failed',
              condition: 'Succeeded',
              reason: 'PipelineError',
              message: 'failure limit of 5 reached',
              forSeconds: 90,
            },
            {
              name: 'backup',
              state: 'stuck',
              condition: 'Synced',
              reason: 'ReconcileError',
              message: 'boom',
              forSeconds: 3600,
            },
          ],
          total: 3,
        },
      },
      want: [
        'no XR is stuck: every XR is Ready and Synced (or paused)',
        '3 Operations failed or stuck; most recent first:',
        '  Operation rotate-1: failed 1m30s ago: Succeeded PipelineError: failure limit of 5 reached',
        '  Operation backup: not finished after 1h0m0s: Synced ReconcileError: boom',
        '  ... and 1 more',
        'Leader: compositor-7d9f-abcde (lease crossplane-system/compositor-leader-election renewed 2026-11-23T11:59:50.000000Z)',
      ],
    },
    'each section that could not be read says why in its place, and the others are printed': {
      overview: {
        stuck: [],
        total: 0,
        failed: {
          operations: 'cannot list Operations: forbidden',
          lease: 'cannot read lease crossplane-system/compositor-leader-election: forbidden',
        },
      },
      want: [
        'no XR is stuck: every XR is Ready and Synced (or paused)',
        'cannot list Operations: forbidden',
        'Leader: cannot read lease crossplane-system/compositor-leader-election: forbidden',
      ],
    },
    'the XRs unreadable, the leader known': {
      overview: { stuck: [], total: 0, lease: LEASE, failed: { xrs: 'cannot list the XRDs: forbidden' } },
      want: [
        'cannot list the XRDs: forbidden',
        'Leader: compositor-7d9f-abcde (lease crossplane-system/compositor-leader-election renewed 2026-11-23T11:59:50.000000Z)',
      ],
    },
    'no Operation to report': {
      overview: { stuck: [], total: 0, lease: LEASE, operations: { operations: [], total: 0 } },
      want: [
        'no XR is stuck: every XR is Ready and Synced (or paused)',
        'no Operation failed or is stuck',
        'Leader: compositor-7d9f-abcde (lease crossplane-system/compositor-leader-election renewed 2026-11-23T11:59:50.000000Z)',
      ],
    },
  };
  for (const [reason, { overview, want }] of Object.entries(cases)) {
    it(`prints ${reason}`, () => {
      expect(formatOverview(overview, NOW).split('\n'), reason).to.deep.equal([...want, '']);
    });
  }
});
