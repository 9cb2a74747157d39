import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { ManualClock } from '../../../src/base/index.js';
import { RecordingEventSink } from '../../../src/kube/index.js';
import {
  operationForWatched,
  selects,
  triggers,
  watchedOperationName,
  WatchedReconciler,
  WatchOperationReconciler,
  type Operation,
  type WatchedEvent,
  type WatchedObject,
  type WatchOperation,
  type Watches,
} from '../../../src/operations/index.js';
import { FakeOpsStore, signal } from './fakes.js';

function watchOp(spec: Partial<WatchOperation['spec']> = {}): WatchOperation {
  return {
    apiVersion: 'ops.crossplane.io/v1alpha1',
    kind: 'WatchOperation',
    metadata: { name: 'cm-watch', generation: 1 },
    spec: {
      watch: { apiVersion: 'v1', kind: 'ConfigMap', matchLabels: { watch: 'me' }, namespace: 'default' },
      operationTemplate: { spec: { pipeline: [{ step: 'one', functionRef: { name: 'fn' } }] } },
      ...spec,
    },
  };
}

function cm(name: string, resourceVersion: string, labels: Record<string, string> = { watch: 'me' }): WatchedObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion, labels },
  };
}

describe('operations/watchDecision', () => {
  const watch = watchOp().spec.watch;
  const cases: Record<string, { event: WatchedEvent; echo?: boolean; want: boolean }> = {
    'an add of a selected object': { event: { type: 'add', object: cm('a', '1') }, want: true },
    'an object without the labels': { event: { type: 'add', object: cm('a', '1', {}) }, want: false },
    'an object in another namespace': {
      event: { type: 'add', object: { ...cm('a', '1'), metadata: { ...cm('a', '1').metadata, namespace: 'x' } } },
      want: false,
    },
    'an update to a new version': {
      event: { type: 'update', object: cm('a', '2'), oldObject: cm('a', '1') },
      want: true,
    },
    'an update that changed nothing': {
      event: { type: 'update', object: cm('a', '1'), oldObject: cm('a', '1') },
      want: false,
    },
    'an update that removed the label (selected before it)': {
      event: { type: 'update', object: cm('a', '2', {}), oldObject: cm('a', '1') },
      want: true,
    },
    'a resync': { event: { type: 'resync', object: cm('a', '1') }, want: false },
    "the echo of an Operation's own write": {
      event: { type: 'update', object: cm('a', '2'), oldObject: cm('a', '1') },
      echo: true,
      want: false,
    },
    'a deletion': { event: { type: 'delete', object: cm('a', '3') }, want: true },
  };
  for (const [reason, { event, echo, want }] of Object.entries(cases)) {
    it(reason, () => {
      expect(
        triggers(watch, event, () => echo === true),
        reason,
      ).to.equal(want);
    });
  }

  it('does not filter cluster-scoped objects by namespace', () => {
    const node: WatchedObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', labels: { watch: 'me' } } };
    expect(selects(watch, node)).to.equal(true);
  });

  it("names the Operation upstream's way: a SHA-256 of kind, namespace, name, UID and resourceVersion", () => {
    const hash = createHash('sha256').update('/v1, Kind=ConfigMap/default/a/uid-a/7').digest('hex');
    expect(watchedOperationName(watchOp(), cm('a', '7'))).to.equal(`cm-watch-${hash.slice(0, 7)}`);
    expect(watchedOperationName(watchOp(), cm('a', '8'))).to.not.equal(watchedOperationName(watchOp(), cm('a', '7')));
  });

  it('injects the watched resource into every step, with its annotations', () => {
    const wo = watchOp({
      operationTemplate: {
        spec: {
          pipeline: [
            { step: 'one', functionRef: { name: 'fn' } },
            {
              step: 'two',
              functionRef: { name: 'fn' },
              requirements: {
                requiredResources: [{ requirementName: 'x', apiVersion: 'v1', kind: 'Secret', name: 's' }],
              },
            },
          ],
        },
      },
    });
    const op = operationForWatched(wo, cm('a', '7'), 'cm-watch-abc');
    const injected = {
      requirementName: 'ops.crossplane.io/watched-resource',
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'a',
      namespace: 'default',
    };
    expect(op.spec.pipeline.map((s) => s.requirements?.requiredResources?.at(-1))).to.deep.equal([injected, injected]);
    expect(op.spec.pipeline[1]?.requirements?.requiredResources).to.have.length(2);
    expect(op.metadata.annotations).to.deep.equal({
      'ops.crossplane.io/watched-resource-apiversion': 'v1',
      'ops.crossplane.io/watched-resource-kind': 'ConfigMap',
      'ops.crossplane.io/watched-resource-name': 'a',
      'ops.crossplane.io/watched-resource-namespace': 'default',
      'ops.crossplane.io/watched-resource-resourceversion': '7',
    });
    expect(op.metadata.labels).to.deep.equal({ 'ops.crossplane.io/watchoperation': 'cm-watch' });
    expect(wo.spec.operationTemplate.spec.pipeline[0]?.requirements, 'the template is not changed').to.equal(undefined);
  });
});

function setupWatched(spec: Partial<WatchOperation['spec']> = {}) {
  const clock = new ManualClock(Date.parse('2026-03-01T10:00:00Z'));
  const store = new FakeOpsStore(clock);
  const events = new RecordingEventSink();
  const cache = new Map<string, WatchedObject>();
  store.put(watchOp(spec));
  const reconciler = new WatchedReconciler({
    store,
    events,
    watchOperation: 'cm-watch',
    watched: (key) => cache.get(key),
    clock,
  });
  return { clock, store, events, cache, reconciler };
}

describe('operations/WatchedReconciler', () => {
  it('creates one Operation per version of the watched resource', async () => {
    const { store, cache, reconciler } = setupWatched();
    cache.set('default/a', cm('a', '1'));
    await reconciler.reconcile('default/a', signal);
    await reconciler.reconcile('default/a', signal);
    expect(store.operations()).to.have.length(1);
    cache.set('default/a', cm('a', '2'));
    await reconciler.reconcile('default/a', signal);
    expect(store.operations()).to.have.length(2);
  });

  it('starts an Operation for a deleted resource with a stand-in for it', async () => {
    const { store, reconciler } = setupWatched();
    await reconciler.reconcile('default/gone', signal);
    const [op] = store.operations();
    expect(op?.metadata.annotations).to.include({
      'ops.crossplane.io/watched-resource-name': 'gone',
      'ops.crossplane.io/watched-resource-resourceversion': 'ops.crossplane.io/synthetic-deleted',
    });
  });

  it('Forbid drops a change while an Operation runs; Replace deletes the running one', async () => {
    const forbid = setupWatched({ concurrencyPolicy: 'Forbid' });
    forbid.cache.set('default/a', cm('a', '1'));
    await forbid.reconciler.reconcile('default/a', signal);
    forbid.cache.set('default/a', cm('a', '2'));
    await forbid.reconciler.reconcile('default/a', signal);
    expect(forbid.store.operations()).to.have.length(1);

    const replace = setupWatched({ concurrencyPolicy: 'Replace' });
    replace.cache.set('default/a', cm('a', '1'));
    await replace.reconciler.reconcile('default/a', signal);
    const [first] = replace.store.operations();
    replace.cache.set('default/a', cm('a', '2'));
    await replace.reconciler.reconcile('default/a', signal);
    expect(replace.store.deleted).to.deep.equal([first?.metadata.name]);
    expect(replace.store.operations()).to.have.length(1);
  });
});

class FakeWatches implements Watches {
  readonly running = new Set<string>();
  failure: Error | undefined;
  ensure(wo: WatchOperation): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    this.running.add(wo.metadata.name);
    return Promise.resolve();
  }
  stop(name: string): Promise<void> {
    this.running.delete(name);
    return Promise.resolve();
  }
  count(): number {
    return 2;
  }
}

describe('operations/WatchOperationReconciler', () => {
  function setup() {
    const clock = new ManualClock(Date.parse('2026-03-01T10:00:00Z'));
    const store = new FakeOpsStore(clock);
    const events = new RecordingEventSink();
    const watches = new FakeWatches();
    store.put(watchOp());
    return { store, events, watches, reconciler: new WatchOperationReconciler({ store, events, watches, clock }) };
  }

  it('adds its finalizer, starts the watch and reports what it watches', async () => {
    const { store, watches, reconciler } = setup();
    await reconciler.reconcile('cm-watch', signal);
    const wo = store.read<WatchOperation>('WatchOperation', 'cm-watch');
    expect(wo?.metadata.finalizers).to.deep.equal(['watchoperation.ops.crossplane.io']);
    expect(watches.running.has('cm-watch')).to.equal(true);
    expect(wo?.status?.watchingResources).to.equal(2);
    expect(wo?.status?.conditions?.map((c) => c.reason)).to.have.members(['WatchActive', 'ReconcileSuccess']);
  });

  it('reports a watch that cannot start as WatchFailed with an EstablishWatched event', async () => {
    const { store, events, watches, reconciler } = setup();
    watches.failure = new Error('kind ConfigMap.v1 is not served');
    await reconciler.reconcile('cm-watch', signal).catch(() => undefined);
    const wo = store.read<WatchOperation>('WatchOperation', 'cm-watch');
    expect(wo?.status?.conditions?.find((c) => c.type === 'Watching')).to.include({ reason: 'WatchFailed' });
    expect(events.events.map((e) => e.input.reason)).to.deep.equal(['EstablishWatched']);
  });

  it('stops the watch and removes its finalizer when deleted', async () => {
    const { store, watches, reconciler } = setup();
    await reconciler.reconcile('cm-watch', signal);
    const wo = store.read<WatchOperation>('WatchOperation', 'cm-watch');
    if (!wo) throw new Error('gone');
    wo.metadata.deletionTimestamp = '2026-03-01T10:01:00Z';
    store.objects.set('WatchOperation/cm-watch', wo);
    await reconciler.reconcile('cm-watch', signal);
    expect(watches.running.size).to.equal(0);
    expect(store.read<WatchOperation>('WatchOperation', 'cm-watch')?.metadata.finalizers).to.deep.equal([]);
  });

  it('records the last Operation it created and garbage collects past the history limits', async () => {
    const { store, reconciler } = setup();
    const op = (name: string, ok: boolean): Operation => ({
      apiVersion: 'ops.crossplane.io/v1alpha1',
      kind: 'Operation',
      metadata: { name, labels: { 'ops.crossplane.io/watchoperation': 'cm-watch' } },
      spec: { pipeline: [] },
      status: {
        conditions: [
          { type: 'Succeeded', status: ok ? 'True' : 'False', reason: ok ? 'PipelineSuccess' : 'PipelineError' },
        ],
      },
    });
    store.put(op('f1', false));
    store.put(op('f2', false));
    await reconciler.reconcile('cm-watch', signal);
    expect(store.operations()).to.have.length(1);
    expect(store.read<WatchOperation>('WatchOperation', 'cm-watch')?.status?.lastScheduleTime).to.equal(
      '2026-03-01T10:00:00Z',
    );
  });
});
