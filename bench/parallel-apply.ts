// Parallel apply: one XR composing 50 ConfigMaps (built-in patch-and-transform, no ordering between them) on the
// local control plane, against compositor started as a separate process, once per --max-concurrent-applies value
// (1 is Crossplane's one-after-another apply). For each: the time from the XR's creation to Ready, and that time
// divided by one apply round trip (a server-side apply of one ConfigMap, measured on the same plane), and the same
// for an XR of one ConfigMap: its Ready time is the reconcile's fixed part (selection, pipeline, XR and status
// writes, the bench's polling), so the difference is what the 50 applies cost. Prints one JSON object.
// --rtt adds that much network round trip between compositor and the API server (a delaying TCP proxy, which the
// round-trip probe goes through too): the local plane has none, so without it a round trip is the API server's CPU
// time alone, which concurrent applies on a small machine cannot hide. For scale, each limit also reports how long
// the bench's own bare client takes to apply the same number of ConfigMaps with that many in flight: the floor for
// any controller on this machine.
// Usage: npm run bench:parallel-apply -- [--composed 50] [--limits 1,8] [--samples 5] [--max-reconcile-rate <n>]
//        [--rtt 20ms]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { parseDuration } from '../src/apis/index.js';
import type { ControlPlane } from '../e2e/controlplane/index.js';
import { mapLimited } from '../src/composite/index.js';
import type { KubeClient } from '../src/kube/index.js';
import { CONTENT_TYPE } from '../src/kube/index.js';
import { installApi, isReady, scaleApi, xrPath, type ScaleApi, type ScaleXr } from './harness/api.js';
import { benchClient } from './harness/client.js';
import { ControllerProcess, effectiveReconcileRate, reconcileRateArgs } from './harness/controller.js';
import { writes } from './harness/metrics.js';
import { LatencyProxy } from './harness/latencyProxy.js';
import { apiPort, proxiedKubeconfig, startPlane } from './harness/plane.js';
import { optionalNumber, percentile, round, sleep, until } from './harness/util.js';

export interface ParallelApplyOptions {
  composed: number;
  /** --max-concurrent-applies values to compare. */
  limits: readonly number[];
  /** XRs timed per limit, one at a time, after one warm-up XR (which starts the ConfigMap informer). */
  samples: number;
  /**
   * compositor's --max-reconcile-rate; undefined runs it with the shipped default (100), high enough that the client
   * rate limit (QPS 5x, burst 10x) is not what is measured.
   */
  maxReconcileRate?: number;
  roundTripSamples: number;
  /** Network round trip added between compositor and the API server; 0 for none. */
  rttMs: number;
}

export interface LimitFigures {
  maxConcurrentApplies: number;
  readyMs: number[];
  readyMsP50: number | null;
  /** readyMsP50 / one apply round trip. */
  roundTripsToReady: number | null;
  /** Ready time of an XR composing a single ConfigMap (median): the fixed part of a reconcile. */
  singleReadyMsP50: number | null;
  /** (readyMsP50 - singleReadyMsP50) / one apply round trip: about composed - 1 when applied one after another. */
  extraRoundTrips: number | null;
  /** compositor's API writes from the XR's creation until Ready (median): the same work either way. */
  writesToReady: number | null;
  /** A bare client applying `composed` ConfigMaps, `maxConcurrentApplies` at once (median): this machine's floor. */
  bareClientMsP50: number | null;
}

export interface ParallelApplyResult {
  benchmark: 'parallel-apply';
  composed: number;
  samples: number;
  maxReconcileRate: number;
  addedRttMs: number;
  applyRoundTripMsP50: number | null;
  applyRoundTripMsP95: number | null;
  runs: LimitFigures[];
  /** Ready time of the first limit (1: sequential) over that of the last. */
  speedup: number | null;
  node: string;
}

const NAMESPACE = 'bench-parallel-apply';
const READY_TIMEOUT_MS = 120_000;
const POLL_MS = 10;

export function parallelApplyDefaults(): ParallelApplyOptions {
  return { composed: 50, limits: [1, 8], samples: 5, roundTripSamples: 50, rttMs: 0 };
}

/** Server-side applies of one ConfigMap (each changing it, so each is a real write), after a few warm-up calls. */
async function applyRoundTrips(client: KubeClient, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = -5; i < count; i++) {
    const started = performance.now();
    await client.request('PATCH', `/api/v1/namespaces/${NAMESPACE}/configmaps/round-trip`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'round-trip' }, data: { i: String(i) } },
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager: 'bench-round-trip', force: true },
    });
    if (i >= 0) times.push(performance.now() - started);
  }
  return times;
}

/** Times a bare client applying `count` new ConfigMaps with `limit` in flight, `samples` times. */
async function bareApplies(
  client: KubeClient,
  run: { count: number; limit: number; samples: number },
): Promise<number[]> {
  const times: number[] = [];
  for (let s = 0; s < run.samples; s++) {
    const names = Array.from({ length: run.count }, (_, i) => `bare-${run.limit}-${s}-${i}`);
    const started = performance.now();
    await mapLimited(names, run.limit, (name) =>
      client.request('PATCH', `/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value: name } },
        contentType: CONTENT_TYPE.apply,
        query: { fieldManager: 'bench-bare-client', force: true },
      }),
    );
    times.push(round(performance.now() - started, 1));
  }
  return times;
}

/** Creates one XR and polls it until Ready; returns the time taken and compositor's writes meanwhile. */
async function timeToReady(
  client: KubeClient,
  controller: ControllerProcess,
  api: ScaleApi,
  name: string,
): Promise<{ ms: number; writes: number | null }> {
  const before = await controller.metrics();
  const started = performance.now();
  await client.request('POST', xrPath(api, NAMESPACE), {
    body: {
      apiVersion: api.apiVersion,
      kind: api.kind,
      metadata: { name, namespace: NAMESPACE },
      spec: { value: name },
    },
  });
  const ms = await until(
    `${name} Ready`,
    async () => (isReady(await client.request<ScaleXr>('GET', xrPath(api, NAMESPACE, name))) ? true : undefined),
    { timeoutMs: READY_TIMEOUT_MS, intervalMs: POLL_MS },
  ).then(() => performance.now() - started);
  const after = await controller.metrics();
  return { ms, writes: before && after ? writes(after) - writes(before) : null };
}

/** Checks the XR composed exactly `composed` ConfigMaps, so a fast Ready is never a partial one. */
async function checkComposed(client: KubeClient, name: string, composed: number): Promise<void> {
  const list = await client.request<{ items: unknown[] }>('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
    query: { labelSelector: `crossplane.io/composite=${name}` },
  });
  if (list.items.length !== composed)
    throw new Error(`${name} is Ready with ${list.items.length}/${composed} composed`);
}

/**
 * Removes the XRs with the controller stopped: finalizers cleared first, since the bench plane runs no garbage
 * collector to finish the foreground deletion of their ConfigMaps. The next controller then starts with no XRs.
 */
async function removeXrs(client: KubeClient, api: ScaleApi): Promise<void> {
  const list = await client.request<{ items: ScaleXr[] }>('GET', xrPath(api, NAMESPACE));
  for (const xr of list.items) {
    const path = xrPath(api, NAMESPACE, xr.metadata.name);
    await client.request('PATCH', path, {
      body: { metadata: { finalizers: null } },
      contentType: CONTENT_TYPE.mergePatch,
    });
    await client.request('DELETE', path);
  }
}

/** One warm-up XR (its first reconcile starts the ConfigMap informer), then `samples` XRs timed one at a time. */
async function sampleReady(
  client: KubeClient,
  controller: ControllerProcess,
  run: { api: ScaleApi; prefix: string; samples: number },
): Promise<{ readyMs: number[]; writes: number[] }> {
  const { api, prefix } = run;
  await timeToReady(client, controller, api, `${prefix}-warm`);
  const readyMs: number[] = [];
  const writes: number[] = [];
  for (let i = 0; i < run.samples; i++) {
    const name = `${prefix}-${i}`;
    const sample = await timeToReady(client, controller, api, name);
    await checkComposed(client, name, api.composed);
    readyMs.push(round(sample.ms, 1));
    if (sample.writes !== null) writes.push(sample.writes);
    // Let the XR's one follow-up reconcile (it observes what it wrote 250 ms later) pass before the next sample.
    await sleep(500);
  }
  return { readyMs, writes };
}

async function runLimit(
  clients: { client: KubeClient; probe: KubeClient },
  controller: ControllerProcess,
  options: { apis: { many: ScaleApi; single: ScaleApi }; limit: number; samples: number; roundTripMs: number | null },
): Promise<LimitFigures> {
  const { client, probe } = clients;
  const { apis, limit, samples, roundTripMs } = options;
  const bare = await bareApplies(probe, { count: apis.many.composed, limit, samples });
  const many = await sampleReady(client, controller, { api: apis.many, prefix: `xr-${limit}`, samples });
  const single = await sampleReady(client, controller, { api: apis.single, prefix: `single-${limit}`, samples });
  const p50 = percentile(many.readyMs, 50);
  const singleP50 = percentile(single.readyMs, 50);
  return {
    maxConcurrentApplies: limit,
    readyMs: many.readyMs,
    readyMsP50: p50,
    roundTripsToReady: p50 === null || roundTripMs === null ? null : round(p50 / roundTripMs, 1),
    singleReadyMsP50: singleP50,
    extraRoundTrips:
      p50 === null || singleP50 === null || roundTripMs === null ? null : round((p50 - singleP50) / roundTripMs, 1),
    writesToReady: percentile(many.writes, 50),
    bareClientMsP50: percentile(bare, 50),
  };
}

/** How compositor and the round-trip probe reach the API server: directly, or through the latency proxy. */
async function route(plane: ControlPlane, rttMs: number): Promise<{ path: string; proxy?: LatencyProxy }> {
  if (rttMs <= 0) return { path: plane.kubeconfigPath };
  const proxy = await new LatencyProxy({ host: '127.0.0.1', port: apiPort(plane) }, rttMs / 2).start();
  return { path: proxiedKubeconfig(plane, proxy.port), proxy };
}

export async function runParallelApply(options: ParallelApplyOptions): Promise<ParallelApplyResult> {
  const plane = await startPlane();
  const apis = { many: scaleApi('XFanout', options.composed), single: scaleApi('XSingle', 1) };
  const runs: LimitFigures[] = [];
  let roundTrips: number[] = [];
  const via = await route(plane, options.rttMs);
  try {
    const client = benchClient(plane.kubeConfig);
    const probeConfig = new KubeConfig();
    probeConfig.loadFromFile(via.path);
    const probe = benchClient(probeConfig);
    for (const limit of options.limits) {
      const controller = new ControllerProcess({
        kubeconfigPath: via.path,
        args: [`--max-concurrent-applies=${limit}`, ...reconcileRateArgs(options.maxReconcileRate), '--log-level=warn'],
      });
      try {
        await controller.start();
        if (runs.length === 0) {
          await installApi(client, apis.many, NAMESPACE);
          await installApi(client, apis.single, NAMESPACE);
          roundTrips = await applyRoundTrips(probe, options.roundTripSamples);
        }
        const roundTripMs = percentile(roundTrips, 50);
        runs.push(
          await runLimit({ client, probe }, controller, { apis, limit, samples: options.samples, roundTripMs }),
        );
      } finally {
        await controller.stop();
      }
      await removeXrs(client, apis.many);
      await removeXrs(client, apis.single);
    }
  } finally {
    await via.proxy?.close();
    await plane.stop();
  }
  const first = runs[0]?.readyMsP50 ?? null;
  const last = runs[runs.length - 1]?.readyMsP50 ?? null;
  return {
    benchmark: 'parallel-apply',
    composed: options.composed,
    samples: options.samples,
    maxReconcileRate: effectiveReconcileRate(options.maxReconcileRate),
    addedRttMs: options.rttMs,
    applyRoundTripMsP50: nullableRound(percentile(roundTrips, 50), 2),
    applyRoundTripMsP95: nullableRound(percentile(roundTrips, 95), 2),
    runs,
    speedup: first === null || last === null || last === 0 ? null : round(first / last, 2),
    node: process.version,
  };
}

function nullableRound(value: number | null, digits: number): number | null {
  return value === null ? null : round(value, digits);
}

function optionsFromArgs(argv: readonly string[]): ParallelApplyOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      composed: { type: 'string' },
      limits: { type: 'string' },
      samples: { type: 'string' },
      'max-reconcile-rate': { type: 'string' },
      rtt: { type: 'string' },
    },
  });
  const defaults = parallelApplyDefaults();
  return {
    ...defaults,
    composed: Number(values.composed ?? defaults.composed),
    limits: values.limits === undefined ? defaults.limits : values.limits.split(',').map(Number),
    samples: Number(values.samples ?? defaults.samples),
    maxReconcileRate: optionalNumber(values['max-reconcile-rate']),
    rttMs: values.rtt === undefined ? defaults.rttMs : parseDuration(values.rtt),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runParallelApply(optionsFromArgs(process.argv.slice(2)));
  process.stdout.write(JSON.stringify(result) + '\n');
}
