import { expect } from 'chai';
import pino from 'pino';
import { VirtualTimeScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { nopBreaker, OwnWrites, TokenBucketBreaker, type Breaker } from '../../../src/circuitbreaker/index.js';
import { CompositeEventPipeline, type CompositeEventPipelineOptions } from '../../../src/composite/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { FakeInformers } from '../fakes/index.js';

const XR = { apiVersion: 'example.org/v1', group: 'example.org', kind: 'XApp', namespaced: true };
const REVISION = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'CompositionRevision' };

function xr(
  name: string,
  extra: { uid?: string; crossplane?: Record<string, unknown>; annotations?: object } = {},
): KubeObject {
  return {
    apiVersion: XR.apiVersion,
    kind: XR.kind,
    metadata: {
      name,
      namespace: 'default',
      uid: extra.uid ?? `uid-${name}`,
      resourceVersion: '1',
      annotations: extra.annotations,
    },
    spec: { crossplane: extra.crossplane ?? {} },
  };
}

function configMap(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '5', ...extra },
  };
}

function ownedBy(owner: string): Record<string, unknown> {
  return {
    ownerReferences: [{ apiVersion: XR.apiVersion, kind: XR.kind, name: owner, uid: `uid-${owner}`, controller: true }],
  };
}

/** Lets promise callbacks and the fake informers' deferred work run; no time passes. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A started pipeline in virtual time whose XR `name` exists and whose ConfigMap informer has not had its first list
 * yet (call `configMaps.sync()` for it); no key enqueued so far.
 */
async function beforeFirstList(
  name: string,
  options: Partial<CompositeEventPipelineOptions> = {},
): Promise<Setup & { scheduler: VirtualTimeScheduler; configMaps: ReturnType<FakeInformers['informer']> }> {
  const scheduler = new VirtualTimeScheduler();
  const started = setup({ scheduler, composedSyncWaitMs: 1_000, ...options });
  started.informers.informer(XR.apiVersion, XR.kind).seed(xr(name));
  await started.pipeline.start();
  started.keys.length = 0;
  return { ...started, scheduler, configMaps: started.informers.informer('v1', 'ConfigMap', false) };
}

interface Setup {
  informers: FakeInformers;
  pipeline: CompositeEventPipeline;
  keys: string[];
  later: [string, number][];
  errors: string[];
}

function setup(options: Partial<CompositeEventPipelineOptions> = {}): Setup {
  const informers = new FakeInformers();
  const keys: string[] = [];
  const later: [string, number][] = [];
  const errors: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => errors.push(line) });
  const pipeline = new CompositeEventPipeline({
    xr: XR,
    informers: informers.registry,
    enqueue: (key) => keys.push(key),
    enqueueAfter: (key, delayMs) => later.push([key, delayMs]),
    breaker: nopBreaker,
    ownWrites: new OwnWrites(),
    realtime: true,
    logger,
    ...options,
  });
  return { informers, pipeline, keys, later, errors };
}

describe('composite/CompositeEventPipeline', () => {
  it('enqueues an XR for its own add, update and delete events, and not for a resync', async () => {
    const { informers, pipeline, keys } = setup();
    await pipeline.start();
    const xrs = informers.informer(XR.apiVersion, XR.kind);
    xrs.add(xr('a'));
    xrs.update({ ...xr('a'), spec: { v: 2 } });
    xrs.resync(xr('a'));
    xrs.delete(xr('a'));
    expect(keys).to.deep.equal(['default/a', 'default/a', 'default/a']);
    await pipeline.stop();
  });

  it('enqueues the XRs a synced informer already holds, and resolves start once both caches are synced', async () => {
    const { informers, pipeline, keys } = setup();
    informers.informer(XR.apiVersion, XR.kind).seed(xr('a'));
    const revisions = informers.informer(REVISION.apiVersion, REVISION.kind, false);
    let started = false;
    const start = pipeline.start().then(() => (started = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started, 'waits for the revision cache').to.equal(false);
    revisions.sync();
    await start;
    expect(keys).to.deep.equal(['default/a']);
    await pipeline.stop();
  });

  it('spreads settled XRs of the first list (initialDelayMs), and enqueues the others at once', async () => {
    const { informers, pipeline, keys, later } = setup({
      initialDelayMs: (object) => (object.metadata.name === 'settled' ? 90_000 : undefined),
    });
    const xrs = informers.informer(XR.apiVersion, XR.kind, false);
    const start = pipeline.start();
    xrs.add(xr('settled'));
    xrs.add(xr('unsettled'));
    xrs.sync();
    await start;
    xrs.add(xr('created-later'));
    expect(later).to.deep.equal([['default/settled', 90_000]]);
    expect(keys).to.deep.equal(['default/unsettled', 'default/created-later']);
    await pipeline.stop();
  });

  it('joining shared caches late, spreads the settled XRs they hold, and runs none for the revisions they hold', async () => {
    const { informers, pipeline, keys, later } = setup({
      initialDelayMs: (object) => (object.metadata.name === 'settled' ? 90_000 : undefined),
    });
    // Another controller's informers, synced long before this pipeline starts (a composite controller restarted
    // while the claim controller and the revision controller keep the XR and revision watches).
    const xrs = informers.informer(XR.apiVersion, XR.kind);
    xrs.seed(xr('settled', { crossplane: { compositionRevisionRef: { name: 'app-1' } } }));
    xrs.seed(xr('unsettled', { crossplane: { compositionRef: { name: 'app' } } }));
    informers
      .informer(REVISION.apiVersion, REVISION.kind)
      .seed({ ...REVISION, metadata: { name: 'app-1', labels: { 'crossplane.io/composition-name': 'app' } } });
    await pipeline.start();
    expect(later, 'the settled XR waits for its spread').to.deep.equal([['default/settled', 90_000]]);
    expect(keys, 'the unsettled XR goes at once, and once').to.deep.equal(['default/unsettled']);
    await pipeline.stop();
  });

  it('maps a composed resource to its controller, the XRs that list it and those that required it', async () => {
    const { informers, pipeline, keys } = setup();
    const xrs = informers.informer(XR.apiVersion, XR.kind);
    xrs.seed(xr('lister', { crossplane: { resourceRefs: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm' }] } }));
    xrs.seed(xr('owner'));
    xrs.seed(xr('reader'));
    await pipeline.start();
    keys.length = 0;
    await pipeline.watchComposed('v1', 'ConfigMap');
    pipeline.setRequired('default/reader', [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'cm' }]);
    informers.informer('v1', 'ConfigMap').update(configMap('cm', ownedBy('owner')));
    expect([...keys].sort()).to.deep.equal(['default/lister', 'default/owner', 'default/reader']);
    expect(pipeline.composedStore('v1', 'ConfigMap')).to.not.equal(undefined);
    await pipeline.stop();
  });

  it('lets the first list of a composed kind pass nothing: its XRs come with their own events', async () => {
    const { informers, pipeline, keys } = setup();
    informers.informer(XR.apiVersion, XR.kind).seed(xr('owner'));
    await pipeline.start();
    keys.length = 0;
    const configMaps = informers.informer('v1', 'ConfigMap', false);
    const watching = pipeline.watchComposed('v1', 'ConfigMap');
    await new Promise((resolve) => setImmediate(resolve));
    configMaps.add(configMap('cm', ownedBy('owner')));
    configMaps.sync();
    await watching;
    expect(keys).to.deep.equal([]);
    await pipeline.stop();
  });

  it('holds a reconcile at most composedSyncWaitMs for a first list, then enqueues the XR once it is in, to read the kind live once', async () => {
    const { scheduler, pipeline, keys, configMaps } = await beforeFirstList('owner');
    // The first list is still coming (after a restart with 300,000 ConfigMaps): the wait ends at 1 s, virtual.
    const watching = pipeline.watchComposedFor('v1', 'ConfigMap', 'default/owner');
    await settle();
    scheduler.flush();
    await watching;
    expect(scheduler.now(), 'waited 1 s').to.equal(1_000);
    expect(pipeline.composedStore('v1', 'ConfigMap'), 'reads go to the API server until it syncs').to.equal(undefined);
    // A change the XR did not see: it arrives with the first list, which enqueues nothing by itself.
    configMaps.add(configMap('cm', ownedBy('owner')));
    expect(keys).to.deep.equal([]);
    configMaps.sync();
    await settle();
    expect(keys, 'enqueued once the cache has synced').to.deep.equal(['default/owner']);
    expect(pipeline.composedStore('v1', 'ConfigMap')).to.not.equal(undefined);
    // Its next reconcile reads the kind from the API server, once: what it applied may postdate the list.
    expect([...pipeline.takeLiveReads('default/owner')]).to.deep.equal(['v1/ConfigMap']);
    expect([...pipeline.takeLiveReads('default/owner')]).to.deep.equal([]);
    // Synced: later XRs neither wait nor go again; changes reach them through the watch.
    keys.length = 0;
    await pipeline.watchComposedFor('v1', 'ConfigMap', 'default/other');
    configMaps.sync();
    await settle();
    expect(keys).to.deep.equal([]);
    expect([...pipeline.takeLiveReads('default/other')]).to.deep.equal([]);
    await pipeline.stop();
  });

  it('waits for a first list that comes in time, and then enqueues nothing and reads the cache', async () => {
    const { scheduler, pipeline, keys, configMaps } = await beforeFirstList('owner');
    let done = false;
    const watching = pipeline.watchComposedFor('v1', 'ConfigMap', 'default/owner').then(() => {
      done = true;
    });
    await settle();
    expect(done, 'still waiting for the first list').to.equal(false);
    configMaps.sync();
    await watching;
    expect(scheduler.now(), 'no virtual time passed').to.equal(0);
    expect(keys).to.deep.equal([]);
    expect(pipeline.composedStore('v1', 'ConfigMap')).to.not.equal(undefined);
    expect([...pipeline.takeLiveReads('default/owner')]).to.deep.equal([]);
    await pipeline.stop();
  });

  it('enqueues once more, when the cache has synced, an XR that read a composed kind before it had', async () => {
    const { pipeline, keys, configMaps } = await beforeFirstList('reader');
    // Read before the kind was even watched: the list that follows may hold a change made after the read.
    pipeline.readBeforeSync('v1', 'ConfigMap', 'default/reader');
    const watching = pipeline.watchComposedFor('v1', 'ConfigMap', 'default/reader');
    await settle();
    configMaps.sync();
    await watching;
    expect(keys).to.deep.equal(['default/reader']);
    expect([...pipeline.takeLiveReads('default/reader')]).to.deep.equal(['v1/ConfigMap']);
    // A read of a synced kind notes nothing.
    keys.length = 0;
    pipeline.readBeforeSync('v1', 'ConfigMap', 'default/reader');
    configMaps.sync();
    await settle();
    expect(keys).to.deep.equal([]);
    await pipeline.stop();
  });

  it('forgets the XRs waiting for a kind it stops watching before its first list is in', async () => {
    const { scheduler, pipeline, keys, configMaps } = await beforeFirstList('gone');
    const watching = pipeline.watchComposedFor('v1', 'ConfigMap', 'default/gone');
    await settle();
    scheduler.flush();
    await watching;
    await pipeline.unwatchComposed('v1', 'ConfigMap');
    configMaps.sync();
    await settle();
    expect(keys).to.deep.equal([]);
    expect(pipeline.composedStore('v1', 'ConfigMap')).to.equal(undefined);
    await pipeline.stop();
  });

  it('with realtime off neither watches nor notes anything', async () => {
    const { informers, pipeline, keys } = setup({ realtime: false });
    await pipeline.start();
    keys.length = 0;
    pipeline.readBeforeSync('v1', 'ConfigMap', 'default/reader');
    await pipeline.watchComposedFor('v1', 'ConfigMap', 'default/reader');
    expect(pipeline.composedKinds()).to.deep.equal([]);
    informers.informer('v1', 'ConfigMap', false).sync();
    await settle();
    expect(keys).to.deep.equal([]);
    expect([...pipeline.takeLiveReads('default/reader')]).to.deep.equal([]);
    await pipeline.stop();
  });

  it('maps a revision to the XRs that use it and, for automatic updates, to those of its Composition', async () => {
    const { informers, pipeline, keys } = setup();
    const xrs = informers.informer(XR.apiVersion, XR.kind);
    xrs.seed(xr('pinned', { crossplane: { compositionRevisionRef: { name: 'app-1' } } }));
    xrs.seed(xr('follower', { crossplane: { compositionRef: { name: 'app' } } }));
    xrs.seed(xr('other', { crossplane: { compositionRef: { name: 'other' } } }));
    await pipeline.start();
    keys.length = 0;
    const revision = { ...REVISION, metadata: { name: 'app-1', labels: { 'crossplane.io/composition-name': 'app' } } };
    informers.informer(REVISION.apiVersion, REVISION.kind).add(revision);
    expect([...keys].sort()).to.deep.equal(['default/follower', 'default/pinned']);
    await pipeline.stop();
  });

  it('maps a new revision of a Composition for its kind to the XRs that have not selected one yet', async () => {
    // Such an XR may be selecting right now: it picked the previous revision, and its cached copy names no
    // Composition until its write comes back. Without this it stayed on that revision until its next poll.
    const { informers, pipeline, keys } = setup();
    const xrs = informers.informer(XR.apiVersion, XR.kind);
    xrs.seed(xr('selecting'));
    xrs.seed(xr('settled', { crossplane: { compositionRef: { name: 'other' } } }));
    await pipeline.start();
    keys.length = 0;
    const revisions = informers.informer(REVISION.apiVersion, REVISION.kind);
    const labels = { 'crossplane.io/composition-name': 'app' };
    const typeRef = (kind: string): Record<string, unknown> => ({ apiVersion: XR.apiVersion, kind });
    revisions.add({
      ...REVISION,
      metadata: { name: 'db-1', labels },
      spec: { compositeTypeRef: typeRef('XDatabase') },
    });
    expect(keys, 'a revision for another kind').to.deep.equal([]);
    revisions.add({ ...REVISION, metadata: { name: 'app-2', labels }, spec: { compositeTypeRef: typeRef(XR.kind) } });
    expect(keys).to.deep.equal(['default/selecting']);
    await pipeline.stop();
  });

  it('runs no XR for a revision update that changes nothing XRs read (its ValidPipeline condition written), and does for one that does', async () => {
    const { informers, pipeline, keys } = setup();
    const xrs = informers.informer(XR.apiVersion, XR.kind);
    xrs.seed(xr('follower', { crossplane: { compositionRef: { name: 'app' } } }));
    const labels = { 'crossplane.io/composition-name': 'app' };
    const revision: KubeObject = { ...REVISION, metadata: { name: 'app-1', labels }, spec: { revision: 1 } };
    const revisions = informers.informer(REVISION.apiVersion, REVISION.kind);
    revisions.seed(revision);
    await pipeline.start();
    keys.length = 0;
    const valid = (status: string): KubeObject => ({
      ...revision,
      status: { conditions: [{ type: 'ValidPipeline', status, reason: 'ValidPipeline', message: 'checked' }] },
    });
    revisions.update(valid('True'));
    expect(keys, 'a valid pipeline, as an absent condition reads').to.deep.equal([]);
    revisions.update(valid('False'));
    expect(keys, 'the pipeline refused').to.deep.equal(['default/follower']);
    revisions.update({ ...valid('False'), spec: { revision: 2 } });
    expect(keys, 'a new revision number').to.deep.equal(['default/follower', 'default/follower']);
    revisions.update({
      ...valid('False'),
      metadata: { name: 'app-1', labels: { ...labels, channel: 'stable' } },
      spec: { revision: 2 },
    });
    expect(keys, 'a new label').to.have.length(3);
    await pipeline.stop();
  });

  it('maps a Function that became Healthy to the XRs whose revision calls it, so they do not wait out their backoff', async () => {
    const { informers, pipeline, keys } = setup();
    const xrs = informers.informer(XR.apiVersion, XR.kind);
    xrs.seed(xr('uses', { crossplane: { compositionRevisionRef: { name: 'app-1' } } }));
    xrs.seed(xr('other', { crossplane: { compositionRevisionRef: { name: 'other-1' } } }));
    // Failed in its first pipeline run, before its revision was stored: its Synced condition names the Function.
    const failed = (fn: string): KubeObject => ({
      ...xr(`failed-on-${fn}`),
      status: {
        conditions: [{ type: 'Synced', status: 'False', message: `cannot run function "${fn}" for pipeline step "s"` }],
      },
    });
    xrs.seed(failed('function-kcl'));
    xrs.seed(failed('function-cel'));
    const pipelineOf = (fn: string): object => ({ pipeline: [{ step: 's', functionRef: { name: fn } }] });
    const revisions = informers.informer(REVISION.apiVersion, REVISION.kind);
    revisions.seed({ ...REVISION, metadata: { name: 'app-1' }, spec: pipelineOf('function-kcl') });
    revisions.seed({ ...REVISION, metadata: { name: 'other-1' }, spec: pipelineOf('function-cel') });
    const functions = informers.informer('pkg.crossplane.io/v1', 'Function');
    const fn = (healthy: string): KubeObject => ({
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: 'function-kcl' },
      status: { conditions: [{ type: 'Healthy', status: healthy }] },
    });
    functions.seed(fn('False'));
    await pipeline.start();
    keys.length = 0;
    functions.update(fn('False'));
    expect(keys, 'still unhealthy').to.deep.equal([]);
    functions.update(fn('True'));
    expect([...keys].sort()).to.deep.equal(['default/failed-on-function-kcl', 'default/uses']);
    keys.length = 0;
    functions.update(fn('True'));
    expect(keys, 'only the transition').to.deep.equal([]);
    await pipeline.stop();
  });

  it('passes nothing for the echo of its own write, and holds an event until a write in flight settles', async () => {
    const ownWrites = new OwnWrites();
    const { informers, pipeline, keys } = setup({ ownWrites });
    const xrs = informers.informer(XR.apiVersion, XR.kind);
    await pipeline.start();
    const written = { ...xr('a'), metadata: { ...xr('a').metadata, resourceVersion: '7' } };
    let finish: (object: KubeObject) => void = () => undefined;
    const write = ownWrites.track(xr('a'), () => new Promise<KubeObject>((resolve) => (finish = resolve)));
    // The watch delivers the write's event before its response: it waits, then is recognised as the echo.
    xrs.update(written);
    expect(keys).to.deep.equal([]);
    finish(written);
    await write;
    await new Promise((resolve) => setImmediate(resolve));
    expect(keys, 'an echo enqueues nothing').to.deep.equal([]);
    xrs.update({ ...written, metadata: { ...written.metadata, resourceVersion: '8' } });
    expect(keys, 'news from someone else').to.deep.equal(['default/a']);
    await pipeline.stop();
  });

  it('still enqueues an XR for the echo of its nested XR of the same kind', async () => {
    const ownWrites = new OwnWrites();
    const { informers, pipeline, keys } = setup({ ownWrites });
    informers.informer(XR.apiVersion, XR.kind).seed(xr('outer'));
    await pipeline.start();
    keys.length = 0;
    await pipeline.watchComposed(XR.apiVersion, XR.kind);
    const nested = { ...xr('inner'), metadata: { ...xr('inner').metadata, ...ownedBy('outer') } };
    ownWrites.record(nested);
    informers.informer(XR.apiVersion, XR.kind).update(nested);
    expect(keys).to.include('default/outer');
    await pipeline.stop();
  });

  it('drops the events of XRs another shard owns', async () => {
    const { informers, pipeline, keys } = setup({ owns: (object) => object.metadata.name !== 'theirs' });
    const xrs = informers.informer(XR.apiVersion, XR.kind);
    await pipeline.start();
    xrs.add(xr('ours'));
    xrs.add(xr('theirs'));
    expect(keys).to.deep.equal(['default/ours']);
    await pipeline.stop();
  });

  it('logs a mapping that throws and goes on with the next event', async () => {
    const { informers, pipeline, keys, errors } = setup({
      owns: (object) => {
        if (object.metadata.name === 'bad') throw new Error('cannot tell');
        return true;
      },
    });
    const xrs = informers.informer(XR.apiVersion, XR.kind);
    await pipeline.start();
    xrs.add(xr('bad'));
    xrs.add(xr('good'));
    expect(keys).to.deep.equal(['default/good']);
    expect(errors.join('')).to.contain('cannot map a watch event to XRs; event ignored');
    await pipeline.stop();
  });

  it('does not watch composed kinds with realtime off', async () => {
    const { informers, pipeline } = setup({ realtime: false });
    await pipeline.start();
    await pipeline.watchComposed('v1', 'ConfigMap');
    expect(informers.acquired).to.not.include('v1/ConfigMap');
    expect(pipeline.composedStore('v1', 'ConfigMap')).to.equal(undefined);
    await pipeline.stop();
  });

  it('releases every lease it took when stopped, composed kinds included', async () => {
    const { informers, pipeline } = setup();
    await pipeline.start();
    await pipeline.watchComposed('v1', 'ConfigMap');
    await pipeline.unwatchComposed('v1', 'ConfigMap');
    await pipeline.watchComposed('v1', 'Secret');
    await pipeline.stop();
    for (const gvk of informers.acquired) {
      const slash = gvk.lastIndexOf('/');
      expect(informers.held(gvk.slice(0, slash), gvk.slice(slash + 1)), gvk).to.equal(0);
    }
  });

  it('opens the circuit of a storming XR in virtual time and enqueues it once more when the circuit closes', async () => {
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    // Virtual time runs to the circuit's close, past the 750 frames a TestScheduler runs by default.
    scheduler.maxFrames = Infinity;
    const breaker: Breaker = new TokenBucketBreaker({
      controller: 'composite/xapps.example.org',
      metrics: createMetrics({ processMetrics: false }),
      clock: scheduler,
      burst: 4,
      refillRatePerSecond: 0.001,
      cooldownMs: 60_000,
      halfOpenIntervalMs: 600_000,
    });
    const { informers, pipeline, keys } = setup({ breaker, scheduler });
    await pipeline.start();
    const xrs = informers.informer(XR.apiVersion, XR.kind);
    for (let i = 0; i < 10; i++) {
      scheduler.schedule(() => {
        xrs.update({ ...xr('a'), metadata: { ...xr('a').metadata, resourceVersion: String(10 + i) } });
      }, i * 10);
    }
    scheduler.flush();
    // Two updates (2 tokens each) pass, the third opens the circuit; the close at 60 s (+ the opening moment)
    // enqueues the XR once more.
    expect(keys).to.deep.equal(['default/a', 'default/a', 'default/a']);
    expect(breaker.state('default/a').open).to.equal(false);
    await pipeline.stop();
  });
});
