// How many times a remote function is called for one XR, and why: a platform-like pipeline (a remote step that
// requires a ConfigMap and composes a ConfigMap Ready at once and one whose readiness a provider reports later, then
// an auto-ready step) through the requirements loop and the response cache, reconciled by the composite reconciler
// over the in-memory fakes. Each case counts the remote step's calls for one reason of a reconcile.
import { expect } from 'chai';
import { RESOURCE_NAME_ANNOTATION } from '../../../src/composite/index.js';
import {
  CachingRunner,
  type FunctionCall,
  type JsonObject,
  type RunFunctionResponse,
} from '../../../src/functions/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { FakeRunner } from '../fakes/index.js';
import { revision, World } from './world.js';

const TTL_MS = 60_000;
/** The annotation the simulated provider sets on the composed resource it made Ready. */
const PROVIDER_READY = 'provider.test/ready';

interface Platform {
  world: World;
  /** Calls of the remote step, in order. */
  remote: FunctionCall[];
  clock: { now: number };
}

/** The remote step: requires the settings ConfigMap; once served, composes "config" (Ready) and "managed". */
function platform(call: FunctionCall): RunFunctionResponse {
  const name = (call.request.input?.settings as string | undefined) ?? 'settings';
  const requirements = {
    resources: { settings: { apiVersion: 'v1', kind: 'ConfigMap', matchName: name, namespace: 'default' } },
  };
  const settings = call.request.requiredResources?.settings?.items?.[0]?.resource;
  if (settings === undefined) return { requirements, meta: { ttlMs: TTL_MS } };
  const data = (settings.data ?? {}) as JsonObject;
  return {
    requirements,
    meta: { ttlMs: TTL_MS },
    desired: {
      resources: {
        config: { resource: { apiVersion: 'v1', kind: 'ConfigMap', data }, ready: 'READY_TRUE' },
        managed: { resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { kind: 'managed' } } },
      },
    },
  };
}

/** As function-auto-ready over the simulated provider: a resource is Ready once observed with its annotation. */
function autoReady(call: FunctionCall): RunFunctionResponse {
  const observed = call.request.observed?.resources ?? {};
  const resources = { ...(call.request.desired?.resources ?? {}) };
  for (const [name, desired] of Object.entries(resources)) {
    const annotations = (observed[name]?.resource?.metadata as { annotations?: Record<string, string> } | undefined)
      ?.annotations;
    if (desired.ready === undefined && annotations?.[PROVIDER_READY] === 'true') {
      resources[name] = { ...desired, ready: 'READY_TRUE' };
    }
  }
  return { desired: { ...call.request.desired, resources } };
}

function platformWorld(): Platform {
  const remote: FunctionCall[] = [];
  const clock = { now: 0 };
  const fake = new FakeRunner((call) => {
    if (call.functionName !== 'platform') return autoReady(call);
    remote.push(call);
    return platform(call);
  });
  // The engine's stack: the response cache under the reconciler's requirements loop.
  const runner = new CachingRunner(fake, { clock: { now: () => clock.now } });
  const world = new World({ reconciler: { runner } });
  const pipelineRevision = revision();
  (pipelineRevision.spec as { pipeline: unknown }).pipeline = [
    { step: 'platform', functionRef: { name: 'platform' }, input: { settings: 'settings' } },
    { step: 'ready', functionRef: { name: 'auto-ready' } },
  ];
  world.revisions.set(pipelineRevision);
  world.server.put({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace: 'default' },
    data: { tier: 'gold' },
  });
  return { world, remote, clock };
}

/** The composed ConfigMap of resource `name`, as the server holds it. */
function composed(world: World, name: string): KubeObject {
  const found = world.server
    .list('v1', 'ConfigMap')
    .find(
      (o) => (o.metadata as { annotations?: Record<string, string> }).annotations?.[RESOURCE_NAME_ANNOTATION] === name,
    );
  if (found === undefined) throw new Error(`no composed resource "${name}"`);
  return found;
}

/** The provider marks "managed" Ready: another writer's change, which the watch delivers as news. */
function providerReady(world: World): void {
  const managed = composed(world, 'managed');
  const metadata = managed.metadata as { annotations?: Record<string, string>; resourceVersion?: string };
  metadata.annotations = { ...metadata.annotations, [PROVIDER_READY]: 'true' };
  delete metadata.resourceVersion;
  world.server.put(managed);
  world.sync();
}

function readyOf(world: World): string | undefined {
  return world.xr()?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

/** A new XR: its first reconcile, then the provider's Ready; the calls of each. */
async function newXrSettled(p: Platform): Promise<{ first: number; readiness: number }> {
  p.world.createXr();
  const result = await p.world.reconcile();
  expect(result.requeueAfterMs, 'settled in one reconcile: requeued after the TTL').to.equal(TTL_MS);
  const first = p.remote.length;
  p.world.sync();
  providerReady(p.world);
  await p.world.reconcile();
  expect(readyOf(p.world)).to.equal('True');
  p.world.sync();
  return { first, readiness: p.remote.length - first };
}

describe('composite: remote function calls per XR', () => {
  it('a new XR: 1 call to learn the requirements, 1 with them, 1 for the settling pass; 1 per readiness change', async () => {
    const p = platformWorld();
    const { first, readiness } = await newXrSettled(p);
    expect(first).to.equal(3);
    expect(p.remote[0]?.request.requiredResources, 'first call: nothing to seed for a new XR').to.equal(undefined);
    expect(Object.keys(p.remote[1]?.request.requiredResources ?? {})).to.deep.equal(['settings']);
    expect(Object.keys(p.remote[2]?.request.requiredResources ?? {}), 'settling pass: seeded').to.deep.equal([
      'settings',
    ]);
    expect(readiness, 'seeded: one call over the changed observed state').to.equal(1);
  });

  it('a new XR of a namespace where the step ran: seeded with what it required there, one call and the settling pass', async () => {
    const p = platformWorld();
    await newXrSettled(p);
    const before = p.remote.length;
    p.world.createXr({ metadata: { name: 'second', namespace: 'default' } });
    expect(await p.world.reconcile('default/second')).to.deep.equal({ requeueAfterMs: TTL_MS });
    expect(p.remote.length - before).to.equal(2);
    expect(Object.keys(p.remote[before]?.request.requiredResources ?? {})).to.deep.equal(['settings']);
  });

  it("the settling pass cannot reuse the first pass's response: its request carries what the writes returned", async () => {
    const p = platformWorld();
    await newXrSettled(p);
    const [, seeded, settling] = p.remote;
    expect(Object.keys(seeded?.request.observed?.resources ?? {})).to.deep.equal([]);
    expect(Object.keys(settling?.request.observed?.resources ?? {}).sort()).to.deep.equal(['config', 'managed']);
  });

  it("the XR's own writes come back as echoes, which reconcile nothing: no call", async () => {
    const p = platformWorld();
    p.world.createXr();
    await p.world.reconcile();
    const written = [...p.world.server.list('v1', 'ConfigMap').filter((o) => o.metadata.name !== 'settings')];
    const xr = p.world.xr();
    if (xr !== undefined) written.push(xr);
    expect(written.map((o) => p.world.ownWrites.isEcho(o))).to.deep.equal(written.map(() => true));
  });

  it('a TTL requeue with unchanged inputs writes nothing; the cache answers within the TTL, the function after', async () => {
    const p = platformWorld();
    await newXrSettled(p);
    const calls: number[] = [];
    const requeue = async (): Promise<void> => {
      const before = p.remote.length;
      expect(await p.world.reconcile()).to.deep.equal({ requeueAfterMs: TTL_MS });
      expect(p.world.writes(), 'no API write').to.deep.equal([]);
      p.world.sync();
      calls.push(p.remote.length - before);
    };
    // The first one after the status write that made the XR Ready: the function sees that status once.
    await requeue();
    p.clock.now += TTL_MS / 2;
    await requeue();
    p.clock.now += TTL_MS;
    await requeue();
    expect(calls).to.deep.equal([1, 0, 1]);
  });

  it('a changed input is always sent to the function, within the TTL too', async () => {
    const p = platformWorld();
    await newXrSettled(p);
    await p.world.reconcile();
    p.world.sync();
    const before = p.remote.length;
    const settings = p.world.server.get('v1', 'ConfigMap', 'settings', 'default');
    if (settings === undefined) throw new Error('no settings ConfigMap');
    delete settings.metadata.resourceVersion;
    p.world.server.put({ ...settings, data: { tier: 'silver' } });
    await p.world.reconcile();
    expect(p.remote.length - before, 'a required resource changed: one seeded call, one settling').to.equal(2);
    expect(p.remote[before]?.request.requiredResources?.settings?.items?.[0]?.resource?.data).to.deep.equal({
      tier: 'silver',
    });
    p.world.sync();
    p.world.revisions.set(withInput(p.world, { settings: 'settings', more: 'yes' }));
    const edited = p.remote.length;
    await p.world.reconcile();
    expect(p.remote.length - edited, "the step's input changed: asked afresh, unseeded").to.equal(2);
    expect(p.remote[edited]?.request.requiredResources).to.equal(undefined);
  });
});

/** The revision with the remote step's input replaced, as an edited Composition's new revision would have it. */
function withInput(world: World, input: JsonObject): KubeObject {
  const current = world.revisions.get('app-1');
  if (current === undefined) throw new Error('no revision app-1');
  const edited = structuredClone(current) as KubeObject & { spec: { pipeline: { input?: JsonObject }[] } };
  const [platformStep] = edited.spec.pipeline;
  if (platformStep !== undefined) platformStep.input = input;
  return edited;
}
