import { expect } from 'chai';
import {
  conditionsAt,
  EXTERNAL_NAME_ANNOTATION,
  InvalidConditionAfterError,
  nextChangeInMs,
  NopConnector,
  NopExternalSystem,
  NopInjectedFailure,
  parseConditionAfter,
  type ConditionAfter,
  type NopParameters,
  type NopResource,
} from '../../../src/managed/index.js';
import { ManualClock } from '../../../src/queue/index.js';

const entries: ConditionAfter[] = [
  { time: '30s', conditionType: 'Ready', conditionStatus: 'True' },
  { time: '60s', conditionType: 'Ready', conditionStatus: 'False', conditionReason: 'Maintenance' },
  { time: '90s', conditionType: 'Ready', conditionStatus: 'True' },
  { time: '90s', conditionType: 'Green', conditionStatus: 'True' },
];

describe('managed/nop conditionAfter', () => {
  const timed = parseConditionAfter(entries);
  const cases: Record<
    string,
    { ageMs: number; want: { type: string; status: string; reason: string }[]; next?: number }
  > = {
    'nothing before the first entry is due': { ageMs: 10_000, want: [], next: 20_000 },
    'the first entry at its time, with Crossplane reason Available': {
      ageMs: 30_000,
      want: [{ type: 'Ready', status: 'True', reason: 'Available' }],
      next: 30_000,
    },
    'a later entry of the same type replaces it, with its own reason': {
      ageMs: 75_000,
      want: [{ type: 'Ready', status: 'False', reason: 'Maintenance' }],
      next: 15_000,
    },
    'after the last entries, one condition per type and nothing more to come': {
      ageMs: 120_000,
      want: [
        { type: 'Ready', status: 'True', reason: 'Available' },
        { type: 'Green', status: 'True', reason: 'ConditionAfter' },
      ],
    },
  };
  for (const [reason, { ageMs, want, next }] of Object.entries(cases)) {
    it(reason, () => {
      expect(conditionsAt(timed, ageMs), reason).to.deep.equal(want);
      expect(nextChangeInMs(timed, ageMs), reason).to.equal(next);
    });
  }

  it('on a tie of times, the first listed entry wins (as provider-nop)', () => {
    const tie = parseConditionAfter([
      { time: '1s', conditionType: 'Ready', conditionStatus: 'True' },
      { time: '1s', conditionType: 'Ready', conditionStatus: 'False' },
    ]);
    expect(conditionsAt(tie, 5_000)).to.deep.equal([{ type: 'Ready', status: 'True', reason: 'Available' }]);
  });

  it('names an entry whose time is not a duration', () => {
    expect(() => parseConditionAfter([{ time: '3 seconds', conditionType: 'Ready', conditionStatus: 'True' }]))
      .to.throw(InvalidConditionAfterError)
      .with.property('message')
      .that.includes('conditionAfter[0].time "3 seconds"');
  });
});

describe('managed/nop connector', () => {
  const created = Date.parse('2026-03-01T10:00:00Z');
  const signal = new AbortController().signal;

  function nop(forProvider: NopParameters): NopResource {
    return {
      apiVersion: 'nop.compositor.crossplane.io/v1alpha1',
      kind: 'NopResource',
      metadata: {
        name: 'example',
        namespace: 'team-a',
        creationTimestamp: new Date(created).toISOString(),
        annotations: { [EXTERNAL_NAME_ANNOTATION]: 'ext-1' },
      },
      spec: { forProvider },
    };
  }

  it('creates, observes up to date with the conditions due, updates on a change and deletes', async () => {
    const clock = new ManualClock(created);
    const system = new NopExternalSystem();
    const client = await new NopConnector({ system, now: () => clock.now() }).connect();
    const mr = nop({
      fields: { size: 1 },
      connectionDetails: [{ name: 'user', value: 'admin' }],
      conditionAfter: entries,
    });

    expect(await client.observe(mr, signal)).to.deep.equal({ resourceExists: false, resourceUpToDate: false });
    expect(await client.create(mr, signal)).to.deep.equal({ connectionDetails: { user: 'admin' } });
    expect(system.get('team-a/ext-1')?.fields).to.deep.equal({ size: 1 });

    clock.advance(40_000);
    const observed = await client.observe(mr, signal);
    expect(observed).to.deep.include({
      resourceExists: true,
      resourceUpToDate: true,
      atProvider: { fields: { size: 1 } },
      connectionDetails: { user: 'admin' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'Available' }],
      observeAgainInMs: 20_000,
    });

    const changed = nop({ ...mr.spec?.forProvider, fields: { size: 2 } });
    expect((await client.observe(changed, signal)).resourceUpToDate).to.equal(false);
    await client.update(changed, signal);
    expect((await client.observe(changed, signal)).resourceUpToDate).to.equal(true);

    await client.delete(changed, signal);
    expect(system.size).to.equal(0);
  });

  it('fails each call on demand with the message given, and only that call', async () => {
    const system = new NopExternalSystem();
    const client = await new NopConnector({ system }).connect();
    const mr = nop({ failCreate: 'quota exceeded', failObserve: '' });
    expect(await client.observe(mr, signal)).to.include({ resourceExists: false });
    const err = await client.create(mr, signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(NopInjectedFailure).with.property('message', 'quota exceeded');
    expect(system.size).to.equal(0);
    const failing = nop({ failObserve: 'observe is down' });
    const observeErr = await client.observe(failing, signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(observeErr).to.be.instanceOf(NopInjectedFailure);
  });
});
