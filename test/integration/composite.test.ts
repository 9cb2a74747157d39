import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  composition,
  condition,
  ensureNamespace,
  eventsFor,
  get,
  installApi,
  mergePatch,
  occurrences,
  remove,
  startEngine,
  testApi,
  type RunningEngine,
  type TestApi,
  type XrObject,
} from './engine.js';

const NAMESPACE = 'composite-test';

function xr(api: TestApi, name: string, image: string, annotations: Record<string, string> = {}): XrObject {
  return {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name, namespace: NAMESPACE, annotations },
    // Named explicitly: the bad-input test adds other Compositions for this kind, which selection could pick.
    spec: { image, crossplane: { compositionRef: { name: api.plural } } } as XrObject['spec'],
  };
}

async function composedConfigMap(client: KubeClient, api: TestApi, name: string): Promise<KubeObject | undefined> {
  const stored = await get<XrObject>(client, xr(api, name, ''));
  const ref = stored?.spec?.crossplane?.resourceRefs?.[0];
  if (!ref) return undefined;
  return get(client, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ref.name, namespace: NAMESPACE } });
}

async function readyXr(client: KubeClient, api: TestApi, name: string): Promise<XrObject> {
  return eventually(`${api.kind} ${name} Ready`, async () => {
    const stored = await get<XrObject>(client, xr(api, name, ''));
    return condition(stored, 'Ready')?.status === 'True' ? stored : undefined;
  });
}

describe('composite engine (realtime)', function () {
  this.timeout(120_000);
  const api = testApi('realtime.compositor.test', 'XApp');
  let running: RunningEngine;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NAMESPACE);
    running = await startEngine({ circuitBreakerCooldownMs: 5_000, circuitBreakerHalfOpenIntervalMs: 60_000 });
    await installApi(client, api);
  });

  after(async () => {
    await running.stop();
  });

  it('composes a ConfigMap with the deterministic name, labels, owner and annotation; Ready once it exists', async () => {
    await apply(client, xr(api, 'basic', 'nginx:1.27'));
    const stored = await readyXr(client, api, 'basic');
    expect(condition(stored, 'Synced')).to.include({ status: 'True', reason: 'ReconcileSuccess' });
    expect(condition(stored, 'Responsive')).to.include({ status: 'True', reason: 'WatchCircuitClosed' });
    expect(stored.status?.image).to.equal('nginx:1.27');
    const cm = (await composedConfigMap(client, api, 'basic')) as KubeObject & {
      data: Record<string, string>;
      metadata: { labels: Record<string, string>; annotations: Record<string, string>; ownerReferences: unknown[] };
    };
    expect(cm.metadata.name).to.match(/^basic-[0-9a-f]{12}$/);
    expect(cm.data.image).to.equal('nginx:1.27');
    expect(cm.metadata.labels['crossplane.io/composite']).to.equal('basic');
    expect(cm.metadata.annotations['crossplane.io/composition-resource-name']).to.equal('settings');
    expect(cm.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: api.apiVersion,
        kind: api.kind,
        name: 'basic',
        uid: stored.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('follows XR spec edits and recreates a deleted composed resource within a second', async () => {
    await apply(client, xr(api, 'edit', 'nginx:1.27'));
    await readyXr(client, api, 'edit');
    await apply(client, xr(api, 'edit', 'nginx:1.28'));
    await eventually('data.image follows the spec', async () => {
      const cm = (await composedConfigMap(client, api, 'edit')) as { data?: { image?: string } } | undefined;
      return cm?.data?.image === 'nginx:1.28' ? true : undefined;
    });
    const cm = (await composedConfigMap(client, api, 'edit')) as KubeObject & { metadata: { uid: string } };
    const deletedAt = Date.now();
    await remove(client, cm);
    const recreated = await eventually(
      'the deleted ConfigMap back',
      async () => {
        const again = (await composedConfigMap(client, api, 'edit')) as
          (KubeObject & { metadata: { uid: string } }) | undefined;
        return again && again.metadata.uid !== cm.metadata.uid ? Date.now() - deletedAt : undefined;
      },
      { timeoutMs: 5_000, intervalMs: 20 },
    );
    expect(recreated).to.be.below(1_000);
  });

  it('handles a reconcile request exactly once per token, and the token survives schema pruning', async () => {
    await apply(client, xr(api, 'request', 'nginx:1.27'));
    const settled = await readyXr(client, api, 'request');
    const token = '2026-11-23T10:00:00Z';
    await mergePatch(client, settled, { metadata: { annotations: { 'crossplane.io/reconcile-requested-at': token } } });
    await eventually('lastHandledReconcileAt', async () => {
      const stored = await get<XrObject>(client, settled);
      return stored?.status?.lastHandledReconcileAt === token ? true : undefined;
    });
    const uid = settled.metadata.uid ?? '';
    await eventually('one ReconcileRequestHandled event', async () =>
      occurrences(await eventsFor(client, NAMESPACE, uid, 'ReconcileRequestHandled')) === 1 ? true : undefined,
    );
    // The same token again (another annotation changes) is not a new request.
    await mergePatch(client, settled, { metadata: { annotations: { unrelated: 'touch' } } });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(occurrences(await eventsFor(client, NAMESPACE, uid, 'ReconcileRequestHandled'))).to.equal(1);
  });

  it('pauses: nothing changes, Synced False ReconcilePaused; unpausing converges', async () => {
    await apply(client, xr(api, 'paused', 'nginx:1.27'));
    const settled = await readyXr(client, api, 'paused');
    await apply(client, xr(api, 'paused', 'nginx:2.0', { 'crossplane.io/paused': 'true' }));
    await eventually('Synced False ReconcilePaused', async () => {
      const stored = await get<XrObject>(client, settled);
      return condition(stored, 'Synced')?.reason === 'ReconcilePaused' ? true : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const cm = (await composedConfigMap(client, api, 'paused')) as unknown as { data: { image: string } };
    expect(cm.data.image).to.equal('nginx:1.27');
    await apply(client, xr(api, 'paused', 'nginx:2.0', { 'crossplane.io/paused': 'false' }));
    await eventually('converged after unpausing', async () => {
      const again = (await composedConfigMap(client, api, 'paused')) as { data?: { image?: string } } | undefined;
      const stored = await get<XrObject>(client, settled);
      return again?.data?.image === 'nginx:2.0' && condition(stored, 'Synced')?.status === 'True' ? true : undefined;
    });
  });

  it('opens the circuit under 200 rapid updates of a composed resource, then closes and converges', async () => {
    await apply(client, xr(api, 'storm', 'nginx:1.27'));
    const settled = await readyXr(client, api, 'storm');
    const cm = (await composedConfigMap(client, api, 'storm')) as KubeObject;
    for (let i = 0; i < 200; i++) {
      await mergePatch(client, cm, { data: { image: `drift-${i}` } });
    }
    const open = await eventually('Responsive False', async () => {
      const stored = await get<XrObject>(client, settled);
      const responsive = condition(stored, 'Responsive');
      return responsive?.status === 'False' ? responsive : undefined;
    });
    expect(open.reason).to.equal('WatchCircuitOpen');
    expect(open.message).to.equal(
      `Too many watch events from ConfigMap/${cm.metadata.name} (${NAMESPACE}). Allowing events periodically.`,
    );
    // No further event: the close at the end of the cooldown requeues the XR, which repairs the drift.
    await eventually(
      'circuit closed and drift repaired',
      async () => {
        const stored = await get<XrObject>(client, settled);
        const now = (await composedConfigMap(client, api, 'storm')) as { data?: { image?: string } } | undefined;
        return condition(stored, 'Responsive')?.status === 'True' && now?.data?.image === 'nginx:1.27'
          ? true
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
  });

  it('reports bad input as Synced False with one event and deletes nothing composed', async () => {
    await apply(client, xr(api, 'bad', 'nginx:1.27'));
    const settled = await readyXr(client, api, 'bad');
    const uid = settled.metadata.uid ?? '';
    const cm = (await composedConfigMap(client, api, 'bad')) as KubeObject & { metadata: { uid: string } };

    // A Composition whose function does not exist.
    await apply(client, composition(api, 'missing-function', { functionName: 'function-nowhere' }));
    await mergePatch(client, settled, { spec: { crossplane: { compositionRef: { name: 'missing-function' } } } });
    const missing = await eventually('Synced False naming the missing Function', async () => {
      const synced = condition(await get<XrObject>(client, settled), 'Synced');
      return synced?.status === 'False' && synced.message?.includes('function-nowhere') ? synced : undefined;
    });
    expect(missing.message).to.include('Function "function-nowhere" not found');

    // An unknown Composition.
    await mergePatch(client, settled, { spec: { crossplane: { compositionRef: { name: 'no-such-composition' } } } });
    const unknown = await eventually('Synced False naming the Composition', async () => {
      const synced = condition(await get<XrObject>(client, settled), 'Synced');
      return synced?.message?.includes('no-such-composition') ? synced : undefined;
    });
    expect(unknown.message).to.include('create it or fix compositionRef');

    // A FATAL result (patch-and-transform refuses an invalid input).
    const fatal = composition(api, 'fatal') as KubeObject & { spec: { pipeline: { input?: unknown }[] } };
    fatal.spec.pipeline[0] = {
      ...fatal.spec.pipeline[0],
      input: { apiVersion: 'pt.fn.crossplane.io/v1beta1', kind: 'Resources', resources: [{ name: '' }] },
    };
    await apply(client, fatal);
    await mergePatch(client, settled, { spec: { crossplane: { compositionRef: { name: 'fatal' } } } });
    const fatalCondition = await eventually('Synced False with the fatal result', async () => {
      const synced = condition(await get<XrObject>(client, settled), 'Synced');
      return synced?.message?.includes('fatal result') ? synced : undefined;
    });
    expect(fatalCondition.reason).to.equal('ReconcileError');

    const after = (await composedConfigMap(client, api, 'bad')) as KubeObject & { metadata: { uid: string } };
    expect(after.metadata.uid, 'the composed ConfigMap survived every error').to.equal(cm.metadata.uid);
    const warnings = await eventsFor(client, NAMESPACE, uid);
    const byMessage = new Map<string, number>();
    for (const e of warnings.filter((w) => w.type === 'Warning'))
      byMessage.set(e.note ?? '', (byMessage.get(e.note ?? '') ?? 0) + 1);
    for (const [note, count] of byMessage) expect(count, `Event objects for "${note}"`).to.equal(1);

    // Fixed, it converges again (and leaves no failing XR behind for the tests that measure load at rest).
    await mergePatch(client, settled, { spec: { crossplane: { compositionRef: { name: api.plural } } } });
    await eventually('Synced True again', async () =>
      condition(await get<XrObject>(client, settled), 'Synced')?.status === 'True' ? true : undefined,
    );
  });
});
