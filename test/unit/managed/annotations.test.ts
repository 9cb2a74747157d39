import { expect } from 'chai';
import {
  creationState,
  EXTERNAL_CREATE_FAILED_ANNOTATION as FAILED,
  EXTERNAL_CREATE_PENDING_ANNOTATION as PENDING,
  EXTERNAL_CREATE_SUCCEEDED_ANNOTATION as SUCCEEDED,
  externalReconcileRecord,
  LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION,
  LAST_EXTERNAL_RECONCILE_VERSION_ANNOTATION,
  whenAbsent,
  type AbsentAction,
  type CreationState,
} from '../../../src/managed/index.js';
import { ManualClock } from '../../../src/base/index.js';

const at = (ms: number): string => new Date(ms).toISOString();
const T = Date.parse('2026-03-01T10:00:00Z');

describe('managed/creationState', () => {
  const cases: Record<string, { annotations: Record<string, string>; want: CreationState['phase'] }> = {
    'nothing recorded': { annotations: {}, want: 'none' },
    'pending alone: a Create whose result was never recorded': {
      annotations: { [PENDING]: at(T) },
      want: 'incomplete',
    },
    'pending then succeeded': { annotations: { [PENDING]: at(T), [SUCCEEDED]: at(T + 5) }, want: 'succeeded' },
    'pending then failed': { annotations: { [PENDING]: at(T), [FAILED]: at(T + 5) }, want: 'failed' },
    'succeeded in the same millisecond as pending is complete (not strictly newer)': {
      annotations: { [PENDING]: at(T), [SUCCEEDED]: at(T) },
      want: 'succeeded',
    },
    'a retry after a failure that never recorded its result': {
      annotations: { [FAILED]: at(T), [PENDING]: at(T + 1_000) },
      want: 'incomplete',
    },
    'failed, then a retry that succeeded': {
      annotations: { [FAILED]: at(T), [PENDING]: at(T + 1_000), [SUCCEEDED]: at(T + 1_010) },
      want: 'succeeded',
    },
    'a later failure after an earlier success': {
      annotations: { [SUCCEEDED]: at(T), [PENDING]: at(T + 1_000), [FAILED]: at(T + 1_010) },
      want: 'failed',
    },
    'seconds-precision times as Crossplane writes them': {
      annotations: { [PENDING]: '2026-03-01T10:00:00Z', [SUCCEEDED]: '2026-03-01T10:00:01Z' },
      want: 'succeeded',
    },
    'an unparseable pending time is ignored': { annotations: { [PENDING]: 'yesterday' }, want: 'none' },
  };
  for (const [reason, { annotations, want }] of Object.entries(cases)) {
    it(reason, () => {
      expect(creationState(annotations).phase, reason).to.equal(want);
    });
  }
});

describe('managed/whenAbsent', () => {
  const GRACE = 30_000;
  const cases: Record<
    string,
    { annotations: Record<string, string>; afterMs: number; mayCreate: boolean; want: AbsentAction }
  > = {
    'never created: create': { annotations: {}, afterMs: 0, mayCreate: true, want: 'create' },
    'created 5 s ago and not visible yet: wait, do not create a second one': {
      annotations: { [PENDING]: at(T), [SUCCEEDED]: at(T) },
      afterMs: 5_000,
      mayCreate: true,
      want: 'wait-for-creation',
    },
    'created 31 s ago and still not found: gone, create again': {
      annotations: { [PENDING]: at(T), [SUCCEEDED]: at(T) },
      afterMs: 31_000,
      mayCreate: true,
      want: 'create',
    },
    'a failed create is retried': {
      annotations: { [PENDING]: at(T), [FAILED]: at(T) },
      afterMs: 1_000,
      mayCreate: true,
      want: 'create',
    },
    'policies without Create report the missing resource': {
      annotations: {},
      afterMs: 0,
      mayCreate: false,
      want: 'report-missing',
    },
  };
  for (const [reason, { annotations, afterMs, mayCreate, want }] of Object.entries(cases)) {
    it(reason, () => {
      const clock = new ManualClock(T);
      clock.advance(afterMs);
      const got = whenAbsent(creationState(annotations), { nowMs: clock.now(), gracePeriodMs: GRACE, mayCreate });
      expect(got, reason).to.equal(want);
    });
  }
});

describe('managed/externalReconcileRecord', () => {
  it('reads the generation and the time', () => {
    const record = externalReconcileRecord({
      [LAST_EXTERNAL_RECONCILE_VERSION_ANNOTATION]: '7',
      [LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION]: at(T),
    });
    expect(record).to.deep.equal({ generation: 7, atMs: T });
  });

  it('ignores values that are not a generation or a time', () => {
    const record = externalReconcileRecord({
      [LAST_EXTERNAL_RECONCILE_VERSION_ANNOTATION]: '12abc',
      [LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION]: 'soon',
    });
    expect(record).to.deep.equal({ generation: undefined, atMs: undefined });
  });
});
