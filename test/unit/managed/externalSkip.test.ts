import { expect } from 'chai';
import { externalObserveSkip, externalRecordDue, type ExternalSkipInput } from '../../../src/managed/index.js';
import { ManualClock } from '../../../src/base/index.js';

const MINUTE = 60_000;
const POLL = 10 * MINUTE;
const SYNC = 60 * MINUTE;

describe('managed/externalObserveSkip', () => {
  // The clock starts at the last external reconcile; each case says how long after it the reconcile runs.
  const base = (clock: ManualClock): ExternalSkipInput => ({
    nowMs: clock.now(),
    generation: 3,
    record: { generation: 3, atMs: 1_000_000 },
    settled: true,
    pollMs: POLL,
    syncMs: SYNC,
  });
  const cases: Record<
    string,
    { afterMs: number; change?: Partial<ExternalSkipInput>; skip: boolean; observeInMs?: number }
  > = {
    'an echo right after the external reconcile is skipped until the poll interval ends': {
      afterMs: 2_000,
      skip: true,
      observeInMs: POLL - 2_000,
    },
    'a restart 3 minutes later skips and observes when the poll interval ends': {
      afterMs: 3 * MINUTE,
      skip: true,
      observeInMs: 7 * MINUTE,
    },
    'a spec change (new generation) is never skipped': { afterMs: 2_000, change: { generation: 4 }, skip: false },
    'an MR that is not settled (Synced or Ready not True, request pending) is never skipped': {
      afterMs: 2_000,
      change: { settled: false },
      skip: false,
    },
    'once the poll interval has passed the external system is observed': { afterMs: POLL, skip: false },
    'a sync interval shorter than the poll interval bounds the window': {
      afterMs: 6 * MINUTE,
      change: { syncMs: 5 * MINUTE },
      skip: false,
    },
    'the planned poll (jittered 10% early) is not skipped': {
      afterMs: POLL * 0.9,
      change: { dueAtMs: 1_000_000 + POLL * 0.9 },
      skip: false,
    },
    'a timer firing slightly before the planned time still observes': {
      afterMs: 30_000 - 200,
      change: { dueAtMs: 1_000_000 + 30_000 },
      skip: false,
    },
    'before the planned time (a provider hint), an echo waits for it': {
      afterMs: 1_000,
      change: { dueAtMs: 1_000_000 + 3_000 },
      skip: true,
      observeInMs: 2_000,
    },
    'no record of an external reconcile': {
      afterMs: 1_000,
      change: { record: { generation: undefined, atMs: undefined } },
      skip: false,
    },
    'a record from the future is not trusted': {
      afterMs: 1_000,
      change: { record: { generation: 3, atMs: 1_000_000 + 10 * MINUTE } },
      skip: false,
    },
  };
  for (const [reason, { afterMs, change, skip, observeInMs }] of Object.entries(cases)) {
    it(reason, () => {
      const clock = new ManualClock(1_000_000);
      clock.advance(afterMs);
      const got = externalObserveSkip({ ...base(clock), ...change });
      expect(got.skip, reason).to.equal(skip);
      if (got.skip) expect(got.observeInMs, reason).to.equal(observeInMs);
    });
  }
});

describe('managed/externalRecordDue', () => {
  const record = { generation: 3, atMs: 0 };
  const cases: Record<string, { nowMs: number; generation?: number; want: boolean }> = {
    'an unchanged MR observed again soon writes nothing': { nowMs: 2 * MINUTE, want: false },
    'a new generation is recorded at once': { nowMs: 1_000, generation: 4, want: true },
    'the observe of a poll (at least 0.9 intervals on) refreshes the time': { nowMs: POLL * 0.9, want: true },
    'an observe at 0.7 intervals (a resource not ready yet) does not': { nowMs: POLL * 0.7, want: false },
  };
  for (const [reason, { nowMs, generation, want }] of Object.entries(cases)) {
    it(reason, () => {
      expect(externalRecordDue({ nowMs, generation: generation ?? 3, record, windowMs: POLL }), reason).to.equal(want);
    });
  }

  it('a steady state writes once per poll interval, never between polls', () => {
    const clock = new ManualClock(0);
    let current = { ...record };
    let writes = 0;
    for (const jitter of [0.9, 1.1, 0.95, 1.0, 0.9]) {
      // An observe half-way (a reconcile request, say) writes nothing.
      const halfway = current.atMs + POLL * 0.5;
      expect(externalRecordDue({ nowMs: halfway, generation: 3, record: current, windowMs: POLL })).to.equal(false);
      clock.advanceTo(current.atMs + POLL * jitter);
      if (externalRecordDue({ nowMs: clock.now(), generation: 3, record: current, windowMs: POLL })) {
        writes++;
        current = { generation: 3, atMs: clock.now() };
      }
    }
    expect(writes).to.equal(5);
  });
});
