import { expect } from 'chai';
import { ManualClock } from '../../../src/base/index.js';
import {
  EMPTY_FETCHER,
  type FunctionCall,
  type FunctionRunner,
  type RequiredResourceFetcher,
  type RunFunctionResponse,
} from '../../../src/functions/index.js';
import { ApiError, RecordingEventSink } from '../../../src/kube/index.js';
import {
  OperationReconciler,
  RUN_ATTEMPT_ANNOTATION,
  type Operation,
  type OperationReconcilerDeps,
} from '../../../src/operations/index.js';
import { FakeOpsStore, signal } from './fakes.js';

const NOW = Date.parse('2026-03-01T10:00:00Z');

function operation(overrides: Partial<Operation['spec']> = {}, annotations?: Record<string, string>): Operation {
  return {
    apiVersion: 'ops.crossplane.io/v1alpha1',
    kind: 'Operation',
    metadata: { name: 'rotate', generation: 1, ...(annotations ? { annotations } : {}) },
    spec: { mode: 'Pipeline', pipeline: [{ step: 'one', functionRef: { name: 'fn-rotate' } }], ...overrides },
  };
}

/** A runner that answers each call with `respond` and remembers the calls. */
function scripted(
  respond: (call: FunctionCall) => RunFunctionResponse | Promise<RunFunctionResponse>,
): FunctionRunner & {
  calls: FunctionCall[];
} {
  const calls: FunctionCall[] = [];
  return {
    calls,
    run: async (call) => {
      calls.push(call);
      return respond(call);
    },
  };
}

const configMap = (name: string, namespace = 'default') => ({
  resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { rotated: 'yes' } },
});

function setup(runner: FunctionRunner, extra: Partial<OperationReconcilerDeps> = {}) {
  const clock = new ManualClock(NOW);
  const store = new FakeOpsStore(clock);
  const events = new RecordingEventSink();
  const reconciler = new OperationReconciler({ store, events, runner, fetcher: EMPTY_FETCHER, clock, ...extra });
  return { clock, store, events, reconciler };
}

const condition = (op: Operation | undefined, type: string) => op?.status?.conditions?.find((c) => c.type === type);

describe('operations/OperationReconciler', () => {
  it('runs the pipeline once, applies what it returns under the Operation field manager and records it', async () => {
    const runner = scripted(() => ({
      desired: { resources: { b: configMap('b'), a: configMap('a', 'other') } },
      results: [{ severity: 'SEVERITY_NORMAL', message: 'rotated', reason: 'Ignored' }],
      output: { rotated: 2 },
    }));
    const { store, events, reconciler } = setup(runner);
    const stored = store.put(operation());

    expect(await reconciler.reconcile('rotate', signal)).to.deep.equal({});

    expect(runner.calls).to.have.length(1);
    const request = runner.calls[0]?.request;
    expect(request?.observed, 'an Operation observes nothing').to.deep.equal({});
    expect(request?.meta?.capabilities).to.include('CAPABILITY_REQUIRED_RESOURCES');
    expect(store.applied.map((a) => a.fieldManager)).to.deep.equal([
      `ops.crossplane.io/operation/${stored.metadata.uid ?? ''}`,
      `ops.crossplane.io/operation/${stored.metadata.uid ?? ''}`,
    ]);
    const op = store.read<Operation>('Operation', 'rotate');
    expect(condition(op, 'Succeeded')).to.include({ status: 'True', reason: 'PipelineSuccess' });
    expect(condition(op, 'Synced')).to.include({ status: 'True', reason: 'ReconcileSuccess' });
    expect(condition(op, 'ValidPipeline')).to.include({ status: 'True', reason: 'ValidPipeline' });
    expect(op?.status?.pipeline).to.deep.equal([{ step: 'one', output: { rotated: 2 } }]);
    expect(op?.status?.appliedResourceRefs).to.deep.equal([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'b' },
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'other', name: 'a' },
    ]);
    expect(events.events.map((e) => e.input)).to.deep.equal([
      { type: 'Normal', reason: 'RunPipelineStep', message: 'Pipeline step "one": rotated' },
    ]);

    await reconciler.reconcile('rotate', signal);
    expect(runner.calls, 'a complete Operation never runs again').to.have.length(1);
  });

  it('sends the step its Secret credentials and its bootstrap required resources', async () => {
    const runner = scripted(() => ({}));
    const fetcher: RequiredResourceFetcher = {
      fetchResources: (selector) =>
        Promise.resolve({
          items: [{ resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: selector.matchName ?? '' } } }],
        }),
      fetchSchema: () => Promise.resolve({}),
    };
    const { store, reconciler } = setup(runner, { fetcher });
    store.secrets.set('crossplane-system/creds', { token: Buffer.from('s3cret').toString('base64') });
    store.put(
      operation({
        pipeline: [
          {
            step: 'one',
            functionRef: { name: 'fn' },
            credentials: [
              { name: 'api', source: 'Secret', secretRef: { namespace: 'crossplane-system', name: 'creds' } },
            ],
            requirements: {
              requiredResources: [{ requirementName: 'cm', apiVersion: 'v1', kind: 'ConfigMap', name: 'x' }],
            },
          },
        ],
      }),
    );

    await reconciler.reconcile('rotate', signal);

    const request = runner.calls[0]?.request ?? {};
    const token = request.credentials?.api?.credentialData?.data?.token;
    expect(Buffer.from(token ?? []).toString()).to.equal('s3cret');
    expect(request.requiredResources?.cm?.items?.[0]?.resource).to.deep.include({ kind: 'ConfigMap' });
  });

  it('counts a fatal result as a failure, retries with the queue backoff, and succeeds within the retry limit', async () => {
    let calls = 0;
    const runner = scripted(() => {
      calls += 1;
      return calls === 1 ? { results: [{ severity: 'SEVERITY_FATAL', message: 'not yet' }] } : {};
    });
    const { store, events, reconciler } = setup(runner);
    store.put(operation({ retryLimit: 3 }));

    const err = await reconciler.reconcile('rotate', signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, 'a failed run throws so the queue backs off').to.be.instanceOf(Error);
    let op = store.read<Operation>('Operation', 'rotate');
    expect(op?.status?.failures).to.equal(1);
    expect(condition(op, 'Succeeded')).to.include({ status: 'Unknown', reason: 'PipelineRunning' });
    expect(condition(op, 'Synced')).to.include({ status: 'False', reason: 'ReconcileError' });
    expect(events.events.map((e) => e.input.reason)).to.deep.equal(['FunctionInvocation']);

    await reconciler.reconcile('rotate', signal);
    op = store.read<Operation>('Operation', 'rotate');
    expect(calls, 'the retry ran: a recorded failure is not an interrupted run').to.equal(2);
    expect(condition(op, 'Succeeded')).to.include({ status: 'True', reason: 'PipelineSuccess' });
    expect(op?.status?.failures).to.equal(1);
  });

  it("upstream's retry e2e: a pipeline that always fails ends after retryLimit failures, Synced True", async () => {
    const runner = scripted(() => ({ results: [{ severity: 'SEVERITY_FATAL', message: 'Simulated failure' }] }));
    const { store, reconciler } = setup(runner);
    store.put(operation({ retryLimit: 3 }));

    // The queue retries each thrown failure after its backoff; four reconciles reach the end.
    for (let i = 0; i < 4; i++) await reconciler.reconcile('rotate', signal).catch(() => undefined);

    const op = store.read<Operation>('Operation', 'rotate');
    expect(runner.calls).to.have.length(3);
    expect(op?.status?.failures).to.equal(3);
    expect(condition(op, 'Synced')).to.include({ status: 'True', reason: 'ReconcileSuccess' });
    expect(condition(op, 'Succeeded')).to.include({ status: 'False', reason: 'PipelineError' });
  });

  it('stops at the retry limit: Succeeded False without running', async () => {
    const runner = scripted(() => ({}));
    const { store, reconciler } = setup(runner);
    const stored = store.put(operation({ retryLimit: 2 }));
    await store.updateStatus({ ...stored, status: { failures: 2 } });

    await reconciler.reconcile('rotate', signal);

    const op = store.read<Operation>('Operation', 'rotate');
    expect(runner.calls).to.have.length(0);
    expect(condition(op, 'Succeeded')).to.include({
      status: 'False',
      reason: 'PipelineError',
      message: 'failure limit of 2 reached',
    });
  });

  it('never runs a second time after a process died mid-run: the next process marks the run interrupted', async () => {
    // The first process claims the run, then never comes back (its function call never answers).
    const hung = scripted(() => new Promise<RunFunctionResponse>(() => undefined));
    const first = setup(hung);
    first.store.put(operation());
    void first.reconciler.reconcile('rotate', signal);
    await new Promise((resolve) => setImmediate(resolve));
    expect(hung.calls).to.have.length(1);

    // A second process (a restart, a new leader) sees the claim with no recorded end.
    const runner = scripted(() => ({}));
    const events = new RecordingEventSink();
    const second = new OperationReconciler({
      store: first.store,
      events,
      runner,
      fetcher: EMPTY_FETCHER,
      clock: first.clock,
    });
    await second.reconcile('rotate', signal);

    const op = first.store.read<Operation>('Operation', 'rotate');
    expect(runner.calls, 'not run again').to.have.length(0);
    expect(op?.metadata.annotations?.[RUN_ATTEMPT_ANNOTATION]).to.equal('0');
    expect(condition(op, 'Succeeded')).to.include({ status: 'False', reason: 'PipelineError' });
    expect(events.events.map((e) => e.input.reason)).to.deep.equal(['InterruptedRun']);
  });

  it('does not count a run stopped by shutdown as a failure to retry: the next process reports it interrupted', async () => {
    const controller = new AbortController();
    const runner = scripted(() => {
      controller.abort();
      return Promise.reject(new Error('The operation was aborted'));
    });
    const { store, reconciler } = setup(runner);
    store.put(operation());

    await reconciler.reconcile('rotate', controller.signal).catch(() => undefined);
    expect(store.read<Operation>('Operation', 'rotate')?.status?.failures).to.equal(undefined);

    await reconciler.reconcile('rotate', signal);
    const op = store.read<Operation>('Operation', 'rotate');
    expect(runner.calls).to.have.length(1);
    expect(condition(op, 'Succeeded')).to.include({ status: 'False', reason: 'PipelineError' });
  });

  it('lets only one of two processes claim a run when both read the same version', async () => {
    const runner = scripted(() => ({}));
    const { store, reconciler } = setup(runner);
    const stale = store.put(operation());
    await reconciler.reconcile('rotate', signal);
    expect(runner.calls).to.have.length(1);

    // The other process read the Operation before the claim: its claim is refused, and it runs nothing.
    const other = setup(runner);
    const staleStore = Object.assign(Object.create(store) as FakeOpsStore, {
      get: () => Promise.resolve(structuredClone(stale)),
    });
    const otherReconciler = new OperationReconciler({
      store: staleStore,
      events: other.events,
      runner,
      fetcher: EMPTY_FETCHER,
      clock: other.clock,
    });
    const err = await otherReconciler.reconcile('rotate', signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ApiError).with.property('status', 409);
    expect(runner.calls).to.have.length(1);
  });

  it('refuses functions whose active revision lacks the operation capability, before running any', async () => {
    const runner = scripted(() => ({}));
    const { store, events, reconciler } = setup(runner, {
      activeRevision: (name) => Promise.resolve({ name: `${name}-abc`, capabilities: ['composition'] }),
    });
    store.put(operation());

    await reconciler.reconcile('rotate', signal).catch(() => undefined);

    const op = store.read<Operation>('Operation', 'rotate');
    expect(runner.calls).to.have.length(0);
    expect(op?.status?.failures).to.equal(1);
    expect(condition(op, 'ValidPipeline')).to.include({ status: 'False', reason: 'MissingCapabilities' });
    expect(op?.metadata.annotations?.[RUN_ATTEMPT_ANNOTATION], 'nothing ran, so nothing was claimed').to.equal(
      undefined,
    );
    expect(events.events.map((e) => e.input.reason)).to.deep.equal(['InvalidPipeline']);
  });

  it('records what it applied before an apply failed, with an InvalidResource event', async () => {
    const runner = scripted(() => ({
      desired: { resources: { a: configMap('a'), b: { resource: { kind: 'ConfigMap' } } } },
    }));
    const { store, events, reconciler } = setup(runner);
    store.put(operation());

    await reconciler.reconcile('rotate', signal).catch(() => undefined);

    const op = store.read<Operation>('Operation', 'rotate');
    expect(op?.status?.appliedResourceRefs).to.deep.equal([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' },
    ]);
    expect(events.events.map((e) => e.input.reason)).to.deep.equal(['InvalidResource']);
    expect(op?.status?.failures).to.equal(1);
  });
});
