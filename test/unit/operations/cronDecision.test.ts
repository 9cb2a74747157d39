import { expect } from 'chai';
import {
  cronOperationName,
  decideCron,
  InvalidScheduleError,
  lastScheduled,
  parseSchedule,
  type CronDecision,
  type CronInput,
  type CronOperation,
  type Operation,
} from '../../../src/operations/index.js';

const at = (time: string): number => Date.parse(`2026-03-01T${time}Z`);
const every5 = parseSchedule('*/5 * * * *');

describe('operations/parseSchedule', () => {
  const cases: Record<string, { schedule: string; after: string; want: string }> = {
    'five fields, UTC': { schedule: '*/5 * * * *', after: '10:02:00', want: '10:05:00' },
    'strictly after a run time': { schedule: '*/5 * * * *', after: '10:05:00', want: '10:10:00' },
    'a descriptor': { schedule: '@hourly', after: '10:02:00', want: '11:00:00' },
    '@every counts from the previous run, in whole seconds': {
      schedule: '@every 90s',
      after: '10:00:00.700',
      want: '10:01:30',
    },
    'a CRON_TZ prefix': { schedule: 'CRON_TZ=Asia/Tokyo 0 20 * * *', after: '10:02:00', want: '11:00:00' },
  };
  for (const [name, { schedule, after, want }] of Object.entries(cases)) {
    it(name, () => {
      expect(new Date(parseSchedule(schedule).next(at(after)) ?? 0).toISOString()).to.equal(`2026-03-01T${want}.000Z`);
    });
  }

  for (const bad of ['* * * * * *', '61 * * * *', 'TZ=Nowhere/Else * * * * *', '@every soon', 'often']) {
    it(`refuses ${JSON.stringify(bad)}`, () => {
      expect(() => parseSchedule(bad)).to.throw(InvalidScheduleError, /^cannot parse cron schedule/);
    });
  }

  it('finds the latest run in a window', () => {
    expect(every5.latest(at('10:00:00'), at('10:17:00'))).to.equal(at('10:15:00'));
    expect(every5.latest(at('10:15:00'), at('10:17:00'))).to.equal(undefined);
  });
});

describe('operations/decideCron', () => {
  const base: CronInput = { nowMs: at('10:02:00'), schedule: every5, lastMs: at('10:00:00'), running: [] };
  const cases: Record<string, { input: Partial<CronInput>; want: CronDecision }> = {
    'nothing due: wait for the next run': { input: {}, want: { action: 'wait', untilMs: at('10:05:00') } },
    'a run due: create it and wait for the one after': {
      input: { nowMs: at('10:05:00') },
      want: { action: 'create', slotMs: at('10:05:00'), replace: [], untilMs: at('10:10:00') },
    },
    'runs missed during downtime collapse into the latest': {
      input: { nowMs: at('10:32:00') },
      want: { action: 'create', slotMs: at('10:30:00'), replace: [], untilMs: at('10:35:00') },
    },
    'past the starting deadline: skipped': {
      input: { nowMs: at('10:32:00'), startingDeadlineSeconds: 60 },
      want: { action: 'skip', slotMs: at('10:30:00'), why: 'deadline', untilMs: at('10:35:00') },
    },
    'a deadline missed once does not stall the schedule (judged on the latest run)': {
      input: { nowMs: at('10:35:30'), startingDeadlineSeconds: 60 },
      want: { action: 'create', slotMs: at('10:35:00'), replace: [], untilMs: at('10:40:00') },
    },
    'Allow: created beside running ones': {
      input: { nowMs: at('10:05:00'), running: ['a'] },
      want: { action: 'create', slotMs: at('10:05:00'), replace: [], untilMs: at('10:10:00') },
    },
    'Forbid: deferred while one runs': {
      input: { nowMs: at('10:05:00'), running: ['a'], concurrencyPolicy: 'Forbid' },
      want: { action: 'skip', slotMs: at('10:05:00'), why: 'forbid', untilMs: at('10:10:00') },
    },
    'Replace: the running ones go first': {
      input: { nowMs: at('10:05:00'), running: ['a', 'b'], concurrencyPolicy: 'Replace' },
      want: { action: 'create', slotMs: at('10:05:00'), replace: ['a', 'b'], untilMs: at('10:10:00') },
    },
  };
  for (const [reason, { input, want }] of Object.entries(cases)) {
    it(reason, () => {
      expect(decideCron({ ...base, ...input }), reason).to.deep.equal(want);
    });
  }
});

describe('operations/lastScheduled', () => {
  const co: CronOperation = {
    apiVersion: 'ops.crossplane.io/v1alpha1',
    kind: 'CronOperation',
    metadata: { name: 'nightly', creationTimestamp: '2026-03-01T09:00:00Z' },
    spec: { schedule: '@daily', operationTemplate: { spec: { pipeline: [] } } },
  };
  const op = (name: string, creationTimestamp: string): Operation => ({
    apiVersion: 'ops.crossplane.io/v1alpha1',
    kind: 'Operation',
    metadata: { name, creationTimestamp },
    spec: { pipeline: [] },
  });

  it('reads the run time from the Operation name, not its creationTimestamp (clock skew)', () => {
    // The API server stamped it a second before the run it was scheduled for.
    const name = cronOperationName('nightly', at('10:05:00'));
    expect(name).to.equal(`nightly-${String(at('10:05:00') / 1000)}`);
    expect(lastScheduled(co, [op(name, '2026-03-01T10:04:59Z')])).to.equal(at('10:05:00'));
  });

  it('falls back to the status, then to the creation time', () => {
    expect(lastScheduled({ ...co, status: { lastScheduleTime: '2026-03-01T09:30:00Z' } }, [])).to.equal(at('09:30:00'));
    expect(lastScheduled(co, [])).to.equal(at('09:00:00'));
  });
});
