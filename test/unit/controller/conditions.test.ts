import { expect } from 'chai';
import {
  pendingReconcileRequest,
  RECONCILE_REQUESTED_AT_ANNOTATION,
  sameCondition,
  sameConditions,
  setConditions,
  transitionTime,
  type Condition,
  type TimePrecision,
  unreadyMessage,
  unsyncedMessage,
} from '../../../src/controller/index.js';

describe('controller/conditions', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const t1 = new Date('2026-01-01T00:05:00.250Z');

  const at = (date: Date, precision: TimePrecision = 'milliseconds') => ({ now: () => date, precision });
  const ready = (status: Condition['status'], reason: string, more: Partial<Condition> = {}): Condition => ({
    type: 'Ready',
    status,
    reason,
    ...more,
  });

  const cases: Record<
    string,
    {
      reason: string;
      existing: Condition[] | undefined;
      updates: Condition[];
      precision: TimePrecision;
      want: Condition[];
    }
  > = {
    'a new condition': {
      reason: 'appended with the clock time',
      existing: undefined,
      updates: [ready('False', 'Creating')],
      precision: 'milliseconds',
      want: [ready('False', 'Creating', { lastTransitionTime: '2026-01-01T00:05:00.250Z' })],
    },
    'in whole seconds': {
      reason: 'Crossplane writes metav1.Time: RFC 3339 without a fraction',
      existing: [],
      updates: [ready('False', 'Creating')],
      precision: 'seconds',
      want: [ready('False', 'Creating', { lastTransitionTime: '2026-01-01T00:05:00Z' })],
    },
    'the status holds': {
      reason: 'reason, message and generation change, the transition time stays',
      existing: [ready('False', 'Creating', { lastTransitionTime: 'then', message: 'a' })],
      updates: [ready('False', 'Unavailable', { message: 'b', observedGeneration: 2 })],
      precision: 'seconds',
      want: [ready('False', 'Unavailable', { message: 'b', observedGeneration: 2, lastTransitionTime: 'then' })],
    },
    'the status changes': {
      reason: 'a transition takes the clock time; the empty message is left out',
      existing: [ready('False', 'Creating', { lastTransitionTime: 'then', message: 'a' })],
      updates: [ready('True', 'Available', { message: '' })],
      precision: 'seconds',
      want: [ready('True', 'Available', { lastTransitionTime: '2026-01-01T00:05:00Z' })],
    },
    'a stored condition without a time': {
      reason: 'an empty time is stamped though the status holds',
      existing: [ready('True', 'Available', { lastTransitionTime: '' })],
      updates: [ready('True', 'Available')],
      precision: 'seconds',
      want: [ready('True', 'Available', { lastTransitionTime: '2026-01-01T00:05:00Z' })],
    },
    'several, in place': {
      reason: 'each replaces its own type where it stands, others stay, new ones come last',
      existing: [
        { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', lastTransitionTime: 's' },
        ready('False', 'Creating', { lastTransitionTime: 'r' }),
        { type: 'Responsive', status: 'True', reason: 'WatchCircuitClosed', lastTransitionTime: 'w' },
      ],
      updates: [
        ready('True', 'Available'),
        { type: 'Synced', status: 'True', reason: 'ReconcileSuccess' },
        ready('True', 'Available'),
      ],
      precision: 'seconds',
      want: [
        { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', lastTransitionTime: 's' },
        ready('True', 'Available', { lastTransitionTime: '2026-01-01T00:05:00Z' }),
        { type: 'Responsive', status: 'True', reason: 'WatchCircuitClosed', lastTransitionTime: 'w' },
      ],
    },
  };
  for (const [name, { reason, existing, updates, precision, want }] of Object.entries(cases)) {
    it(`setConditions: ${name}`, () => {
      const before = structuredClone(existing);
      expect(setConditions(existing, updates, at(t1, precision)), reason).to.deep.equal(want);
      expect(existing, 'the stored list is left as it was').to.deep.equal(before);
    });
  }

  it('keeps lastTransitionTime when the status does not change, so the status compares equal', () => {
    const first = setConditions([], [ready('False', 'Creating', { message: 'a' })], at(t0));
    const second = setConditions(first, [ready('False', 'Creating', { message: 'b' })], at(t1));
    expect(second[0]?.lastTransitionTime).to.equal(t0.toISOString());
    const third = setConditions(second, [ready('True', 'Available')], at(t1));
    expect(third[0]?.lastTransitionTime).to.equal(t1.toISOString());
    expect(third[0]).not.to.have.property('message');
  });

  it('writes a transition time in whole seconds or with milliseconds', () => {
    expect(transitionTime(t1, 'seconds')).to.equal('2026-01-01T00:05:00Z');
    expect(transitionTime(t1, 'milliseconds')).to.equal('2026-01-01T00:05:00.250Z');
  });

  it('rewriting a condition that holds changes nothing, though the API server returns its keys sorted', () => {
    const written = setConditions(
      [],
      [ready('True', 'HealthyPackageRevision', { message: 'in-process' })],
      at(t0, 'seconds'),
    );
    // As read back: the same fields, keys in alphabetical order.
    const read = written.map((c) => Object.fromEntries(Object.entries(c).sort(([a], [b]) => a.localeCompare(b))));
    const again = setConditions(
      read as Condition[],
      [ready('True', 'HealthyPackageRevision', { message: 'in-process' })],
      at(t1, 'seconds'),
    );
    expect(again[0]?.lastTransitionTime).to.equal('2026-01-01T00:00:00Z');
    expect(sameConditions(read as Condition[], again)).to.equal(true);
    expect(sameConditions(read as Condition[], [{ ...again[0], status: 'False' } as Condition])).to.equal(false);
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
