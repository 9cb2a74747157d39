import { expect } from 'chai';
import { ManualClock } from '../../../src/base/index.js';
import { RecordingEventSink } from '../../../src/kube/index.js';
import {
  CronOperationReconciler,
  type CronOperation,
  type Operation,
  type OperationStatus,
} from '../../../src/operations/index.js';
import { FakeOpsStore, signal } from './fakes.js';

const at = (time: string): number => Date.parse(`2026-03-01T${time}Z`);

function cron(spec: Partial<CronOperation['spec']> = {}, annotations?: Record<string, string>): CronOperation {
  return {
    apiVersion: 'ops.crossplane.io/v1alpha1',
    kind: 'CronOperation',
    metadata: { name: 'tidy', generation: 1, ...(annotations ? { annotations } : {}) },
    spec: {
      schedule: '*/5 * * * *',
      operationTemplate: {
        metadata: { labels: { team: 'a' } },
        spec: { pipeline: [{ step: 'one', functionRef: { name: 'fn' } }] },
      },
      ...spec,
    },
  };
}

function setup(spec: Partial<CronOperation['spec']> = {}, annotations?: Record<string, string>) {
  const clock = new ManualClock(at('10:02:00'));
  const store = new FakeOpsStore(clock);
  const events = new RecordingEventSink();
  store.put(cron(spec, annotations));
  const reconciler = new CronOperationReconciler({ store, events, clock });
  return { clock, store, events, reconciler };
}

/** Finishes an Operation as its reconciler would: Succeeded True or False at the clock's time. */
async function finish(store: FakeOpsStore, name: string, ok: boolean, clock: ManualClock): Promise<void> {
  const op = store.read<Operation>('Operation', name);
  if (!op) throw new Error(`no Operation ${name}`);
  const time = new Date(clock.now()).toISOString();
  const status: OperationStatus = {
    conditions: [
      {
        type: 'Succeeded',
        status: ok ? 'True' : 'False',
        reason: ok ? 'PipelineSuccess' : 'PipelineError',
        lastTransitionTime: time,
      },
    ],
  };
  await store.updateStatus({ ...op, status });
}

const versionOf = (store: FakeOpsStore) => store.read<CronOperation>('CronOperation', 'tidy')?.metadata.resourceVersion;

const names = (store: FakeOpsStore) =>
  store
    .operations()
    .map((o) => o.metadata.name)
    .sort();

describe('operations/CronOperationReconciler', () => {
  it('creates one Operation per run, driven by the clock, and waits in between', async () => {
    const { clock, store, reconciler } = setup();

    const first = await reconciler.reconcile('tidy', signal);
    expect(first.requeueAfterMs, 'waits for 10:05').to.equal(3 * 60_000);
    expect(names(store)).to.deep.equal([]);
    const version = versionOf(store);
    await reconciler.reconcile('tidy', signal);
    expect(versionOf(store), 'a reconcile with nothing to do writes nothing').to.equal(version);

    clock.advance(first.requeueAfterMs ?? 0);
    const second = await reconciler.reconcile('tidy', signal);
    const name = `tidy-${String(at('10:05:00') / 1000)}`;
    expect(names(store)).to.deep.equal([name]);
    expect(second.requeueAfterMs).to.equal(5 * 60_000);

    const op = store.read<Operation>('Operation', name);
    expect(op?.metadata.labels).to.deep.equal({ team: 'a', 'ops.crossplane.io/cronoperation': 'tidy' });
    expect(op?.metadata.ownerReferences?.[0]).to.include({ kind: 'CronOperation', name: 'tidy', controller: true });
    const co = store.read<CronOperation>('CronOperation', 'tidy');
    expect(co?.status?.lastScheduleTime).to.equal('2026-03-01T10:05:00Z');
    expect(co?.status?.runningOperationRefs).to.deep.equal([{ name }]);
    expect(co?.status?.conditions?.find((c) => c.type === 'Scheduling')).to.include({ reason: 'ScheduleActive' });

    // The Operation's own change brings the CronOperation back before the next run: nothing more is created.
    await reconciler.reconcile('tidy', signal);
    expect(names(store)).to.have.length(1);
  });

  it('creates one Operation for the runs missed while it was down', async () => {
    const { clock, store, reconciler } = setup();
    clock.advanceTo(at('11:01:00'));

    await reconciler.reconcile('tidy', signal);
    await reconciler.reconcile('tidy', signal);

    expect(names(store)).to.deep.equal([`tidy-${String(at('11:00:00') / 1000)}`]);
  });

  it('skips a run past startingDeadlineSeconds and takes the next one', async () => {
    const { clock, store, reconciler } = setup({ startingDeadlineSeconds: 30 });
    clock.advanceTo(at('10:06:00'));
    const skipped = await reconciler.reconcile('tidy', signal);
    expect(names(store)).to.deep.equal([]);
    clock.advance(skipped.requeueAfterMs ?? 0);
    await reconciler.reconcile('tidy', signal);
    expect(names(store)).to.deep.equal([`tidy-${String(at('10:10:00') / 1000)}`]);
  });

  it('Forbid: no second Operation while one runs; the deferred run starts when it ends', async () => {
    const { clock, store, reconciler } = setup({ concurrencyPolicy: 'Forbid' });
    clock.advanceTo(at('10:05:00'));
    await reconciler.reconcile('tidy', signal);
    clock.advanceTo(at('10:10:00'));
    await reconciler.reconcile('tidy', signal);
    expect(names(store)).to.have.length(1);

    await finish(store, `tidy-${String(at('10:05:00') / 1000)}`, true, clock);
    await reconciler.reconcile('tidy', signal);
    expect(names(store)).to.have.length(2);
  });

  it('Replace: deletes the running Operation before creating the next', async () => {
    const { clock, store, reconciler } = setup({ concurrencyPolicy: 'Replace' });
    clock.advanceTo(at('10:05:00'));
    await reconciler.reconcile('tidy', signal);
    clock.advanceTo(at('10:10:00'));
    await reconciler.reconcile('tidy', signal);
    expect(names(store)).to.deep.equal([`tidy-${String(at('10:10:00') / 1000)}`]);
    expect(store.deleted).to.deep.equal([`tidy-${String(at('10:05:00') / 1000)}`]);
  });

  it('keeps successfulHistoryLimit succeeded and failedHistoryLimit failed Operations, newest first', async () => {
    const { clock, store, reconciler } = setup({ successfulHistoryLimit: 1, failedHistoryLimit: 1 });
    const outcomes = [true, false, true, false];
    for (const [i, ok] of outcomes.entries()) {
      clock.advanceTo(at(`10:${String(5 * (i + 1)).padStart(2, '0')}:00`));
      await reconciler.reconcile('tidy', signal);
      await finish(store, `tidy-${String(clock.now() / 1000)}`, ok, clock);
    }
    await reconciler.reconcile('tidy', signal);

    expect(names(store)).to.deep.equal([
      `tidy-${String(at('10:15:00') / 1000)}`,
      `tidy-${String(at('10:20:00') / 1000)}`,
    ]);
    const co = store.read<CronOperation>('CronOperation', 'tidy');
    expect(co?.status?.lastSuccessfulTime).to.equal('2026-03-01T10:15:00Z');
  });

  it('reports an invalid schedule once, without requeueing', async () => {
    const { store, events, reconciler } = setup({ schedule: 'every day' });
    expect(await reconciler.reconcile('tidy', signal)).to.deep.equal({});
    await reconciler.reconcile('tidy', signal);
    const co = store.read<CronOperation>('CronOperation', 'tidy');
    expect(co?.status?.conditions?.find((c) => c.type === 'Scheduling')).to.include({
      status: 'False',
      reason: 'ScheduleInvalid',
    });
    expect(events.events.map((e) => e.input.reason)).to.deep.equal(['InvalidSchedule']);
  });

  it('schedules nothing while paused', async () => {
    const { clock, store, reconciler } = setup({}, { 'crossplane.io/paused': 'true' });
    clock.advanceTo(at('10:05:00'));
    expect(await reconciler.reconcile('tidy', signal)).to.deep.equal({});
    expect(names(store)).to.deep.equal([]);
    const co = store.read<CronOperation>('CronOperation', 'tidy');
    expect(co?.status?.conditions?.map((c) => c.reason)).to.have.members(['SchedulePaused', 'ReconcilePaused']);
  });

  it('reports a failed create with a CreateOperation event and Synced False', async () => {
    const { clock, store, events, reconciler } = setup();
    clock.advanceTo(at('10:05:00'));
    store.failing.set('createOperation', new Error('quota exceeded'));
    const err = await reconciler.reconcile('tidy', signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect(events.events.map((e) => e.input.reason)).to.deep.equal(['CreateOperation']);
    const co = store.read<CronOperation>('CronOperation', 'tidy');
    expect(co?.status?.conditions?.find((c) => c.type === 'Synced')).to.include({ status: 'False' });
  });
});
