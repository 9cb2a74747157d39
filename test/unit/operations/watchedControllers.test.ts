import { expect } from 'chai';
import pino from 'pino';
import { ManualClock, reconcileLimits } from '../../../src/base/index.js';
import { OwnWrites } from '../../../src/circuitbreaker/index.js';
import { RecordingEventSink, type KubeObject } from '../../../src/kube/index.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { WatchedControllers, type WatchOperation } from '../../../src/operations/index.js';
import { ReconcileLimiter } from '../../../src/queue/index.js';
import { FakeInformers, until } from '../fakes/index.js';
import { FakeOpsStore, signal } from './fakes.js';

function watchOp(matchLabels: Record<string, string> = { watch: 'me' }): WatchOperation {
  return {
    apiVersion: 'ops.crossplane.io/v1alpha1',
    kind: 'WatchOperation',
    metadata: { name: 'cm-watch', generation: 1 },
    spec: {
      watch: { apiVersion: 'v1', kind: 'ConfigMap', matchLabels, namespace: 'default' },
      operationTemplate: { spec: { pipeline: [{ step: 'one', functionRef: { name: 'fn' } }] } },
    },
  };
}

function cm(name: string, resourceVersion: string, labels: Record<string, string> = { watch: 'me' }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion, labels },
  };
}

function setup() {
  const clock = new ManualClock(Date.parse('2026-03-01T10:00:00Z'));
  const informers = new FakeInformers();
  const store = new FakeOpsStore(clock);
  const ownWrites = new OwnWrites();
  store.put(watchOp());
  const watches = new WatchedControllers({
    informers: informers.registry,
    events: new RecordingEventSink(),
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles, clock), workers: 2 },
    store,
    ownWrites,
    stopDeadlineMs: 1_000,
  });
  const configMaps = informers.informer('v1', 'ConfigMap');
  return { informers, store, ownWrites, watches, configMaps };
}

describe('operations/WatchedControllers', () => {
  it('holds one lease on the watched kind per WatchOperation, until its watch stops', async () => {
    const { informers, watches } = setup();
    await watches.ensure(watchOp(), signal);
    await watches.ensure(watchOp(), signal);
    expect(informers.held('v1', 'ConfigMap'), 'the same watch is kept').to.equal(1);
    await watches.ensure(watchOp({ watch: 'other' }), signal);
    expect(informers.held('v1', 'ConfigMap'), 'a changed spec.watch replaces the watch').to.equal(1);
    await watches.stop('cm-watch');
    expect(informers.held('v1', 'ConfigMap')).to.equal(0);
    await watches.stop('cm-watch');
  });

  it('creates an Operation per version of a selected object, and counts the selected objects', async () => {
    const { store, watches, configMaps } = setup();
    configMaps.seed(cm('a', '1'));
    configMaps.seed(cm('b', '2', { other: 'label' }));
    await watches.ensure(watchOp(), signal);
    expect(watches.count(watchOp())).to.equal(1);
    // As upstream, the first list delivers what is there as added: "a" at version 1 starts one, its change another.
    await until(() => store.operations().length === 1, 'an Operation is created for version 1 of "a"');
    configMaps.update(cm('a', '3'));
    await until(() => store.operations().length === 2, 'an Operation is created for version 3 of "a"');
    const versions = store
      .operations()
      .map((op) => op.metadata.annotations?.['ops.crossplane.io/watched-resource-resourceversion']);
    expect(versions.sort()).to.deep.equal(['1', '3']);
    await watches.stopAll();
  });

  it("starts no Operation for the echo of an Operation's own write, even one delivered before the write returned", async () => {
    const { store, ownWrites, watches, configMaps } = setup();
    await watches.ensure(watchOp(), signal);
    const written = cm('result', '7');
    let respond: () => void = () => undefined;
    const write = ownWrites.track(
      written,
      () =>
        new Promise<KubeObject>(
          (resolve) =>
            (respond = () => {
              resolve(written);
            }),
        ),
    );
    // The watch event comes first, while the write is in flight; then the response.
    configMaps.add(written);
    respond();
    await write;
    configMaps.add(cm('changed', '8'));
    await until(() => store.operations().length > 0, 'the change of "changed" starts an Operation');
    await new Promise((resolve) => setImmediate(resolve));
    const versions = store
      .operations()
      .map((op) => op.metadata.annotations?.['ops.crossplane.io/watched-resource-name']);
    expect(versions).to.deep.equal(['changed']);
    await watches.stopAll();
  });

  it('rejects a watch of a kind that is not served and holds nothing', async () => {
    const { informers, watches } = setup();
    informers.unserved.add('v1/ConfigMap');
    let failed: unknown;
    await watches.ensure(watchOp(), signal).catch((err: unknown) => (failed = err));
    expect(failed).to.be.instanceOf(Error);
    expect(informers.held('v1', 'ConfigMap')).to.equal(0);
    expect(watches.count(watchOp())).to.equal(undefined);
  });
});
