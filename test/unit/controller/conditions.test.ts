import { expect } from 'chai';
import {
  pendingReconcileRequest,
  RECONCILE_REQUESTED_AT_ANNOTATION,
  sameCondition,
  setCondition,
  unreadyMessage,
  unsyncedMessage,
} from '../../../src/controller/index.js';

describe('controller/conditions', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const t1 = new Date('2026-01-01T00:05:00Z');

  it('keeps lastTransitionTime when the status does not change, so the status compares equal', () => {
    const first = setCondition([], { type: 'Ready', status: 'False', reason: 'Creating', message: 'a' }, () => t0);
    const second = setCondition(first, { type: 'Ready', status: 'False', reason: 'Creating', message: 'b' }, () => t1);
    expect(second[0]?.lastTransitionTime).to.equal(t0.toISOString());
    const third = setCondition(second, { type: 'Ready', status: 'True', reason: 'Available' }, () => t1);
    expect(third[0]?.lastTransitionTime).to.equal(t1.toISOString());
    expect(third[0]).not.to.have.property('message');
  });

  it('compares conditions without their transition time', () => {
    const a = { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', lastTransitionTime: 'x' } as const;
    expect(sameCondition(a, { ...a, lastTransitionTime: 'y' })).to.equal(true);
    expect(sameCondition(a, { ...a, reason: 'ReconcileError' })).to.equal(false);
  });

  const unready: Record<string, { names: string[]; want: string }> = {
    one: { names: ['b'], want: 'Unready resources: b' },
    'sorted, joined with commas': { names: ['b', 'a'], want: 'Unready resources: a, b' },
    three: { names: ['c', 'a', 'b'], want: 'Unready resources: a, b, and c' },
    'more than three': { names: ['e', 'd', 'c', 'b', 'a'], want: 'Unready resources: a, b, c, and 2 more' },
  };
  for (const [reason, { names, want }] of Object.entries(unready)) {
    it(`writes the unready message (${reason})`, () => {
      expect(unreadyMessage(names)).to.equal(want);
    });
  }

  it('writes the unsynced message the same way, as upstream (refusals of many resources stay short)', () => {
    expect(unsyncedMessage(['b'])).to.equal('Unsynced resources: b');
    expect(unsyncedMessage(['e', 'd', 'c', 'b', 'a'])).to.equal('Unsynced resources: a, b, c, and 2 more');
  });
});

describe('controller/pendingReconcileRequest', () => {
  const annotations = (token: string) => ({ [RECONCILE_REQUESTED_AT_ANNOTATION]: token });
  it('returns a token not yet handled, once', () => {
    expect(pendingReconcileRequest(annotations('2026-01-01T00:00:00Z'), undefined)).to.equal('2026-01-01T00:00:00Z');
    expect(pendingReconcileRequest(annotations('2026-01-01T00:00:00Z'), '2026-01-01T00:00:00Z')).to.equal(undefined);
  });
  it('treats tokens as opaque', () => {
    expect(pendingReconcileRequest(annotations('please'), 'earlier')).to.equal('please');
  });
  it('ignores absent and empty annotations', () => {
    expect(pendingReconcileRequest({}, undefined)).to.equal(undefined);
    expect(pendingReconcileRequest(annotations(''), undefined)).to.equal(undefined);
  });
});
