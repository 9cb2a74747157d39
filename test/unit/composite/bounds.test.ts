// Hostile input at the composite reconciler: objects nested deeper than the engine walks, and function responses
// past their limits. Each fails the reconcile the way any failure does (Synced False, one Warning event, the status
// written), quickly, and deletes or applies nothing.
import { expect } from 'chai';
import { MAX_NESTING_DEPTH, NestingDepthError } from '../../../src/base/index.js';
import type { Condition, Xr } from '../../../src/controller/index.js';
import {
  LimitedRunner,
  ResponseLimitError,
  type JsonObject,
  type RunFunctionResponse,
} from '../../../src/functions/index.js';
import { FakeRunner, rejection } from '../fakes/index.js';
import { desiring, World } from './world.js';

const XR_STATUS_PATH = 'PATCH /apis/example.org/v1/namespaces/default/xapps/app/status';

/** `{ a: { a: ... { leaf: true } } }`, `levels` objects deep, built without recursion. */
function nested(levels: number): JsonObject {
  let value: JsonObject = { leaf: true };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

function synced(xr: Xr | undefined): string {
  const c: Condition | undefined = xr?.status?.conditions?.find((x) => x.type === 'Synced');
  return c ? `${c.status} ${c.reason}: ${c.message ?? ''}` : 'none';
}

/** A world whose function runs behind the engine's response limits, converged with one composed ConfigMap. */
async function convergedWorld(maxComposedResources = 1000): Promise<{ world: World; fn: FakeRunner }> {
  const fn = new FakeRunner(() => desiring({ cm: { data: { a: '1' } } }));
  const world = new World({ reconciler: { runner: new LimitedRunner(fn, { maxComposedResources }) } });
  world.createXr();
  await world.converge();
  expect(world.server.list('v1', 'ConfigMap')).to.have.length(1);
  return { world, fn };
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

describe('composite/CompositeReconciler bounds', () => {
  it('refuses an XR nested 10,000 levels deep: Synced False naming where, a Warning, no function call', async () => {
    const { world, fn } = await convergedWorld();
    const cached = world.xrs.get('default/app');
    if (!cached) throw new Error('no cached XR');
    world.xrs.set({ ...cached, spec: { ...cached.spec, deep: nested(10_000) } });
    const calls = fn.calls.length;
    const { value: err, ms } = await timed(rejection(world.reconcile()));
    expect(err).to.be.instanceOf(NestingDepthError);
    const message = `cannot compose resources: composite resource XApp/app (default) nests deeper than ${MAX_NESTING_DEPTH} levels of objects and arrays (at spec.deep.a.a.a.a…)`;
    expect(world.eventLines()).to.deep.equal([`Warning ComposeResources: ${message}`]);
    expect(synced(world.xr())).to.equal(`False ReconcileError: ${message}`);
    expect(world.writes()).to.deep.equal([`${XR_STATUS_PATH} [apiextensions.crossplane.io/composite]`]);
    expect(fn.calls).to.have.length(calls);
    expect(world.server.list('v1', 'ConfigMap')).to.have.length(1);
    expect(ms, 'refused without walking the XR recursively').to.be.below(5000);
  });

  it('still deletes an XR nested 10,000 levels deep: its composed resources, then its finalizer', async () => {
    const { world } = await convergedWorld();
    await world.server.client.request('DELETE', '/apis/example.org/v1/namespaces/default/xapps/app');
    world.sync();
    const deep = (): void => {
      const cached = world.xrs.get('default/app');
      if (cached) world.xrs.set({ ...cached, spec: { ...cached.spec, deep: nested(10_000) } });
    };
    deep();
    expect(await world.reconcile()).to.deep.equal({ requeueAfterMs: 2_000 });
    expect(world.server.list('v1', 'ConfigMap')).to.deep.equal([]);
    world.sync();
    deep();
    expect(await world.reconcile()).to.deep.equal({});
    expect(world.xr(), 'the finalizer was the last: the XR is gone').to.equal(undefined);
  });

  it('still pauses an XR nested 10,000 levels deep', async () => {
    const { world } = await convergedWorld();
    const cached = world.xrs.get('default/app');
    if (!cached) throw new Error('no cached XR');
    const metadata = { ...cached.metadata, annotations: { 'crossplane.io/paused': 'true' } };
    world.xrs.set({ ...cached, metadata, spec: { ...cached.spec, deep: nested(10_000) } });
    expect(await world.reconcile()).to.deep.equal({});
    expect(synced(world.xr())).to.match(/^False ReconcilePaused/);
  });

  it('reports an XR whose status is the deep part with the Warning alone, writing no status', async () => {
    const { world } = await convergedWorld();
    const cached = world.xrs.get('default/app');
    if (!cached) throw new Error('no cached XR');
    world.xrs.set({ ...cached, status: { ...cached.status, deep: nested(10_000) } });
    await rejection(world.reconcile());
    expect(world.eventLines()).to.have.length(1);
    expect(world.eventLines()[0]).to.match(
      /^Warning ComposeResources: .*nests deeper than 512 levels.*\(at status\.deep/,
    );
    expect(world.writes()).to.deep.equal([]);
  });

  it('refuses an observed composed resource nested 10,000 levels deep, deleting and applying nothing', async () => {
    const { world } = await convergedWorld();
    const store = world.composedStores.get('v1/ConfigMap');
    const [cm] = store?.list() ?? [];
    if (!store || !cm) throw new Error('no cached ConfigMap');
    store.set({ ...cm, data: { a: '1' }, extra: nested(10_000) });
    const err = await rejection(world.reconcile());
    expect(err).to.be.instanceOf(NestingDepthError);
    expect(world.eventLines()).to.deep.equal([
      `Warning ComposeResources: cannot compose resources: composed resource "cm" nests deeper than 512 levels of objects and arrays (at extra.a.a.a.a.a…)`,
    ]);
    expect(world.writes().filter((w) => w.includes('configmaps'))).to.deep.equal([]);
  });

  it('refuses an XR listing more resourceRefs than --max-composed-resources before reading any of them', async () => {
    const { world, fn } = await convergedWorld();
    const cached = world.xrs.get('default/app');
    if (!cached) throw new Error('no cached XR');
    const resourceRefs = Array.from({ length: 20_000 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      name: `s-${i}`,
    }));
    const crossplane = { ...(cached.spec?.crossplane as object), resourceRefs };
    world.xrs.set({ ...cached, spec: { ...cached.spec, crossplane } });
    const calls = fn.calls.length;
    await rejection(world.reconcile());
    const message =
      'cannot compose resources: cannot observe composed resources: resourceRefs lists 20000, more than the 1000 allowed (--max-composed-resources)';
    expect(world.eventLines()).to.deep.equal([`Warning ComposeResources: ${message}`]);
    expect(synced(world.xr())).to.equal(`False ReconcileError: ${message}`);
    expect(world.server.requests.filter((r) => r.path.includes('/secrets'))).to.deep.equal([]);
    expect(fn.calls).to.have.length(calls);
    expect(world.server.list('v1', 'ConfigMap')).to.have.length(1);
  });

  const hostile: Record<string, { reason: string; respond: () => RunFunctionResponse; message: string }> = {
    'thousands of desired resources': {
      reason: 'more than --max-composed-resources',
      respond: () => {
        const resources: Record<string, { data: Record<string, string> }> = {};
        for (let i = 0; i < 5000; i++) resources[`cm-${i}`] = { data: { i: String(i) } };
        return desiring(resources);
      },
      message:
        'cannot run function "fn" for pipeline step "compose": returned 5000 desired composed resources, more than the 1000 allowed (--max-composed-resources)',
    },
    'a response nested 10,000 levels deep': {
      reason: 'deeper than the engine walks',
      respond: () => ({ desired: { resources: { cm: { resource: nested(10_000) } } } }),
      message:
        'cannot run function "fn" for pipeline step "compose": returned a response nested deeper than 512 levels of objects and arrays (at desired.resources.cm.resource.a.a…)',
    },
    'thousands of conditions': {
      reason: 'each would be a condition on the XR',
      respond: () => ({
        conditions: Array.from({ length: 2000 }, (_, i) => ({ type: `T${i}`, status: 'STATUS_CONDITION_TRUE' })),
      }),
      message: 'cannot run function "fn" for pipeline step "compose": returned 2000 conditions, more than 1000',
    },
  };
  for (const [name, { reason, respond, message }] of Object.entries(hostile)) {
    it(`fails the step on ${name} (${reason}) and keeps what it composed`, async () => {
      const { world, fn } = await convergedWorld();
      fn.respond = respond;
      const { value: err, ms } = await timed(rejection(world.reconcile()));
      expect(err).to.be.instanceOf(ResponseLimitError);
      expect(world.eventLines()).to.deep.equal([`Warning ComposeResources: cannot compose resources: ${message}`]);
      expect(synced(world.xr())).to.equal(`False ReconcileError: cannot compose resources: ${message}`);
      expect(world.writes().filter((w) => w.includes('configmaps'))).to.deep.equal([]);
      expect(world.server.list('v1', 'ConfigMap'), 'nothing garbage-collected').to.have.length(1);
      expect(ms, 'refused without a stall').to.be.below(5000);
    });
  }

  it('composes more than 1000 resources when --max-composed-resources is 0 (no limit)', async () => {
    const { world, fn } = await convergedWorld(0);
    const resources: Record<string, { data: Record<string, string> }> = {};
    for (let i = 0; i < 1001; i++) resources[`cm-${i}`] = { data: { i: String(i) } };
    fn.respond = () => desiring(resources);
    await world.reconcile();
    expect(world.server.list('v1', 'ConfigMap')).to.have.length(1001);
  });
});
