import { expect } from 'chai';
import { COMPOSITE_FINALIZER, MACHINERY_FIELD_OWNER, XR_FIELD_OWNER } from '../../../src/composite/index.js';
import type { Condition, Xr } from '../../../src/controller/index.js';
import { isConflict, type KubeObject } from '../../../src/kube/index.js';
import { apiError, rejection } from '../fakes/index.js';
import { closedBreaker, desiring, KEY, NOW, revision, World } from './world.js';
import type { ObjectStore } from '../../../src/watch/index.js';

const XR_PATH = '/apis/example.org/v1/namespaces/default/xapps/app';
const CM_PATH = '/api/v1/namespaces/default/configmaps';
const COMPOSED_OWNER = 'apiextensions.crossplane.io/composed/';

function condition(xr: Xr | undefined, type: string): Condition | undefined {
  return xr?.status?.conditions?.find((c) => c.type === type);
}

function summary(c: Condition | undefined): string {
  return c ? `${c.status} ${c.reason}${c.message === undefined ? '' : `: ${c.message}`}` : 'none';
}

/** The path of the one composed ConfigMap named after resource `name`. */
function composedPath(world: World, name: string): string {
  const cm = world.server
    .list('v1', 'ConfigMap')
    .find(
      (o) =>
        (o.metadata as { annotations?: Record<string, string> }).annotations?.[
          'crossplane.io/composition-resource-name'
        ] === name,
    );
  if (!cm) throw new Error(`no composed resource "${name}"`);
  return `${CM_PATH}/${cm.metadata.name}`;
}

/** The ConfigMap cache of a converged world and the one ConfigMap in it. */
function cachedConfigMap(world: World): { store: ObjectStore; cached: KubeObject } {
  const store = world.composedStores.get('v1/ConfigMap');
  const [cached] = store?.list() ?? [];
  if (!store || !cached) throw new Error('the ConfigMap is not cached');
  return { store, cached };
}

describe('composite/CompositeReconciler', () => {
  describe('the reconcile order', () => {
    it('forgets an XR that is gone: resets its circuit and its composed kinds, and requests nothing', async () => {
      const breaker = closedBreaker();
      const world = new World({ breaker });
      world.kinds.set(KEY, [{ apiVersion: 'v1', kind: 'ConfigMap' }]);
      expect(await world.reconcile()).to.deep.equal({});
      expect(breaker.resets).to.deep.equal([KEY]);
      expect(world.kinds.has(KEY)).to.equal(false);
      expect(world.server.requests).to.deep.equal([]);
    });

    it('waits for its restart when the XRD moved on: looks again in 1s, writes nothing', async () => {
      const world = new World({ reconciler: { stale: () => true } });
      world.createXr();
      expect(await world.reconcile()).to.deep.equal({ requeueAfterMs: 1_000 });
      expect(world.server.requests).to.deep.equal([]);
    });

    it('stores resourceRefs (machinery) before it applies a composed resource, then writes the status', async () => {
      const world = new World();
      world.createXr();
      await world.reconcile();
      const cm = composedPath(world, 'cm');
      const [machinery, composed, status, ...more] = world.writes();
      expect(machinery).to.equal(`PATCH ${XR_PATH} [${MACHINERY_FIELD_OWNER}]`);
      expect(composed).to.match(new RegExp(`^PATCH ${cm} \\[${COMPOSED_OWNER}[0-9a-f]+\\]$`));
      expect(status).to.equal(`PATCH ${XR_PATH}/status [${XR_FIELD_OWNER}]`);
      expect(more).to.deep.equal([]);
      const xr = world.xr();
      const crossplane = xr?.spec?.crossplane as Record<string, unknown>;
      expect(crossplane.resourceRefs).to.deep.equal([
        { apiVersion: 'v1', kind: 'ConfigMap', name: cm.slice(CM_PATH.length + 1) },
      ]);
      expect(crossplane.compositionRevisionRef).to.deep.equal({ name: 'app-1' });
      expect(xr?.metadata.finalizers).to.deep.equal([COMPOSITE_FINALIZER]);
      expect(summary(condition(xr, 'Synced'))).to.equal('True ReconcileSuccess');
      expect(summary(condition(xr, 'Ready'))).to.equal('True Available');
      expect(summary(condition(xr, 'Responsive'))).to.equal('True WatchCircuitClosed');
      expect(xr?.status?.effectivePollInterval).to.equal('1m0s');
    });

    it('applies composed resources under the field owner of the XR, with a controller reference to it', async () => {
      const world = new World();
      const xr = world.createXr();
      await world.reconcile();
      const apply = world.server.requests.find((r) => r.method === 'PATCH' && r.path.startsWith(CM_PATH));
      expect(apply?.contentType).to.equal('application/apply-patch+yaml');
      expect(apply?.query).to.deep.include({ force: true });
      expect(String(apply?.query?.fieldManager)).to.match(/^apiextensions\.crossplane\.io\/composed\/[0-9a-f]+$/);
      const body = apply?.body as KubeObject & {
        metadata: { ownerReferences: { uid: string; controller: boolean }[] };
      };
      expect(body.metadata.ownerReferences).to.deep.equal([
        {
          apiVersion: 'example.org/v1',
          kind: 'XApp',
          name: 'app',
          uid: xr.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    });

    it('writes nothing in a steady state, and then asks for no requeue (realtime, no TTL)', async () => {
      const world = new World();
      world.createXr();
      await world.reconcile();
      const xr = world.xr();
      expect(
        condition(xr, 'Ready')?.observedGeneration,
        'the status observed the generation the machinery apply moved',
      ).to.equal(xr?.metadata.generation);
      world.sync();
      expect(await world.reconcile()).to.deep.equal({ requeueAfterMs: undefined });
      expect(world.writes()).to.deep.equal([]);
      expect(world.eventLines()).to.deep.equal([]);
    });

    it('marks the XR Ready in the reconcile that creates its resources when what the applies returned is ready', async () => {
      const world = new World();
      // As function-patch-and-transform with readinessChecks None: a resource is ready once it is observed.
      world.runner.respond = (call) => {
        const observed = call.request.observed?.resources ?? {};
        return desiring({ a: { data: { v: '1' }, ready: 'a' in observed }, b: { data: {}, ready: 'b' in observed } });
      };
      world.createXr();
      expect(await world.reconcile(), 'no follow-up: the settling pass saw the writes').to.deep.equal({
        requeueAfterMs: undefined,
      });
      expect(world.runner.calls, 'the pipeline ran twice: the compose pass and the settling pass').to.have.length(2);
      expect(world.writes().filter((w) => w.includes('/status'))).to.have.length(1);
      expect(summary(condition(world.xr(), 'Ready'))).to.equal('True Available');
      world.sync();
      expect(await world.reconcile()).to.deep.equal({ requeueAfterMs: undefined });
      expect(world.writes()).to.deep.equal([]);
    });

    it('enqueued when a late first list came in, reads the kind from the server and writes nothing it already wrote', async () => {
      const world = new World();
      world.createXr();
      await world.converge();
      // The first list predated the XR's applies, whose watch events are not in yet: the cache lacks the ConfigMap.
      const stale = (): void => world.composedStores.get('v1/ConfigMap')?.clear();
      stale();
      world.liveReads.set(KEY, new Set(['v1/ConfigMap']));
      await world.reconcile();
      expect(world.writes(), 'read live: nothing applied again').to.deep.equal([]);
      expect(world.server.requests.filter((r) => r.method === 'GET').map((r) => r.path)).to.have.length(1);
      // Once only: read from the same stale cache, the ConfigMap looks missing and is applied again.
      stale();
      await world.reconcile();
      expect(world.writes().filter((w) => w.startsWith(`PATCH ${CM_PATH}`))).to.have.length(1);
    });

    it('answers from what its apply returned while the cache has not caught up with it: no read, nothing written again', async () => {
      const world = new World();
      world.createXr();
      await world.reconcile();
      // The XR's watch has caught up, the ConfigMap's lags: the ConfigMap the first reconcile created is not cached.
      world.sync();
      world.composedStores.get('v1/ConfigMap')?.clear();
      const before = world.server.requests.length;
      await world.reconcile();
      expect(
        world.server.requests.slice(before).filter((r) => r.method === 'GET'),
        'no read',
      ).to.deep.equal([]);
      expect(
        world.writes().filter((w) => w.startsWith(`PATCH ${CM_PATH}`)),
        'not applied again',
      ).to.deep.equal([]);
    });

    it('once the composed resource it created is deleted, sees it missing and applies it again', async () => {
      const world = new World();
      world.createXr();
      await world.converge();
      const { store, cached } = cachedConfigMap(world);
      // Deleted by someone else: the watch's delete event reaches the controller's OwnWrites, the cache drops it.
      world.ownWrites.forget(cached);
      store.clear();
      await world.reconcile();
      expect(world.writes().filter((w) => w.startsWith(`PATCH ${CM_PATH}`))).to.have.length(1);
    });

    it('enqueued when a late first list came in, reads nothing when the cache shows what it wrote', async () => {
      const world = new World();
      world.createXr();
      await world.converge();
      // The first list came after the XR's applies: the cache holds exactly what they returned.
      world.liveReads.set(KEY, new Set(['v1/ConfigMap']));
      await world.reconcile();
      expect(world.server.requests.filter((r) => r.method === 'GET').map((r) => r.path)).to.deep.equal([]);
      expect(world.writes()).to.deep.equal([]);
    });

    it('enqueued when a late first list came in, reads the kind from the server when the cache predates its write', async () => {
      const world = new World();
      world.createXr();
      await world.converge();
      // The list holds an earlier version of the ConfigMap than the XR's last apply returned.
      const { store, cached } = cachedConfigMap(world);
      store.set({ ...cached, metadata: { ...cached.metadata, resourceVersion: '1' }, data: { a: 'old' } });
      world.liveReads.set(KEY, new Set(['v1/ConfigMap']));
      await world.reconcile();
      expect(world.server.requests.filter((r) => r.method === 'GET').map((r) => r.path)).to.deep.equal([
        `${CM_PATH}/${cached.metadata.name}`,
      ]);
      expect(world.writes(), 'read live: nothing applied again').to.deep.equal([]);
    });

    it('enqueued when a late first list came in, reads nothing when its echo came before a later version', async () => {
      const world = new World();
      world.createXr();
      await world.converge();
      // The watch delivered the echo of the XR's apply, then someone else's change (a provider's status, say).
      const [ours] = world.server.list('v1', 'ConfigMap');
      if (!ours) throw new Error('no ConfigMap composed');
      expect(world.ownWrites.isEcho(ours)).to.equal(true);
      const path = `${CM_PATH}/${ours.metadata.name}`;
      await world.server.client.request('PATCH', path, {
        body: { metadata: { labels: { seen: 'yes' } } },
        contentType: 'application/merge-patch+json',
      });
      world.sync();
      world.liveReads.set(KEY, new Set(['v1/ConfigMap']));
      await world.reconcile();
      expect(world.server.requests.filter((r) => r.method === 'GET').map((r) => r.path)).to.deep.equal([]);
      expect(world.writes()).to.deep.equal([]);
    });

    it('applies only the composed resources that changed', async () => {
      const world = new World();
      world.runner.respond = () => desiring({ a: { data: { v: '1' } }, b: { data: { v: '1' } } });
      world.createXr();
      await world.converge();
      world.runner.respond = () => desiring({ a: { data: { v: '1' } }, b: { data: { v: '2' } } });
      await world.reconcile();
      const b = composedPath(world, 'b');
      expect(world.writes().filter((w) => w.startsWith(`PATCH ${CM_PATH}`))).to.have.length(1);
      expect(world.writes()[0]).to.match(new RegExp(`^PATCH ${b} `));
    });

    it('after writes it did not settle looks again in 250ms, sooner once their echoes arrived (realtime)', async () => {
      const world = new World();
      // Each call desires something new, so the settling pass never finds what was just applied.
      let calls = 0;
      world.runner.respond = () => desiring({ cm: { data: { call: String(++calls) } } });
      world.createXr();
      const result = await world.reconcile();
      expect(result.requeueAfterMs).to.equal(250);
      let expedited = false;
      void result.expediteWhen?.then(() => (expedited = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(expedited, 'no echo yet').to.equal(false);
      // The watch delivers what the writes returned: the composed ConfigMap and the XR's status.
      for (const object of world.server.list('v1', 'ConfigMap')) world.ownWrites.isEcho(object);
      const xr = world.xr();
      if (xr) world.ownWrites.isEcho(xr);
      await new Promise((resolve) => setImmediate(resolve));
      expect(expedited).to.equal(true);
    });

    it('polls: after a write looks again in 250ms without waiting for echoes, then after the poll interval', async () => {
      const world = new World({ realtime: false });
      let calls = 0;
      world.runner.respond = () => desiring({ cm: { data: { call: String(Math.min(2, ++calls)) } } });
      world.createXr();
      expect(await world.reconcile()).to.deep.equal({ requeueAfterMs: 250 });
      world.sync();
      // No cache for composed kinds without realtime: they are read from the server.
      expect(await world.converge()).to.deep.equal({ requeueAfterMs: 60_000 });
      expect(world.composedStores.size).to.equal(0);
    });

    it('requeues after the shortest function TTL (realtime), jittered', async () => {
      const world = new World();
      world.runner.respond = () => ({ ...desiring({ cm: { data: { a: '1' } } }), meta: { ttlMs: 30_000 } });
      world.createXr();
      // random() is 0.5: the jitter (+/-10%) lands in the middle.
      expect(await world.converge()).to.deep.equal({ requeueAfterMs: 30_000 });
    });

    it('reports unready resources, sorted, as Ready False Creating', async () => {
      const world = new World();
      world.runner.respond = () =>
        desiring({ z: { data: {}, ready: false }, a: { data: {}, ready: false }, m: { data: {} } });
      world.createXr();
      await world.reconcile();
      expect(summary(condition(world.xr(), 'Ready'))).to.equal('False Creating: Unready resources: a, z');
      // crossplane internal/controller/apiextensions/composite/reconciler.go Reconcile: one Normal ComposeResources
      // event per composed resource that is not ready, `Composed resource %q is not yet ready`.
      expect(world.eventLines().filter((e) => e.includes('is not yet ready'))).to.deep.equal([
        'Normal ComposeResources: Composed resource "a" is not yet ready',
        'Normal ComposeResources: Composed resource "z" is not yet ready',
      ]);
    });

    it('handles a reconcile request once: lastHandledReconcileAt and one Normal event', async () => {
      const world = new World();
      world.createXr({ metadata: { name: 'app', annotations: { 'crossplane.io/reconcile-requested-at': 't1' } } });
      await world.reconcile();
      expect(world.xr()?.status?.lastHandledReconcileAt).to.equal('t1');
      expect(world.eventLines()).to.include('Normal ReconcileRequestHandled: Handled reconcile request t1');
      world.sync();
      await world.converge();
      expect(world.eventLines()).to.deep.equal([]);
    });

    it('reports an open circuit as Responsive False, naming its source', async () => {
      const world = new World({ breaker: closedBreaker({ open: true, triggeredBy: 'ConfigMap/cm (default)' }) });
      world.createXr();
      await world.reconcile();
      expect(summary(condition(world.xr(), 'Responsive'))).to.equal(
        'False WatchCircuitOpen: Too many watch events from ConfigMap/cm (default). Allowing events periodically.',
      );
    });

    it('warns once per distinct invalid poll interval and falls back to --poll-interval', async () => {
      const world = new World();
      world.createXr({ metadata: { name: 'app', annotations: { 'crossplane.io/poll-interval': 'soon' } } });
      await world.reconcile();
      expect(world.eventLines().filter((e) => e.startsWith('Warning InvalidPollInterval'))).to.have.length(1);
      expect(world.xr()?.status?.effectivePollInterval).to.equal('1m0s');
      world.sync();
      await world.converge();
      expect(world.eventLines()).to.deep.equal([]);
    });
  });

  describe('paused', () => {
    it('sets Synced False ReconcilePaused with one event, writes only the status, and composes nothing', async () => {
      const world = new World();
      world.createXr({ metadata: { name: 'app', annotations: { 'crossplane.io/paused': 'true' } } });
      expect(await world.reconcile()).to.deep.equal({});
      expect(world.writes()).to.deep.equal([`PATCH ${XR_PATH}/status [${XR_FIELD_OWNER}]`]);
      expect(world.eventLines()).to.deep.equal([
        'Normal ReconciliationPaused: Reconciliation is paused via the pause annotation',
      ]);
      expect(summary(condition(world.xr(), 'Synced'))).to.equal(
        'False ReconcilePaused: Reconciliation (including deletion) is paused via the pause annotation',
      );
      expect(world.runner.calls).to.have.length(0);
      world.sync();
      await world.reconcile();
      expect(world.writes(), 'still paused: nothing more').to.deep.equal([]);
      expect(world.eventLines()).to.deep.equal([]);
    });

    it('does not delete a paused XR being deleted', async () => {
      const world = new World();
      world.createXr();
      await world.reconcile();
      world.sync();
      const xr = world.xr();
      if (!xr) throw new Error('no XR');
      xr.metadata.annotations = { 'crossplane.io/paused': 'true' };
      xr.metadata.deletionTimestamp = NOW.toISOString();
      world.xrs.set(xr);
      await world.reconcile();
      expect(world.writes().filter((w) => w.startsWith('DELETE'))).to.deep.equal([]);
    });
  });

  describe('deletion', () => {
    it('deletes the composed resources it controls (background, uid precondition), then removes its finalizer', async () => {
      const breaker = closedBreaker();
      const world = new World({ breaker });
      world.createXr();
      await world.reconcile();
      world.sync();
      const cm = composedPath(world, 'cm');
      const uid = world.server.list('v1', 'ConfigMap')[0]?.metadata.uid;
      await world.server.client.request('DELETE', XR_PATH);
      world.sync();

      expect(await world.reconcile()).to.deep.equal({ requeueAfterMs: 2_000 });
      const deletion = world.server.requests.find((r) => r.method === 'DELETE');
      expect(deletion?.path).to.equal(cm);
      expect(deletion?.body).to.deep.equal({
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: 'Background',
        preconditions: { uid },
      });
      expect(summary(condition(world.xr(), 'Ready'))).to.equal('False Deleting');
      expect(world.xr()?.metadata.finalizers, 'kept while composed resources remain').to.deep.equal([
        COMPOSITE_FINALIZER,
      ]);

      world.sync();
      expect(await world.reconcile()).to.deep.equal({});
      expect(world.server.writes().map((r) => `${r.method} ${r.path} ${String(r.contentType)}`)).to.deep.equal([
        `PATCH ${XR_PATH} application/json-patch+json`,
      ]);
      expect(world.xr(), 'the finalizer was the last: the XR is gone').to.equal(undefined);
      expect(breaker.resets).to.deep.equal([KEY]);
      expect(world.kinds.has(KEY)).to.equal(false);
    });

    it('never deletes a composed resource another object controls', async () => {
      const world = new World();
      world.createXr();
      await world.reconcile();
      world.sync();
      const [cm] = world.server.list<KubeObject & { metadata: { ownerReferences?: unknown[] } }>('v1', 'ConfigMap');
      if (!cm) throw new Error('no ConfigMap');
      cm.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Other', name: 'x', uid: 'other', controller: true }];
      world.server.put(cm);
      await world.server.client.request('DELETE', XR_PATH);
      world.sync();
      expect(await world.reconcile()).to.deep.equal({});
      expect(world.writes().filter((w) => w.startsWith('DELETE'))).to.deep.equal([]);
    });
  });

  describe('selection', () => {
    it('fails with SelectComposition when no Composition fits, without the compose prefix', async () => {
      const world = new World();
      world.compositions.clear();
      world.createXr({ spec: { crossplane: {} } });
      const err = await rejection(world.reconcile());
      expect(err).to.be.instanceOf(Error);
      const synced = condition(world.xr(), 'Synced');
      expect(synced?.reason).to.equal('ReconcileError');
      expect(synced?.message).to.match(/^cannot select Composition: no compatible Compositions found for XApp/);
      expect(world.eventLines()).to.have.length(1);
      expect(world.eventLines()[0]).to.match(/^Warning SelectComposition: cannot select Composition/);
    });

    it('persists the Composition chosen while its revision is on its way, and looks again in 1s', async () => {
      const world = new World();
      world.revisions.clear();
      world.createXr({ spec: { crossplane: { compositionSelector: { matchLabels: {} } } } });
      expect(await world.reconcile()).to.deep.equal({ requeueAfterMs: 1_000 });
      expect((world.xr()?.spec?.crossplane as Record<string, unknown>).compositionRef).to.deep.equal({ name: 'app' });
      expect(summary(condition(world.xr(), 'Synced'))).to.equal(
        'False ReconcileError: waiting for Composition "app" to get its first CompositionRevision',
      );
      expect(world.runner.calls).to.have.length(0);
    });

    it('composes with the newest revision under the Automatic policy and says when it switches', async () => {
      const world = new World();
      world.createXr();
      await world.reconcile();
      world.sync();
      world.revisions.set(revision(2));
      await world.reconcile();
      expect(world.eventLines()).to.include('Normal SelectComposition: Selected composition revision: app-2');
      const crossplane = world.xr()?.spec?.crossplane as Record<string, unknown>;
      expect(crossplane.compositionRevisionRef).to.deep.equal({ name: 'app-2' });
    });
  });

  describe('errors', () => {
    it('reports bad input as Synced False with one Warning event, deletes nothing, and throws', async () => {
      const world = new World();
      world.createXr();
      await world.converge();
      world.runner.respond = () => ({ desired: { resources: { cm: { resource: { data: {} } } } } });
      const err = await rejection(world.reconcile());
      expect(err).to.be.instanceOf(Error);
      expect(world.writes()).to.deep.equal([`PATCH ${XR_PATH}/status [${XR_FIELD_OWNER}]`]);
      expect(world.eventLines()).to.deep.equal([
        'Warning ComposeResources: cannot compose resources: composed resource "cm" has no apiVersion or kind',
      ]);
      expect(summary(condition(world.xr(), 'Synced'))).to.equal(
        'False ReconcileError: cannot compose resources: composed resource "cm" has no apiVersion or kind',
      );
      expect(world.server.list('v1', 'ConfigMap')).to.have.length(1);
    });

    it('rethrows a conflict untouched: no event, no status write', async () => {
      const world = new World();
      world.createXr();
      world.server.failNext((r) => r.method === 'PATCH' && r.path.startsWith(CM_PATH), apiError(409, 'conflict'));
      const err = await rejection(world.reconcile());
      expect(isConflict(err)).to.equal(true);
      expect(world.eventLines()).to.deep.equal([]);
      expect(world.writes().filter((w) => w.includes('/status'))).to.deep.equal([]);
    });

    it('reports a composed resource the API server refuses (422) as unsynced and still applies the others', async () => {
      const world = new World();
      world.runner.respond = () => desiring({ bad: { data: { v: '1' } }, good: { data: { v: '1' } } });
      world.createXr();
      world.server.failNext(
        (r) => r.method === 'PATCH' && r.path.startsWith(CM_PATH) && JSON.stringify(r.body).includes('"bad"'),
        apiError(422, 'data is invalid'),
      );
      await world.reconcile();
      expect(summary(condition(world.xr(), 'Synced'))).to.equal('False ReconcileError: Unsynced resources: bad');
      expect(world.eventLines()).to.include(
        'Warning ComposeResources: cannot apply composed resource "bad": data is invalid',
      );
      expect(world.server.list('v1', 'ConfigMap')).to.have.length(1);
    });

    it('stores the Composition it selected when the pipeline fails, and keeps the refs it has', async () => {
      const world = new World({
        reconciler: {
          steps: { pipeline: { run: () => Promise.reject(new Error('function "fn" not found')) } },
        },
      });
      world.createXr({ spec: { crossplane: { compositionSelector: { matchLabels: {} } } } });
      await rejection(world.reconcile());
      const crossplane = world.xr()?.spec?.crossplane as Record<string, unknown>;
      expect(crossplane.compositionRef).to.deep.equal({ name: 'app' });
      expect(crossplane.compositionRevisionRef).to.deep.equal({ name: 'app-1' });
      expect(crossplane.resourceRefs).to.equal(undefined);
      expect(summary(condition(world.xr(), 'Synced'))).to.equal(
        'False ReconcileError: cannot compose resources: function "fn" not found',
      );
    });

    it('records a fatal result: the events and conditions before it, a Warning, and nothing applied', async () => {
      const world = new World();
      world.runner.respond = () => ({
        results: [
          { severity: 'SEVERITY_NORMAL', message: 'looked' },
          { severity: 'SEVERITY_FATAL', message: 'cannot go on' },
        ],
        conditions: [{ type: 'DatabaseReady', status: 'STATUS_CONDITION_FALSE', reason: 'Waiting' }],
      });
      world.createXr();
      await rejection(world.reconcile());
      expect(world.eventLines()).to.have.length(2);
      expect(world.eventLines()[1]).to.match(/^Warning ComposeResources: cannot compose resources: .*cannot go on/);
      expect(condition(world.xr(), 'DatabaseReady')?.reason).to.equal('Waiting');
      expect(world.server.list('v1', 'ConfigMap')).to.deep.equal([]);
    });

    it('takes its steps through deps: a failing pipeline step is reported like any failure', async () => {
      const world = new World({
        reconciler: {
          steps: {
            pipeline: { run: () => Promise.reject(new Error('function "fn" is unavailable')) },
          },
        },
      });
      world.createXr();
      await rejection(world.reconcile());
      expect(world.eventLines()).to.deep.equal([
        'Warning ComposeResources: cannot compose resources: function "fn" is unavailable',
      ]);
    });
  });

  describe('garbage collection', () => {
    it('deletes a composed resource the pipeline no longer desires, before storing the new resourceRefs', async () => {
      const world = new World();
      world.runner.respond = () => desiring({ keep: { data: {} }, old: { data: {} } });
      world.createXr();
      await world.converge();
      const old = composedPath(world, 'old');
      world.runner.respond = () => desiring({ keep: { data: {} } });
      await world.reconcile();
      expect(world.writes()).to.deep.equal([
        `DELETE ${old}`,
        `PATCH ${XR_PATH} [${MACHINERY_FIELD_OWNER}]`,
        // The conditions observed the generation the machinery apply moved.
        `PATCH ${XR_PATH}/status [${XR_FIELD_OWNER}]`,
      ]);
      const refs = (world.xr()?.spec?.crossplane as { resourceRefs: unknown[] }).resourceRefs;
      expect(refs).to.have.length(1);
    });
  });
});
