import { expect } from 'chai';
import type { KubeClient } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  condition,
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
// 20N/s (the demand, 60/s, caps that at 12N here).

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
  this.timeout(180_000);
  let client: KubeClient;
  let running: RunningEngine | undefined;
  const xrs = apis.flatMap((api) => Array.from({ length: XRS_PER_XRD }, (_, i) => xrOf(api, i)));

  before(() => {
    client = controlPlane().client();
  });

  after(async () => {
    await Promise.all(xrs.map((xr) => remove(client, xr)));
    await running?.stop();
    await Promise.all(
      apis.map((api) =>
        remove(client, {
          apiVersion: 'apiextensions.crossplane.io/v1',
          kind: 'CompositeResourceDefinition',
          metadata: { name: `${api.plural}.${api.group}` },
        }),
      ),
    );
  });

  it(`starts ${N} reconciles/s across 20 composite controllers whose XRs ask for 60/s`, async () => {
    running = await startEngine({
      maxReconcileRate: N,
      enableRealtimeCompositions: false,
      pollIntervalMs: 1_000,
      minPollIntervalMs: 1_000,
    });
    const engine = running;
    await Promise.all(apis.map((api) => installApi(client, api)));
    await Promise.all(xrs.map((xr) => apply(client, xr)));
    await eventually('every XR Synced', async () => {
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
    });

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
    // The burst of 10N went on the XRs' creation; polls of 60 XRs every second keep the bucket empty from here on.
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
