import { expect } from 'chai';
import pino from 'pino';
import { loadCrds } from '../../src/apis/index.js';
import { createEngine } from '../../src/engine/index.js';
import { flagDefaults, type StartConfig } from '../../src/cli/flags.js';
import { ensureCrds, KubeClient, type KubeObject, type RequestOptions, type Verb } from '../../src/kube/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  AUTO_READY_FUNCTION,
  condition,
  ensureNamespace,
  functions,
  get,
  PT_FUNCTION,
  remove,
  testApi,
  xrd,
  type XrObject,
} from './engine.js';

// --max-concurrent-applies: one XR's composed resources are applied, garbage-collected and deleted with the XR
// concurrently, never more than the limit at once. Upstream applies them one after another, which this test
// rejects: it asserts that more than one composed-resource write was in flight at some moment, observed through the
// engine's own KubeClient (a subclass that counts requests in flight).

const NAMESPACE = 'parallel-apply';
const COMPOSED = 50;
/** Resources left after the Composition shrinks: the other 40 are garbage-collected. */
const KEPT = 10;
const COMPOSED_FIELD_MANAGER = 'apiextensions.crossplane.io/composed/';
const api = testApi('parallel.compositor.io', 'XFanout');

/** Composed-resource writes in flight at once, by kind of write, as the engine issues them to its client. */
class Meter {
  private readonly inFlight = { apply: 0, delete: 0 };
  readonly max = { apply: 0, delete: 0 };
  readonly total = { apply: 0, delete: 0 };

  reset(): void {
    this.max.apply = this.max.delete = this.total.apply = this.total.delete = 0;
  }

  async around<T>(kind: 'apply' | 'delete' | undefined, request: () => Promise<T>): Promise<T> {
    if (kind === undefined) return request();
    this.inFlight[kind]++;
    this.total[kind]++;
    this.max[kind] = Math.max(this.max[kind], this.inFlight[kind]);
    try {
      return await request();
    } finally {
      this.inFlight[kind]--;
    }
  }
}

/** The engine's client: counts server-side applies of composed resources and deletes of this test's ConfigMaps. */
class MeteredClient extends KubeClient {
  constructor(
    kubeConfig: KubeClient['kubeConfig'],
    private readonly meter: Meter,
  ) {
    super(kubeConfig);
  }

  override request<T>(method: Verb, path: string, options: RequestOptions = {}): Promise<T> {
    return this.meter.around(writeKind(method, path, options), () => super.request<T>(method, path, options));
  }
}

function writeKind(method: Verb, path: string, options: RequestOptions): 'apply' | 'delete' | undefined {
  if (!path.startsWith(`/api/v1/namespaces/${NAMESPACE}/configmaps/`)) return undefined;
  if (method === 'DELETE') return 'delete';
  const manager = options.query?.fieldManager;
  return method === 'PATCH' && typeof manager === 'string' && manager.startsWith(COMPOSED_FIELD_MANAGER)
    ? 'apply'
    : undefined;
}

interface Running {
  stop(): Promise<void>;
}

async function startMeteredEngine(meter: Meter, maxConcurrentApplies: number): Promise<Running> {
  const config = {
    ...flagDefaults(),
    maxConcurrentReconciles: 10,
    maxConcurrentApplies,
    kubeconfig: undefined,
    gracefulShutdownTimeoutMs: 5_000,
  } as StartConfig;
  const client = new MeteredClient(controlPlane().kubeConfig, meter);
  await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
  const metrics = createMetrics({ processMetrics: false });
  const engine = createEngine({ client, config, metrics, log: pino({ level: process.env.ENGINE_LOG ?? 'silent' }) });
  await engine.start(new AbortController().signal);
  return { stop: () => engine.stop(AbortSignal.timeout(5_000)) };
}

/** `count` ConfigMaps from the built-in patch-and-transform, no ordering between them, then auto-ready. */
function fanoutComposition(count: number): KubeObject {
  const resources = Array.from({ length: count }, (_, i) => ({
    name: `cm-${i}`,
    base: { apiVersion: 'v1', kind: 'ConfigMap', data: { index: String(i) } },
    patches: [{ type: 'FromCompositeFieldPath', fromFieldPath: 'spec.image', toFieldPath: 'data.image' }],
    readinessChecks: [{ type: 'None' }],
  }));
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: api.plural },
    spec: {
      compositeTypeRef: { apiVersion: api.apiVersion, kind: api.kind },
      mode: 'Pipeline',
      pipeline: [
        {
          step: 'patch-and-transform',
          functionRef: { name: PT_FUNCTION },
          input: { apiVersion: 'pt.fn.crossplane.io/v1beta1', kind: 'Resources', resources },
        },
        { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
      ],
    },
  };
}

function fanout(name: string): XrObject {
  return {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name, namespace: NAMESPACE },
    spec: { image: 'nginx:1.27' } as XrObject['spec'],
  };
}

async function composedOf(client: KubeClient, xr: string): Promise<KubeObject[]> {
  const list = await client.request<{ items: KubeObject[] }>('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
    query: { labelSelector: `crossplane.io/composite=${xr}` },
  });
  return list.items;
}

async function waitReadyWith(client: KubeClient, name: string, count: number): Promise<void> {
  await eventually(
    `${name} Ready with exactly ${count} ConfigMaps`,
    async () => {
      const xr = await get<XrObject>(client, fanout(name));
      const composed = await composedOf(client, name);
      if (condition(xr, 'Ready')?.status === 'True' && composed.length === count) return true;
      throw new Error(`Ready ${JSON.stringify(condition(xr, 'Ready'))}, ${composed.length} ConfigMaps`);
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

/** The XR kind is served once the engine's XRD controller has installed its CRD. */
async function waitEstablished(client: KubeClient): Promise<void> {
  await eventually(`XRD ${api.plural}.${api.group} Established`, async () => {
    const stored = await get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(client, {
      apiVersion: 'apiextensions.crossplane.io/v1',
      kind: 'CompositeResourceDefinition',
      metadata: { name: `${api.plural}.${api.group}` },
    });
    const established = stored?.status?.conditions?.find((c) => c.type === 'Established');
    if (established?.status === 'True') return true;
    throw new Error(`Established ${JSON.stringify(established)}`);
  });
}

async function deleteAndWaitGone(client: KubeClient, name: string): Promise<void> {
  await remove(client, fanout(name));
  await eventually(
    `${name} and its ConfigMaps gone`,
    async () => {
      const xr = await get<XrObject>(client, fanout(name));
      const composed = await composedOf(client, name);
      if (!xr && composed.length === 0) return true;
      throw new Error(`XR ${xr ? 'present' : 'gone'}, ${composed.length} ConfigMaps`);
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

describe('parallel apply of composed resources (--max-concurrent-applies)', function () {
  this.timeout(180_000);
  const client = (): KubeClient => new KubeClient(controlPlane().kubeConfig);

  before(async () => {
    await ensureCrds(client(), await loadCrds(), { timeoutMs: 30_000 });
    await ensureNamespace(client(), NAMESPACE);
    for (const fn of functions()) await apply(client(), fn);
    await apply(client(), xrd(api));
  });

  after(async () => {
    await remove(client(), fanoutComposition(0));
  });

  const cases: Record<string, { reason: string; limit: number; want: (max: number) => boolean }> = {
    'applies, garbage-collects and deletes up to the limit at once': {
      reason: 'independent composed resources must overlap (upstream: one at a time) but never exceed the limit',
      limit: 4,
      want: (max) => max > 1 && max <= 4,
    },
    'applies one at a time with --max-concurrent-applies=1, as upstream': {
      reason: 'limit 1 is the sequential behaviour',
      limit: 1,
      want: (max) => max === 1,
    },
  };
  for (const [name, { reason, limit, want }] of Object.entries(cases)) {
    it(name, async () => {
      const meter = new Meter();
      const engine = await startMeteredEngine(meter, limit);
      const xr = `fanout-${limit}`;
      try {
        await apply(client(), fanoutComposition(COMPOSED));
        await waitEstablished(client());
        await apply(client(), fanout(xr));
        await waitReadyWith(client(), xr, COMPOSED);
        const applied = { ...meter.total, max: meter.max.apply };
        meter.reset();
        // A new revision with fewer resources: the XR follows it (Automatic) and garbage-collects the other 40.
        await apply(client(), fanoutComposition(KEPT));
        await waitReadyWith(client(), xr, KEPT);
        const collected = { ...meter.total, max: meter.max.delete };
        meter.reset();
        await deleteAndWaitGone(client(), xr);
        const deleted = { ...meter.total, max: meter.max.delete };

        expect(applied.apply, 'every composed ConfigMap applied').to.be.at.least(COMPOSED);
        expect(want(applied.max), `${reason}: at most ${applied.max} applies were in flight`).to.equal(true);
        expect(collected.delete, 'every dropped ConfigMap garbage-collected').to.be.at.least(COMPOSED - KEPT);
        expect(want(collected.max), `${reason}: at most ${collected.max} GC deletes were in flight`).to.equal(true);
        expect(deleted.delete, 'every remaining ConfigMap deleted with the XR').to.be.at.least(KEPT);
        expect(want(deleted.max), `${reason}: at most ${deleted.max} deletes were in flight`).to.equal(true);
      } finally {
        await engine.stop();
      }
    });
  }
});
