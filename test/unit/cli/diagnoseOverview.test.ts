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
  };
  for (const [reason, { overview, want }] of Object.entries(cases)) {
    it(`prints ${reason}`, () => {
      expect(formatOverview(overview, NOW).split('\n'), reason).to.deep.equal([...want, '']);
    });
  }
});
