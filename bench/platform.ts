// Platform: the shape of a platform rather than of one XRD. N XRDs across M namespaces, each Composition a pipeline of
// a gRPC function written with the TypeScript SDK (bench/functions/platform-fn: requires an EnvironmentConfig and a
// labelled ConfigMap, composes ConfigMaps, Secrets, managed resources and child XRs), then patch-and-transform and
// auto-ready; CRDs stand in for managed resources, made Ready by a simulated provider after --provider-delay; the first
// XRD's XRs compose two XRs of the second (nesting depth 3). compositor runs as a separate process at its shipped
// defaults (--controller-cmd runs another controller), the function as another (--function-cmd runs any function
// binary instead, given --insecure --address=<host:port>). Prints one JSON object; progress goes to stderr.
// The Function object carries compositor's endpoint annotation; another controller must find the function its own way.
// Figures: per-XR time from its own create to Ready and the tail after the last create; writes and reads per XR
// counted by the API server (harness/serverRequests.ts, the benchmark's own requests, the provider's among them,
// subtracted); gRPC calls counted by the function process, per XR while converging and per minute at rest; writes at
// rest; drift latency at rest (a composed ConfigMap changed by another field manager until the controller restores
// it; the required ConfigMap of one namespace changed until every XR there shows it); controller RSS before and after
// the API is installed (its cost per watched kind) and idle and peak; watches open at the API server; start-up to
// /readyz on an empty cluster and with everything present (a restart, with an XR changed while down).
// Usage: npm run bench:platform -- [--xrds 20] [--namespaces 50] [--xrs 5000] [--managed-kinds 20]
//        [--provider-delay 2s] [--controller-cmd "<command>"] [--controller-ready-url <url>] [--function-cmd "<cmd>"]
//        [--idle 2m] [--concurrency 32] [--drift-samples 20] [--drift-timeout 90s] [--restart-window 60s]
//        [--ready-timeout 30m]
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { parseDuration } from '../src/apis/index.js';
import { CONTENT_TYPE, type KubeClient } from '../src/kube/index.js';
import type { ControlPlane } from '../e2e/controlplane/index.js';
import { startFunctionCommand, type FunctionProcess } from '../test/functions/process.js';
import {
  createXr,
  forEachBounded,
  forEachPage,
  resourceNameOf,
  xrPath,
  type ComposedConfigMap,
} from './harness/api.js';
import { reusingKubeConfig } from './harness/client.js';
import { ControllerProcess } from './harness/controller.js';
import { startCountedFunction } from './harness/countedFunction.js';
import { parsePrometheus, sum } from './harness/metrics.js';
import { startPlane } from './harness/plane.js';
import {
  FUNCTION_CONFIGMAP,
  installPlatform,
  platform,
  settingsConfigMap,
  type Platform,
} from './harness/platformApi.js';
import { SimulatedProvider } from './harness/provider.js';
import { retryTransient } from './harness/retry.js';
import { ReadyWatch } from './harness/readyWatch.js';
import { cpuBetween, cpuMark, loadAverage, measuring, Progress, runMain, type CpuFigures } from './harness/run.js';
import {
  CountingKubeClient,
  mark,
  ownBetween,
  QUIET_API_SERVER_ARGS,
  serverPhase,
  type RequestCounts,
  type ServerPhase,
} from './harness/serverRequests.js';
import {
  latencyFigures,
  MIB,
  percentile,
  round,
  RssSampler,
  sleep,
  treeRss,
  until,
  type LatencyFigures,
} from './harness/util.js';

export interface PlatformOptions {
  xrds: number;
  namespaces: number;
  xrs: number;
  managedKinds: number;
  providerDelayMs: number;
  controllerCmd?: string;
  controllerReadyUrl?: string;
  functionCmd?: string;
  idleMs: number;
  /** XR creates in flight at once. */
  concurrency: number;
  driftSamples: number;
  driftTimeoutMs: number;
  restartWindowMs: number;
  readyTimeoutMs: number;
  progress?: (line: string) => void;
}

export function platformDefaults(): PlatformOptions {
  return {
    xrds: 20,
    namespaces: 50,
    xrs: 5000,
    managedKinds: 20,
    providerDelayMs: 2_000,
    idleMs: 120_000,
    concurrency: 32,
    driftSamples: 20,
    driftTimeoutMs: 90_000,
    restartWindowMs: 60_000,
    readyTimeoutMs: 30 * 60_000,
  };
}

export interface PlatformResult {
  benchmark: 'platform';
  controller: string;
  function: string;
  xrds: number;
  namespaces: number;
  xrs: number;
  /** XRs the first XRD's XRs compose (two each), besides the created ones. */
  childXrs: number;
  managedKinds: number;
  providerDelayMs: number;
  concurrency: number;
  /** The machine's load averages (1, 5, 15 minutes) when the run started and when it ended. */
  loadAverage: { start: number[]; end: number[] };
  createSeconds: number;
  allReadySeconds: number | null;
  /** From the last create's answer until every XR was Ready. */
  tailAfterLastCreateSeconds: number | null;
  /** Each XR from its create's answer until the watch saw it Ready; notReady at the deadline. */
  createToReady: {
    p50Ms: number | null;
    p99Ms: number | null;
    maxMs: number | null;
    p99MinusProviderDelayMs: number | null;
    notReady: number;
  };
  apiServer: {
    converging: ServerPhase & {
      writesPerXr: number;
      readsPerXr: number;
      cpu: CpuFigures;
      benchmarkOwn: RequestCounts;
    };
    idle: ServerPhase & { writesPerMinute: number; readsPerMinute: number };
  };
  /** Counted by the function process; null for --function-cmd. */
  grpc: { callsConverging: number; callsPerXr: number; callsPerMinuteAtRest: number } | null;
  drift: { composed: LatencyFigures; required: LatencyFigures & { xrs: number } };
  memory: {
    beforeInstallMiB: number;
    afterInstallMiB: number;
    peakMiB: number;
    idleMiB: number;
    /** Kinds the controller watches once the API is installed (the API server's open watches). */
    watchedKindsAfterInstall: number;
    /** (afterInstall - beforeInstall) / watchedKindsAfterInstall: what one more watched kind costs, empty. */
    perWatchedKindMiB: number | null;
    idleHeapUsedMiB: number | null;
  };
  /** Watches the API server holds open at rest for everyone but the benchmark, by resource. */
  watches: { open: number; byResource: Record<string, number> };
  startup: { emptyClusterSeconds: number; everythingPresentSeconds: number };
  restart: {
    windowSeconds: number;
    changedReconciledMs: number | null;
    serverWritesInWindow: number;
    serverReadsInWindow: number;
  };
  targets: Record<string, boolean | null>;
  countedAt: Record<string, string>;
  node: string;
}

const PLATFORM_FN = fileURLToPath(new URL('./functions/platform-fn/main.ts', import.meta.url));
const PROGRESS_EVERY_MS = 30_000;

/** One created XR: its kind (index into Platform.xrs), namespace and name. */
interface XrRef {
  kind: number;
  namespace: string;
  name: string;
}

/** XR j is of kind j mod N, in namespace j mod M; names are unique across namespaces, so a name is a key per kind. */
function xrsOf(p: Platform, count: number): XrRef[] {
  return Array.from({ length: count }, (_, j) => ({
    kind: j % p.xrs.length,
    namespace: p.namespaces[j % p.namespaces.length] ?? '',
    name: `xr-${j}`,
  }));
}

const keyOf = (xr: { kind: number; name: string }): string => `${xr.kind}/${xr.name}`;

/** The platform function as a process, and the gRPC calls it has served (undefined for --function-cmd). */
interface FunctionUnderTest {
  process: FunctionProcess;
  calls(): Promise<number | undefined>;
}

async function startPlatformFunction(command: string | undefined): Promise<FunctionUnderTest> {
  if (command !== undefined) {
    const process = await startFunctionCommand(command);
    return { process, calls: () => Promise.resolve(undefined) };
  }
  return startCountedFunction(PLATFORM_FN);
}

/** Open watches by `resource[.group]` (kube-apiserver's apiserver_longrunning_requests), from one scrape. */
async function openWatches(client: KubeClient): Promise<Record<string, number>> {
  const samples = parsePrometheus(await client.request<string>('GET', '/metrics'));
  const out: Record<string, number> = {};
  for (const s of samples) {
    if (s.name !== 'apiserver_longrunning_requests' || s.labels.verb !== 'WATCH' || s.value === 0) continue;
    const key = `${s.labels.resource ?? ''}${s.labels.group ? `.${s.labels.group}` : ''}`;
    out[key] = (out[key] ?? 0) + s.value;
  }
  return out;
}

/** The open watches minus the benchmark's own (`own`, by resource). */
function othersWatches(all: Record<string, number>, own: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, n] of Object.entries(all)) {
    const others = n - (own[key] ?? 0);
    if (others > 0) out[key] = others;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The watches that are not the controller's: the API server's own (`serverOwn`, open before the controller started),
 * and the benchmark's, one per XR kind (readiness) and one per managed kind (the provider).
 */
function ownWatches(p: Platform, serverOwn: Record<string, number>): Record<string, number> {
  const own: Record<string, number> = { ...serverOwn };
  const add = (apiVersion: string, plural: string): void => {
    const key = `${plural}.${apiVersion.split('/')[0] ?? ''}`;
    own[key] = (own[key] ?? 0) + 1;
  };
  for (const api of p.xrs) add(api.apiVersion, api.plural);
  for (const m of p.managed) add(m.apiVersion, m.plural);
  return own;
}

/** The time each XR was first seen Ready, by keyOf, from one ReadyWatch per XR kind (all namespaces). */
class Readiness {
  readonly readyAt = new Map<string, number>();
  private watches: ReadyWatch[] = [];

  static async start(client: CountingKubeClient, p: Platform): Promise<Readiness> {
    const readiness = new Readiness();
    for (const [kind, api] of p.xrs.entries()) {
      const path = `/apis/${api.apiVersion}/${api.plural}`;
      readiness.watches.push(
        await ReadyWatch.start(client, client.kubeConfig, path, (object, ready) => {
          const key = keyOf({ kind, name: object.metadata.name });
          if (ready && !readiness.readyAt.has(key)) readiness.readyAt.set(key, Date.now());
        }),
      );
    }
    return readiness;
  }

  stop(): void {
    for (const watch of this.watches) watch.stop();
  }
}

interface Converged {
  createSeconds: number;
  allReadyAt: number | undefined;
  started: number;
  lastCreatedAt: number;
  createdAt: Map<string, number>;
}

async function createAndWait(
  { client, p, progress, provider }: Bench,
  readiness: Readiness,
  options: PlatformOptions,
): Promise<Converged> {
  const xrs = xrsOf(p, options.xrs);
  const createdAt = new Map<string, number>();
  const started = Date.now();
  const report = setInterval(() => {
    const writes = provider?.writes;
    const managed =
      writes === undefined
        ? ''
        : `; provider: ${writes.done} Ready written, ${writes.failed} failed (${writes.lastError})`;
    const ready = [...createdAt.keys()].filter((key) => readiness.readyAt.has(key)).length;
    progress.withMemory(`${createdAt.size} of ${xrs.length} XRs created, ${ready} of them Ready${managed}`);
  }, PROGRESS_EVERY_MS);
  try {
    await progress.phase(`create ${xrs.length} XRs (${options.concurrency} at once)`, () =>
      forEachBounded(xrs, options.concurrency, async (xr) => {
        const api = p.xrs[xr.kind];
        if (api === undefined) return;
        await retryTransient(() => createXr(client, { api, namespace: xr.namespace }, xr.name, 'v1'));
        createdAt.set(keyOf(xr), Date.now());
      }),
    );
    const createSeconds = (Date.now() - started) / 1000;
    const lastCreatedAt = Math.max(...createdAt.values());
    const allReadyAt = await progress.phase('wait until every XR is Ready', () =>
      until(
        'every XR Ready',
        () => {
          const ready = [...createdAt.keys()].filter((key) => readiness.readyAt.has(key)).length;
          if (ready === createdAt.size) return Promise.resolve(Math.max(...readiness.readyAt.values()));
          return Promise.resolve(undefined);
        },
        { timeoutMs: options.readyTimeoutMs, intervalMs: 50 },
      ).catch(() => undefined),
    );
    return { createSeconds, allReadyAt, started, lastCreatedAt, createdAt };
  } finally {
    clearInterval(report);
  }
}

function createToReady(run: Converged, readiness: Readiness, providerDelayMs: number): PlatformResult['createToReady'] {
  const times: number[] = [];
  for (const [key, created] of run.createdAt) {
    const ready = readiness.readyAt.get(key);
    if (ready !== undefined) times.push(Math.max(0, ready - created));
  }
  const p99 = percentile(times, 99);
  return {
    p50Ms: percentile(times, 50),
    p99Ms: p99,
    maxMs: times.length === 0 ? null : Math.max(...times),
    p99MinusProviderDelayMs: p99 === null ? null : Math.max(0, p99 - providerDelayMs),
    notReady: run.createdAt.size - times.length,
  };
}

/** The function-composed ConfigMap (config-0) of every XR in `namespace`, by the XR name it carries in data.xr. */
async function functionConfigMaps(client: KubeClient, namespace: string): Promise<Map<string, ComposedConfigMap>> {
  const out = new Map<string, ComposedConfigMap>();
  await forEachPage<ComposedConfigMap>(
    client,
    `/api/v1/namespaces/${namespace}/configmaps`,
    (page) => {
      for (const cm of page) {
        const xr = cm.data?.xr;
        if (resourceNameOf(cm) === FUNCTION_CONFIGMAP && xr !== undefined) out.set(xr, cm);
      }
    },
    { labelSelector: 'crossplane.io/composite' },
  );
  return out;
}

/** Changes config-0's data.value as another field manager, then reads it until the controller has put it back. */
async function oneComposedDrift(
  client: KubeClient,
  cm: ComposedConfigMap,
  timeoutMs: number,
): Promise<number | undefined> {
  const path = `/api/v1/namespaces/${cm.metadata.namespace ?? ''}/configmaps/${cm.metadata.name}`;
  const want = cm.data?.value;
  const started = performance.now();
  await client.request('PATCH', path, {
    body: { data: { value: `drifted-${Date.now()}` } },
    contentType: CONTENT_TYPE.mergePatch,
    query: { fieldManager: 'bench-drift' },
  });
  while (performance.now() - started < timeoutMs) {
    const now = await client.request<ComposedConfigMap>('GET', path);
    if (now.data?.value === want) return performance.now() - started;
    await sleep(5);
  }
  return undefined;
}

async function composedDrift(client: KubeClient, p: Platform, options: PlatformOptions): Promise<LatencyFigures> {
  const samples: (number | undefined)[] = [];
  // Spread over the namespaces, one at a time so each figure is that of an otherwise idle controller.
  for (let i = 0; i < options.driftSamples; i++) {
    const namespace = p.namespaces[i % p.namespaces.length] ?? '';
    const configMaps = [...(await functionConfigMaps(client, namespace)).values()];
    const cm = configMaps[Math.floor(i / p.namespaces.length) % Math.max(1, configMaps.length)];
    if (cm !== undefined) samples.push(await oneComposedDrift(client, cm, options.driftTimeoutMs));
  }
  return latencyFigures(samples);
}

/** Changes the required ConfigMap of the first namespace; times each XR there until its config-0 shows the new tier. */
async function requiredDrift(
  client: KubeClient,
  p: Platform,
  options: PlatformOptions,
): Promise<LatencyFigures & { xrs: number }> {
  const namespace = p.namespaces[0] ?? '';
  const xrs = [...(await functionConfigMaps(client, namespace)).keys()];
  const tier = `silver-${Date.now()}`;
  const started = performance.now();
  await client.request(
    'PATCH',
    `/api/v1/namespaces/${namespace}/configmaps/${settingsConfigMap(namespace, '').metadata.name}`,
    {
      body: { data: { tier } },
      contentType: CONTENT_TYPE.mergePatch,
      query: { fieldManager: 'bench-drift' },
    },
  );
  const seen = new Map<string, number>();
  while (seen.size < xrs.length && performance.now() - started < options.driftTimeoutMs) {
    for (const [xr, cm] of await functionConfigMaps(client, namespace)) {
      if (cm.data?.tier === tier && !seen.has(xr)) seen.set(xr, performance.now() - started);
    }
    await sleep(100);
  }
  return { ...latencyFigures(xrs.map((xr) => seen.get(xr))), xrs: xrs.length };
}

interface Restart {
  everythingPresentSeconds: number;
  figures: PlatformResult['restart'];
}

/** Stops the controller, changes one XR while it is down, starts it (timed to readiness) and watches its first window. */
async function restart(
  client: CountingKubeClient,
  controller: ControllerProcess,
  p: Platform,
  options: PlatformOptions,
): Promise<Restart> {
  // An XR of the second kind or later: one whose config-0 the function composes from its spec.value.
  const changed = xrsOf(p, options.xrs).find((xr) => xr.kind === 1) ?? { kind: 1, namespace: '', name: '' };
  const api = p.xrs[changed.kind];
  await controller.stop();
  if (api !== undefined) {
    await client.request('PATCH', xrPath(api, changed.namespace, changed.name), {
      body: { spec: { value: 'changed-while-down' } },
      contentType: CONTENT_TYPE.mergePatch,
    });
  }
  const from = await mark(client);
  const started = Date.now();
  await controller.start();
  const readyAt = Date.now();
  const changedMs = await until(
    `${changed.name} reconciled after the restart`,
    async () => {
      const cm = (await functionConfigMaps(client, changed.namespace)).get(changed.name);
      return cm?.data?.value === 'changed-while-down' ? Date.now() - readyAt : undefined;
    },
    { timeoutMs: options.restartWindowMs, intervalMs: 50 },
  ).catch(() => null);
  await sleep(Math.max(0, readyAt + options.restartWindowMs - Date.now()));
  const window = serverPhase(from, await mark(client));
  return {
    everythingPresentSeconds: round((readyAt - started) / 1000, 2),
    figures: {
      windowSeconds: options.restartWindowMs / 1000,
      changedReconciledMs: changedMs,
      serverWritesInWindow: window.writes,
      serverReadsInWindow: window.reads,
    },
  };
}

function targetsOf(result: Omit<PlatformResult, 'targets' | 'countedAt' | 'node'>): Record<string, boolean | null> {
  const below = (value: number | null | undefined, limit: number): boolean | null =>
    value === null || value === undefined ? null : value < limit;
  return {
    everyXrReady: result.createToReady.notReady === 0,
    createToReadyP99MinusProviderDelayBelow2s: below(result.createToReady.p99MinusProviderDelayMs, 2_000),
    oneGrpcCallPerNewXr: result.grpc === null ? null : result.grpc.callsPerXr <= 1,
    zeroWritesAtRest: result.apiServer.idle.writes === 0,
    composedDriftP99Below100ms: result.drift.composed.timedOut > 0 ? false : below(result.drift.composed.p99Ms, 100),
    idleRssAtMost400MiB: result.memory.idleMiB <= 400,
    peakRssAtMost600MiB: result.memory.peakMiB <= 600,
  };
}

const COUNTED_AT: Record<string, string> = {
  apiServer:
    "kube-apiserver's apiserver_request_total by verb and resource, per XR in all (created and child XRs), minus the benchmark's own requests (its creates, readiness watches, the simulated provider's status writes and the drift probes) counted client-side under the same labels",
  grpc: 'RunFunction calls served by the platform function process, read from its counter endpoint; per XR in all (created and child XRs)',
  watches:
    "kube-apiserver's apiserver_longrunning_requests{verb=WATCH}, minus the API server's own (open before the controller started) and the benchmark's",
  memory: 'VmRSS of the controller process tree (sampled every 250 ms for the peak)',
  createToReady: "from the answer to each XR's create until a watch of its kind saw it Ready",
};

async function idlePhase(
  client: CountingKubeClient,
  controller: ControllerProcess,
  fn: FunctionUnderTest,
  options: PlatformOptions,
): Promise<{
  server: PlatformResult['apiServer']['idle'];
  callsPerMinute: number | undefined;
  heapUsedMiB: number | null;
}> {
  // Let the last XRs' status writes and their echoes pass.
  await sleep(2_000);
  const from = await mark(client);
  const callsFrom = await fn.calls();
  await sleep(options.idleMs);
  const to = await mark(client);
  const callsTo = await fn.calls();
  const minutes = (to.at - from.at) / 60_000;
  const phase = serverPhase(from, to);
  const samples = await controller.metrics();
  return {
    server: {
      ...phase,
      writesPerMinute: round(phase.writes / minutes, 1),
      readsPerMinute: round(phase.reads / minutes, 1),
    },
    callsPerMinute:
      callsFrom === undefined || callsTo === undefined ? undefined : round((callsTo - callsFrom) / minutes, 1),
    heapUsedMiB: samples ? round(sum(samples, 'nodejs_heap_size_used_bytes') / MIB, 1) : null,
  };
}

/** What every phase of a run uses. */
interface Bench {
  client: CountingKubeClient;
  p: Platform;
  plane: ControlPlane;
  controller: ControllerProcess;
  fn: FunctionUnderTest;
  progress: Progress;
  /** Set once the provider runs, for the progress lines. */
  provider?: SimulatedProvider;
}

/** From the start on an empty cluster to the installed API: start-up time, RSS before and after, kinds watched. */
async function startAndInstall(bench: Bench): Promise<{
  emptyClusterSeconds: number;
  beforeInstall: number;
  afterInstall: number;
  serverWatches: Record<string, number>;
  watchedKinds: number;
}> {
  const { client, p, controller, fn, progress } = bench;
  const serverWatches = await openWatches(client);
  const startedAt = Date.now();
  await progress.phase('start the controller on an empty cluster', () => controller.start());
  const emptyClusterSeconds = round((Date.now() - startedAt) / 1000, 2);
  await sleep(1_000);
  const beforeInstall = treeRss(controller.pid ?? 0);
  const what = `${p.xrs.length} XRDs, ${p.managed.length} managed kinds, ${p.namespaces.length} namespaces`;
  await progress.phase(`install ${what}`, () => installPlatform(client, p, fn.process.endpoint));
  await sleep(2_000);
  const afterInstall = treeRss(controller.pid ?? 0);
  const watchedKinds = Object.keys(othersWatches(await openWatches(client), serverWatches)).length;
  return { emptyClusterSeconds, beforeInstall, afterInstall, serverWatches, watchedKinds };
}

interface Converging {
  run: Converged;
  phase: ServerPhase;
  own: RequestCounts;
  cpu: CpuFigures;
  calls: number | undefined;
}

/** Creates the XRs and waits for them, counting requests, CPU and function calls from the first create. */
async function converge(bench: Bench, readiness: Readiness, options: PlatformOptions): Promise<Converging> {
  const { client, plane, controller, fn } = bench;
  const from = await mark(client);
  const callsFrom = await fn.calls();
  const cpuFrom = cpuMark(plane, controller, { function: fn.process.pid });
  const run = await createAndWait(bench, readiness, options);
  const cpuTo = cpuMark(plane, controller, { function: fn.process.pid });
  const to = await mark(client);
  const callsTo = await fn.calls();
  return {
    run,
    phase: serverPhase(from, to),
    own: ownBetween(from, to),
    cpu: cpuBetween(cpuFrom, cpuTo),
    calls: callsFrom === undefined || callsTo === undefined ? undefined : callsTo - callsFrom,
  };
}

function grpcFigures(calls: number | undefined, atRest: number | undefined, xrsInAll: number): PlatformResult['grpc'] {
  if (calls === undefined || atRest === undefined) return null;
  return { callsConverging: calls, callsPerXr: round(calls / xrsInAll, 2), callsPerMinuteAtRest: atRest };
}

async function measure(
  bench: Bench,
  options: PlatformOptions,
): Promise<Omit<PlatformResult, 'targets' | 'countedAt' | 'node'>> {
  const { client, p, controller, fn, progress } = bench;
  const loadAtStart = loadAverage();
  const started = await startAndInstall(bench);
  const rss = new RssSampler(() => controller.pid).start();
  const provider = await SimulatedProvider.start(client, client.kubeConfig, p.managed, options.providerDelayMs);
  bench.provider = provider;
  const readiness = await Readiness.start(client, p);
  try {
    const converging = await converge(bench, readiness, options);
    const { run } = converging;
    const idle = await progress.phase(`idle (${options.idleMs / 1000} s)`, () =>
      idlePhase(client, controller, fn, options),
    );
    const idleRss = treeRss(controller.pid ?? 0);
    const watches = othersWatches(await openWatches(client), ownWatches(p, started.serverWatches));
    const composed = await progress.phase(`drift of composed resources (${options.driftSamples} samples)`, () =>
      composedDrift(client, p, options),
    );
    const required = await progress.phase('drift of a required ConfigMap', () => requiredDrift(client, p, options));
    rss.stop();
    const restarted = await progress.phase(`restart (window ${options.restartWindowMs / 1000} s)`, () =>
      restart(client, controller, p, options),
    );
    const childXrs = 2 * xrsOf(p, options.xrs).filter((xr) => xr.kind === 0).length;
    const xrsInAll = options.xrs + childXrs;
    const { watchedKinds, beforeInstall, afterInstall } = started;
    return {
      benchmark: 'platform' as const,
      controller: options.controllerCmd ?? `compositor (${controller.mode})`,
      function: options.functionCmd ?? 'bench/functions/platform-fn (TypeScript SDK)',
      xrds: options.xrds,
      namespaces: options.namespaces,
      xrs: options.xrs,
      childXrs,
      managedKinds: options.managedKinds,
      providerDelayMs: options.providerDelayMs,
      concurrency: options.concurrency,
      loadAverage: { start: loadAtStart, end: loadAverage() },
      createSeconds: round(run.createSeconds, 2),
      allReadySeconds: run.allReadyAt === undefined ? null : round((run.allReadyAt - run.started) / 1000, 2),
      tailAfterLastCreateSeconds:
        run.allReadyAt === undefined ? null : round((run.allReadyAt - run.lastCreatedAt) / 1000, 2),
      createToReady: createToReady(run, readiness, options.providerDelayMs),
      apiServer: {
        converging: {
          ...converging.phase,
          writesPerXr: round(converging.phase.writes / xrsInAll, 2),
          readsPerXr: round(converging.phase.reads / xrsInAll, 2),
          cpu: converging.cpu,
          benchmarkOwn: converging.own,
        },
        idle: idle.server,
      },
      grpc: grpcFigures(converging.calls, idle.callsPerMinute, xrsInAll),
      drift: { composed, required },
      memory: {
        beforeInstallMiB: round(beforeInstall / MIB, 1),
        afterInstallMiB: round(afterInstall / MIB, 1),
        peakMiB: round(rss.peak / MIB, 1),
        idleMiB: round(idleRss / MIB, 1),
        watchedKindsAfterInstall: watchedKinds,
        perWatchedKindMiB: watchedKinds === 0 ? null : round((afterInstall - beforeInstall) / MIB / watchedKinds, 2),
        idleHeapUsedMiB: idle.heapUsedMiB,
      },
      watches: { open: Object.values(watches).reduce((t, n) => t + n, 0), byResource: watches },
      startup: {
        emptyClusterSeconds: started.emptyClusterSeconds,
        everythingPresentSeconds: restarted.everythingPresentSeconds,
      },
      restart: restarted.figures,
    };
  } finally {
    rss.stop();
    readiness.stop();
    provider.stop();
  }
}

export async function runPlatform(options: PlatformOptions): Promise<PlatformResult> {
  const p = platform(options);
  const plane = await startPlane(QUIET_API_SERVER_ARGS);
  const fn = await startPlatformFunction(options.functionCmd);
  const controller = new ControllerProcess({
    kubeconfigPath: plane.kubeconfigPath,
    command: options.controllerCmd,
    readyUrl: options.controllerReadyUrl,
    // The platform function is served in plaintext on loopback; everything else is compositor's shipped default.
    args: ['--function-insecure', '--log-level=warn'],
    readyTimeoutMs: Math.max(60_000, options.xrs * 10),
  });
  const progress = new Progress(options.progress, plane, controller);
  const client = new CountingKubeClient(reusingKubeConfig(plane.kubeConfig));
  const stopFunction = { what: 'the function', stop: () => fn.process.stop() };
  return measuring(
    { plane, controller, progress },
    async () => {
      const result = await measure({ client, p, plane, controller, fn, progress }, options);
      return { ...result, targets: targetsOf(result), countedAt: COUNTED_AT, node: process.version };
    },
    [stopFunction],
  );
}

function optionsFromArgs(argv: readonly string[]): PlatformOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      xrds: { type: 'string' },
      namespaces: { type: 'string' },
      xrs: { type: 'string' },
      'managed-kinds': { type: 'string' },
      'provider-delay': { type: 'string' },
      'controller-cmd': { type: 'string' },
      'controller-ready-url': { type: 'string' },
      'function-cmd': { type: 'string' },
      idle: { type: 'string' },
      concurrency: { type: 'string' },
      'drift-samples': { type: 'string' },
      'drift-timeout': { type: 'string' },
      'restart-window': { type: 'string' },
      'ready-timeout': { type: 'string' },
    },
  });
  const d = platformDefaults();
  const number = (text: string | undefined, fallback: number): number => (text === undefined ? fallback : Number(text));
  const duration = (text: string | undefined, fallback: number): number =>
    text === undefined ? fallback : parseDuration(text);
  return {
    xrds: number(values.xrds, d.xrds),
    namespaces: number(values.namespaces, d.namespaces),
    xrs: number(values.xrs, d.xrs),
    managedKinds: number(values['managed-kinds'], d.managedKinds),
    providerDelayMs: duration(values['provider-delay'], d.providerDelayMs),
    controllerCmd: values['controller-cmd'],
    controllerReadyUrl: values['controller-ready-url'],
    functionCmd: values['function-cmd'],
    idleMs: duration(values.idle, d.idleMs),
    concurrency: number(values.concurrency, d.concurrency),
    driftSamples: number(values['drift-samples'], d.driftSamples),
    driftTimeoutMs: duration(values['drift-timeout'], d.driftTimeoutMs),
    restartWindowMs: duration(values['restart-window'], d.restartWindowMs),
    readyTimeoutMs: duration(values['ready-timeout'], d.readyTimeoutMs),
    progress: (line) => process.stderr.write(`${line}\n`),
  };
}

const USAGE = `npm run bench:platform -- [--xrds 20] [--namespaces 50] [--xrs 5000] [--managed-kinds 20]
    [--provider-delay 2s] [--controller-cmd "<command>"] [--controller-ready-url <url>] [--function-cmd "<command>"]
    [--idle 2m] [--concurrency 32] [--drift-samples 20] [--drift-timeout 90s] [--restart-window 60s]
    [--ready-timeout 30m]
Prints one JSON object; bench/RESULTS.md explains its figures. Progress goes to stderr.
`;

await runMain(import.meta.url, USAGE, (argv) => runPlatform(optionsFromArgs(argv)));
