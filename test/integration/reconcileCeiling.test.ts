import { expect } from 'chai';
import { KindNotServedError, type KubeClient } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  condition,
  get,
  installApi,
  remove,
  startEngine,
  testApi,
  type RunningEngine,
  type TestApi,
  type XrObject,
} from './engine.js';

// --max-reconcile-rate N is one ceiling for the whole process, whatever the number of controllers: 20 XRDs, each with
// its own composite controller, queue and workers, hold XRs polled every second, which ask for 60 reconciles/s. After
// the burst of 10N, the engine starts N reconciles/s across all of them together; a bucket per controller would start
// 20N/s (the demand, 60/s, caps that at 12N here). The 20 APIs are installed, and removed again, by an engine at the
// shipped rate: at N = 5 the XRD and revision controllers would share the same 5/s, and leftovers would load every
// engine that later tests start on this control plane.

const N = 5;
const XRDS = 20;
const XRS_PER_XRD = 3;
const WINDOW_MS = 10_000;
const apis: TestApi[] = Array.from({ length: XRDS }, (_, i) => testApi('ceiling.compositor.test', `XCeiling${i}`));

function xrOf(api: TestApi, index: number): XrObject {
  return {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name: `ceiling-${index}`, namespace: 'default' },
    spec: { image: 'nginx:1.27' } as XrObject['spec'],
  };
}

describe('one reconcile ceiling for the whole process (--max-reconcile-rate)', function () {
  this.timeout(300_000);
  let client: KubeClient;
  let running: RunningEngine | undefined;
  const xrs = apis.flatMap((api) => Array.from({ length: XRS_PER_XRD }, (_, i) => xrOf(api, i)));
  const xrdOf = (api: TestApi): XrObject => ({
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'CompositeResourceDefinition',
    metadata: { name: `${api.plural}.${api.group}` },
  });

  before(() => {
    client = controlPlane().client();
  });

  after(async () => {
    await running?.stop();
    const cleanup = await startEngine();
    try {
      // An XR whose kind is not served (its XRD never got that far) has nothing to delete.
      const removeServed = (object: XrObject): Promise<void> =>
        remove(client, object).catch((err: unknown) => {
          if (!(err instanceof KindNotServedError)) throw err;
        });
      const left = async (objects: XrObject[]): Promise<string[]> => {
        const found = await Promise.all(
          objects.map((object) =>
            get(client, object).catch((err: unknown) => {
              if (err instanceof KindNotServedError) return undefined;
              throw err;
            }),
          ),
        );
        return found.flatMap((object) => (object ? [`${object.kind}/${object.metadata.name}`] : []));
      };
      const gone = async (what: string, objects: XrObject[]): Promise<void> => {
        await Promise.all(objects.map(removeServed));
        await eventually(
          what,
          async () => {
            const remaining = await left(objects);
            if (remaining.length === 0) return true;
            throw new Error(`${remaining.length} left: ${remaining.slice(0, 5).join(', ')}`);
          },
          { timeoutMs: 90_000, intervalMs: 500 },
        );
      };
      await gone('the XRs deleted', xrs);
      await gone('the XRDs deleted', apis.map(xrdOf));
    } finally {
      await cleanup.stop();
    }
  });

  it(`starts ${N} reconciles/s across 20 composite controllers whose XRs ask for 60/s`, async () => {
    const setup = await startEngine();
    try {
      await Promise.all(apis.map((api) => installApi(client, api)));
      await Promise.all(xrs.map((xr) => apply(client, xr)));
      await eventually(
        'every XR Synced',
        async () => {
          const unsynced: string[] = [];
          for (const api of apis) {
            const list = await client.request<{ items: XrObject[] }>(
              'GET',
              `/apis/${api.apiVersion}/namespaces/default/${api.plural}`,
            );
            const synced = list.items.filter((x) => condition(x, 'Synced')?.status === 'True').length;
            if (synced < XRS_PER_XRD) unsynced.push(`${api.kind}: ${synced}/${XRS_PER_XRD}`);
          }
          if (unsynced.length === 0) return true;
          throw new Error(`not Synced yet: ${unsynced.join(', ')}`);
        },
        { timeoutMs: 120_000, intervalMs: 500 },
      );
    } finally {
      await setup.stop();
    }

    running = await startEngine({
      maxReconcileRate: N,
      enableRealtimeCompositions: false,
      pollIntervalMs: 1_000,
      minPollIntervalMs: 1_000,
    });
    const engine = running;
    // Every controller's reconciles together, composite controllers and the rest, as the one bucket counts them.
    const total = async (): Promise<number> => {
      const metric = (await engine.metrics.registry.getMetricsAsJSON()).find(
        (m) => m.name === 'controller_runtime_reconcile_total',
      );
      return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
    };
    const perController = async (): Promise<Record<string, number>> => {
      const counts: Record<string, number> = {};
      for (const api of apis) counts[api.kind] = await engine.reconciles(api.controller);
      return counts;
    };
    // The start-up (XRDs, revisions, every XR once) spends the burst of 10N; from here on, polls of 60 XRs every
    // second keep the bucket empty.
    await eventually(
      'every composite controller running and the burst spent',
      async () => {
        const counts = await perController();
        const idle = apis.filter((api) => (counts[api.kind] ?? 0) === 0).map((api) => api.kind);
        const reconciled = await total();
        if (idle.length === 0 && reconciled > 10 * N) return true;
        throw new Error(`${reconciled} reconciles; not reconciled yet: ${idle.join(', ')}`);
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    const first = await total();
    const firstPer = await perController();
    const started = Date.now();
    // A measured window, not a wait for a state: the rate is what the window counts.
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    const elapsedSeconds = (Date.now() - started) / 1000;
    const reconciled = (await total()) - first;
    const lastPer = await perController();
    const rate = reconciled / elapsedSeconds;
    const busy = apis.filter((api) => (lastPer[api.kind] ?? 0) > (firstPer[api.kind] ?? 0)).length;
    const seen = `${reconciled} reconciles in ${elapsedSeconds.toFixed(1)} s (${rate.toFixed(2)}/s), ${busy} of ${XRDS} controllers reconciled`;
    console.log(`      ${seen}`);
    // A reconcile is counted when it ends: up to N workers' worth may straddle each end of the window.
    expect(reconciled, seen).to.be.at.most(N * elapsedSeconds + N);
    expect(reconciled, seen).to.be.at.least(N * elapsedSeconds * 0.8);
    // The share is spread: round robin across the waiting queues leaves no controller out.
    expect(busy, seen).to.be.at.least(XRDS - 2);
  });
});
