// Scale: N XRs each composing M ConfigMaps through the built-in patch-and-transform, on the local control plane,
// against compositor started as a separate process (or any controller, with --controller-cmd). Prints one JSON
// object: time until all XRs are Ready, reconciles/s and API requests while converging, realtime latency (a
// composed ConfigMap changed by another field manager -> its XR's status shows it), API writes per minute at rest,
// peak and idle RSS, and a restart (reconciles in its first window, time until a changed XR is reconciled).
// Requests are counted twice: by the API server itself (apiserver_request_total by verb and resource, the
// benchmark's own requests subtracted: harness/serverRequests.ts), for any controller, in `apiServer`; and by
// compositor's own client (rest_client_requests_total), null for another controller. `countedAt` says which is which.
// Event writes are counted apart in `events`, both Event APIs (core `events`, as Crossplane writes them, and
// `events.k8s.io`), while converging and until the end of the idle window, since a controller may write them late.
// CPU while converging is counted per process (`apiServer.converging.cpu`: the controller's tree, kube-apiserver and
// etcd from /proc, the benchmark's own) with the cores they kept busy, so a run bound by the machine says so.
// Usage: npm run bench:scale -- [--xrs 1000] [--composed 3] [--max-reconcile-rate <n>] [--realtime=false]
//        [--controller-cmd "<command>"] [--controller-ready-url <url>] [--idle 2m] [--restart-window 60s]
//        [--latency-samples 100] [--experiment reuse-connections] [--no-cache-trim] [--ready-timeout 50m]
//        [--chain 3] [--functions builtin|grpc]
// --chain N: each XR's first N composed ConfigMaps depend on one another, cm-0 <- cm-1 <- ... (a pipeline step of
// test/functions/dependency-function.ts declares them after patch-and-transform), and compositor runs with
// --enable-composed-resource-ordering, so each link is created once the one before exists and is Ready.
// --functions grpc: patch-and-transform and auto-ready are called over gRPC rather than in-process: stand-ins written
// with the TypeScript SDK (bench/functions/scale-fns), one process each, that compose what the built-ins compose, and
// compositor runs with --builtin-functions=false --function-insecure. The JSON's `grpc` has the RunFunction calls each
// stand-in served (while converging, per new XR, per minute at rest), their endpoints and their RSS, apart from the
// controller's. Another controller (--controller-cmd) finds the endpoints in the environment variables
// FUNCTION_PATCH_AND_TRANSFORM_ENDPOINT and FUNCTION_AUTO_READY_ENDPOINT, and in a progress line. Default: builtin.
// --ready-timeout: how long to wait for every XR to be Ready; by default 15 minutes, or 30 ms per XR above 30,000.
// Progress (each phase's start and end, and every ~30 s while creating and converging: XRs created, existing and
// Ready, RSS of the controller, kube-apiserver and etcd) goes to stderr; stdout has only the JSON.
// --controller-ready-url: another controller's readiness endpoint; its start (and restart) is timed until it
// answers 2xx, rather than from its spawn.
// --no-cache-trim runs compositor with COMPOSITOR_CACHE_TRIM=false (read by src/cli/environment.ts): its caches keep
// metadata.managedFields, for the with/without memory comparison in bench/RESULTS.md.
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { parseDuration } from '../src/apis/index.js';
import type { KubeClient } from '../src/kube/index.js';
import { CONTENT_TYPE, KindNotServedError } from '../src/kube/index.js';
import {
  chainStep,
  controllerUid,
  createXrs,
  DEPENDENCY_FUNCTION_NAME,
  endpointFunction,
  installApi,
  type InstallOptions,
  forEachComposed,
  forEachPage,
  patchXrs,
  resourceNameOf,
  scaleApi,
  xrPath,
  type ComposedConfigMap,
  type ExtraSteps,
  type ScaleApi,
  type ScaleXr,
} from './harness/api.js';
import { audit, type Audit } from './harness/audit.js';
import { ReadyWatch, type ReadyCounts } from './harness/readyWatch.js';
import { reusingKubeConfig } from './harness/client.js';
import { ControllerProcess, effectiveReconcileRate, reconcileRateArgs } from './harness/controller.js';
import { byLabel, delta, sum, writes, type Sample } from './harness/metrics.js';
import { startPlane } from './harness/plane.js';
import type { ControlPlane } from '../e2e/controlplane/index.js';
import { startFunction, type FunctionProcess } from '../test/functions/process.js';
import { callsBetween, dividedBy, StandIns, type PerFunction } from './harness/standIns.js';
import {
  CountingKubeClient,
  mark,
  serverCpuBetween,
  serverPhase,
  eventWritesOf,
  ownBetween,
  writesOf,
  QUIET_API_SERVER_ARGS,
  requestKeyOf,
  type CountMark,
  type RequestCounts,
  type ServerPhase,
} from './harness/serverRequests.js';
import { cpuBetween, cpuMark, measuring, Progress, runMain, type CpuFigures, type CpuMark } from './harness/run.js';

export type { CpuFigures } from './harness/run.js';
export type { ServerPhase } from './harness/serverRequests.js';
import {
  latencyFigures,
  MIB,
  optionalNumber,
  round,
  RssSampler,
  sleep,
  treeRss,
  until,
  type LatencyFigures,
} from './harness/util.js';

export interface ScaleOptions {
  xrs: number;
  composed: number;
  /** compositor's --max-reconcile-rate; undefined runs it with the shipped default. */
  maxReconcileRate?: number;
  realtime: boolean;
  controllerCmd?: string;
  /** Another controller's readiness URL: starts and restarts are timed until it answers 2xx. */
  controllerReadyUrl?: string;
  idleMs: number;
  restartWindowMs: number;
  latencySamples: number;
  /** Give up waiting for Ready after this long. */
  readyTimeoutMs: number;
  /** Preloaded experiments (file names in bench/harness without .ts), e.g. reuse-connections. */
  experiments?: readonly string[];
  /** False runs compositor with COMPOSITOR_CACHE_TRIM=false: its caches keep metadata.managedFields. */
  cacheTrim: boolean;
  /** Length of each XR's dependency chain, with ordering on; 0 composes without dependencies, ordering off. */
  chain: number;
  /** How patch-and-transform and auto-ready run: compositor's built-ins, or the SDK stand-ins called over gRPC. */
  functions: 'builtin' | 'grpc';
  /** Where progress lines go (the command line: stderr); none when undefined. */
  progress?: (line: string) => void;
}

export type { LatencyFigures } from './harness/util.js';

export interface ScaleResult {
  benchmark: 'scale';
  controller: string;
  xrs: number;
  composed: number;
  maxReconcileRate: number;
  realtime: boolean;
  experiments: readonly string[];
  /** Whether compositor trimmed its cached objects (false with --no-cache-trim). */
  cacheTrim: boolean;
  /** --chain: the dependency chain per XR (0: none); compositor ran with ordering on exactly when it is not 0. */
  chain: number;
  /** --functions: built-in patch-and-transform and auto-ready, or the stand-ins over gRPC (figures in `grpc`). */
  functions: 'builtin' | 'grpc';
  /** With --functions grpc: what the stand-ins served and used; null with the built-ins. */
  grpc: GrpcFigures | null;
  createSeconds: number;
  allReadySeconds: number | null;
  audit: Audit;
  reconciles: number | null;
  reconcilesPerSecond: number | null;
  /** Reconciles per XR while converging (compositor's controller_runtime_reconcile_total). */
  reconcilesPerXr: number | null;
  /** compositor's own count (rest_client_requests_total), client-side; null for another controller. */
  apiRequestsByVerb: Record<string, number> | null;
  /** Client-side, from apiRequestsByVerb. */
  apiWritesPerXr: number | null;
  /** Counted by the API server (apiserver_request_total), the benchmark's own requests subtracted; any controller. */
  apiServer: ServerFigures;
  /** Event writes at the API server, both Event APIs: how many Events new XRs cost, and when they were written. */
  events: EventFigures;
  /** Where each request and reconcile figure was counted. */
  countedAt: Record<string, string>;
  latency: LatencyFigures;
  idleSeconds: number;
  idleApiWritesPerMinute: number | null;
  idleReconcilesPerMinute: number | null;
  peakRssMiB: number;
  idleRssMiB: number;
  /** compositor's own view at rest (prom-client process metrics): V8 heap used and external memory. */
  idleHeapUsedMiB: number | null;
  /** V8 heap committed at rest: what the heap holds on to beyond what is in use. */
  idleHeapTotalMiB: number | null;
  idleExternalMiB: number | null;
  restart: RestartFigures;
  targets: Record<string, boolean | null>;
  node: string;
}

/** One figure per Function name (function-patch-and-transform, function-auto-ready). */
export interface GrpcFigures {
  /** Where each stand-in listens (plaintext gRPC), for another controller to be pointed at. */
  endpoints: Record<string, string>;
  /** RunFunction calls served from the first create until all Ready. */
  callsConverging: PerFunction;
  /** callsConverging per created XR. */
  callsPerNewXr: PerFunction;
  /** RunFunction calls per minute served during the idle window. */
  callsPerMinuteAtRest: PerFunction;
  /** Each stand-in process's RSS, not counted in the controller's: the peak while the controller's is sampled. */
  peakRssMiB: PerFunction;
  /** At the end of the idle window. */
  idleRssMiB: PerFunction;
}

export interface RestartFigures {
  windowSeconds: number;
  /** From the spawn until /readyz (compositor) or --controller-ready-url answered; from the spawn alone without one. */
  readySeconds: number;
  /** What readySeconds and changedReconciledMs are timed from: `readiness` or `spawn`. */
  timedFrom: 'readiness' | 'spawn';
  reconcilesInWindow: number | null;
  reconciledRatio: number | null;
  changedReconciledMs: number | null;
  /** API server's count from the spawn to the end of the window, the benchmark's own requests subtracted. */
  serverWritesInWindow: number;
  serverReadsInWindow: number;
}

export interface ServerFigures {
  converging: ServerPhase & {
    writesPerXr: number;
    readsPerXr: number;
    /** CPU seconds kube-apiserver used from the first create until all Ready, its own requests included. */
    cpuSeconds: number | null;
    /** CPU seconds of every process from the first create until all Ready (/proc), and the cores they kept busy. */
    cpu: CpuFigures;
    benchmarkOwn: RequestCounts;
  };
  idle: ServerPhase & { writesPerMinute: number; readsPerMinute: number };
}

export interface EventFigures {
  /** Event writes from the first create until all Ready, by request key (core `events` and `events.k8s.io`). */
  converging: RequestCounts;
  convergingPerXr: number;
  /**
   * From the first create until the end of the idle window (the latency samples between): a controller that writes
   * its Events behind a queue, one at a time, writes many of them after all Ready, where `converging` misses them.
   */
  untilIdleEnd: RequestCounts;
  untilIdleEndPerXr: number;
}

const NAMESPACE = 'bench-scale';
const CM0 = 'cm-0';
/** How often progress is reported while creating, converging and timing latency. */
const PROGRESS_EVERY_MS = 30_000;

/** The default --ready-timeout: 15 minutes, or 30 ms per XR when that is longer (50 minutes at 100,000). */
export function readyTimeoutFor(xrs: number): number {
  return Math.max(15 * 60_000, xrs * 30);
}

export function scaleDefaults(): ScaleOptions {
  return {
    xrs: 1000,
    composed: 3,
    realtime: true,
    idleMs: 120_000,
    restartWindowMs: 60_000,
    latencySamples: 100,
    readyTimeoutMs: readyTimeoutFor(1000),
    cacheTrim: true,
    chain: 0,
    functions: 'builtin',
  };
}

function names(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `xr-${i}`);
}

function controllerArgs(options: ScaleOptions): string[] {
  const ordering = options.chain > 0 ? ['--enable-composed-resource-ordering=true'] : [];
  const grpc = options.functions === 'grpc' ? ['--builtin-functions=false'] : [];
  // The dependency function and the stand-ins are served in plaintext on loopback.
  const insecure = options.chain > 0 || options.functions === 'grpc' ? ['--function-insecure'] : [];
  return [
    ...reconcileRateArgs(options.maxReconcileRate),
    `--enable-realtime-compositions=${options.realtime}`,
    ...ordering,
    ...grpc,
    ...insecure,
    '--log-level=warn',
  ];
}

const DEPENDENCY_FUNCTION = fileURLToPath(new URL('../test/functions/dependency-function.ts', import.meta.url));

/** For --chain: the dependency function's process, and the Function and step that declare the chain. */
async function chainSteps(options: ScaleOptions): Promise<{ fn: FunctionProcess; extra: ExtraSteps } | undefined> {
  if (options.chain === 0) return undefined;
  if (!Number.isInteger(options.chain) || options.chain < 2 || options.chain > options.composed) {
    throw new Error(`cannot chain ${options.chain} of ${options.composed} composed resources: 2 to --composed`);
  }
  const fn = await startFunction(DEPENDENCY_FUNCTION);
  return {
    fn,
    extra: { functions: [endpointFunction(DEPENDENCY_FUNCTION_NAME, fn.endpoint)], steps: [chainStep(options.chain)] },
  };
}

/** Waits until the watch has seen every XR, each of them Ready; returns when it saw that, or undefined at the deadline. */
async function waitAllReady(
  tracker: ReadyWatch,
  options: ScaleOptions,
  progress: Progress,
): Promise<number | undefined> {
  const all = (counts: ReadyCounts): boolean => counts.exist === options.xrs && counts.ready === options.xrs;
  return tracker.until(all, {
    deadline: Date.now() + options.readyTimeoutMs,
    everyMs: PROGRESS_EVERY_MS,
    onWait: (counts) => {
      progress.withMemory(`waiting for Ready: ${counts.exist} XRs exist, ${counts.ready} Ready${tracker.trouble()}`);
    },
  });
}

interface Converge {
  createSeconds: number;
  allReadySeconds: number | null;
  before: Sample[] | undefined;
  after: Sample[] | undefined;
  server: { from: CountMark; to: CountMark };
  cpu: { from: CpuMark; to: CpuMark };
  /** RunFunction calls of the stand-ins (--functions grpc) from the first create until all Ready. */
  calls: PerFunction | undefined;
}

/** What a run measures besides the API server: the controller, and the stand-ins with --functions grpc. */
interface Processes {
  controller: ControllerProcess;
  standIns: StandIns | undefined;
}

async function converge(
  client: CountingKubeClient,
  { plane, controller, standIns }: Processes & { plane: ControlPlane },
  options: ScaleOptions,
  progress: Progress,
): Promise<Converge> {
  const api = scaleApi('XScale', options.composed);
  const before = await controller.metrics();
  const from = await mark(client);
  // Started before the first create, so the moment the last XR turns Ready is seen as it happens. Its list is counted
  // as the benchmark's own; its watch is counted by the server only when it ends, after the last mark below.
  const tracker = await ReadyWatch.start(client, client.kubeConfig, xrPath(api, NAMESPACE));
  try {
    const cpuFrom = cpuMark(plane, controller, standIns?.pids);
    const callsFrom = await standIns?.calls();
    const started = Date.now();
    // Counted from what the benchmark's client has sent, so reporting costs no request.
    const createKey = requestKeyOf('POST', xrPath(api, NAMESPACE)) ?? '';
    const sentBefore = client.sent()[createKey] ?? 0;
    const creating = setInterval(() => {
      progress.withMemory(`creating: ${(client.sent()[createKey] ?? 0) - sentBefore} of ${options.xrs} XRs sent`);
    }, PROGRESS_EVERY_MS);
    try {
      await progress.phase(`create ${options.xrs} XRs`, () =>
        createXrs(client, { api, namespace: NAMESPACE }, names(options.xrs), { value: 'v1' }),
      );
    } finally {
      clearInterval(creating);
    }
    const createSeconds = (Date.now() - started) / 1000;
    const readyAt = await progress.phase(
      `wait until all ${options.xrs} XRs are Ready (timeout ${options.readyTimeoutMs / 1000} s)`,
      () => waitAllReady(tracker, options, progress),
    );
    const cpuTo = cpuMark(plane, controller, standIns?.pids);
    const callsTo = await standIns?.calls();
    const allReadySeconds = readyAt === undefined ? null : (readyAt - started) / 1000;
    progress.line(
      allReadySeconds === null
        ? `not all Ready: timed out (${JSON.stringify(tracker.counts())})`
        : `all Ready ${round(allReadySeconds, 1)} s after the first create`,
    );
    const to = await mark(client);
    return {
      createSeconds,
      allReadySeconds,
      before,
      after: await controller.metrics(),
      server: { from, to },
      cpu: { from: cpuFrom, to: cpuTo },
      calls: callsFrom && callsTo ? callsBetween(callsFrom, callsTo) : undefined,
    };
  } finally {
    tracker.stop();
  }
}

/** Adds the cm-0 ConfigMap of each XR, by XR uid, of one page of composed ConfigMaps to `out`. */
function addFirstComposed(out: Map<string, string>, composed: readonly ComposedConfigMap[]): void {
  for (const cm of composed) {
    const uid = controllerUid(cm);
    if (uid !== undefined && resourceNameOf(cm) === CM0) out.set(uid, cm.metadata.name);
  }
}

/** Changes cm-0's data.probe as another field manager, then reads the XR until status.probe shows it. */
async function oneLatency(
  client: KubeClient,
  target: { xr: string; configMap: string; token: string },
  timeoutMs: number,
): Promise<number | undefined> {
  const started = performance.now();
  await client.request('PATCH', `/api/v1/namespaces/${NAMESPACE}/configmaps/${target.configMap}`, {
    body: { data: { probe: target.token } },
    contentType: CONTENT_TYPE.mergePatch,
    query: { fieldManager: 'bench-latency' },
  });
  const api = scaleApi('XScale', 0);
  const deadline = started + timeoutMs;
  while (performance.now() < deadline) {
    const xr = await client.request<ScaleXr>('GET', xrPath(api, NAMESPACE, target.xr));
    if (xr.status?.probe === target.token) return performance.now() - started;
    await sleep(5);
  }
  return undefined;
}

async function measureLatency(client: KubeClient, options: ScaleOptions, progress: Progress): Promise<LatencyFigures> {
  const api = scaleApi('XScale', options.composed);
  // Only the name and uid of each XR, and the name of each cm-0, are kept of the lists.
  const xrs: { name: string; uid: string }[] = [];
  await forEachPage<ScaleXr>(client, xrPath(api, NAMESPACE), (page) => {
    for (const xr of page) xrs.push({ name: xr.metadata.name, uid: xr.metadata.uid ?? '' });
  });
  const cm0 = new Map<string, string>();
  await forEachComposed(client, NAMESPACE, (page) => {
    addFirstComposed(cm0, page);
  });
  const count = Math.min(options.latencySamples, xrs.length);
  const step = xrs.length / Math.max(1, count);
  const targets = Array.from({ length: count }, (_, i) => xrs[Math.floor(i * step)]).flatMap((xr, i) => {
    const configMap = cm0.get(xr?.uid ?? '');
    return xr && configMap ? [{ xr: xr.name, configMap, token: `t${i}-${Date.now()}` }] : [];
  });
  const samples: (number | undefined)[] = [];
  if (options.realtime) {
    // One at a time, so each figure is the latency of an otherwise idle controller.
    let reported = Date.now();
    for (const target of targets) {
      samples.push(await oneLatency(client, target, 30_000));
      if (Date.now() - reported >= PROGRESS_EVERY_MS) {
        reported = Date.now();
        const timedOut = samples.filter((s) => s === undefined).length;
        progress.line(`latency: ${samples.length} of ${targets.length} samples, ${timedOut} timed out`);
      }
    }
  } else {
    // Polling takes up to a poll interval per change: change them all at once, each timed on its own.
    samples.push(...(await Promise.all(targets.map((t) => oneLatency(client, t, 180_000)))));
  }
  return latencyFigures(samples);
}

interface Idle {
  server: ServerFigures['idle'];
  /** The count at the end of the idle window. */
  until: CountMark;
  writesPerMinute: number | null;
  reconcilesPerMinute: number | null;
  rssBytes: number;
  heapUsedMiB: number | null;
  heapTotalMiB: number | null;
  externalMiB: number | null;
  /** The stand-ins' (--functions grpc) calls per minute in the window, and their RSS at its end. */
  standIns: { callsPerMinute: PerFunction; rssMiB: PerFunction } | undefined;
}

async function measureIdle(
  client: CountingKubeClient,
  { controller, standIns }: Processes,
  options: ScaleOptions,
  api: ScaleApi,
): Promise<Idle> {
  // Let the last latency sample's status write and its echo pass.
  await sleep(2_000);
  const before = await controller.metrics();
  const from = await mark(client);
  const callsFrom = await standIns?.calls();
  await sleep(options.idleMs);
  const to = await mark(client);
  const callsTo = await standIns?.calls();
  const after = await controller.metrics();
  const minutes = (to.at - from.at) / 60_000;
  const standInFigures =
    standIns && callsFrom && callsTo
      ? { callsPerMinute: dividedBy(callsBetween(callsFrom, callsTo), minutes), rssMiB: standIns.rssMiB() }
      : undefined;
  const phase = serverPhase(from, to);
  const server = {
    ...phase,
    writesPerMinute: round(phase.writes / minutes, 1),
    readsPerMinute: round(phase.reads / minutes, 1),
  };
  const rssBytes = treeRss(controller.pid ?? 0);
  if (!before || !after) {
    return {
      server,
      until: to,
      writesPerMinute: null,
      reconcilesPerMinute: null,
      rssBytes,
      heapUsedMiB: null,
      heapTotalMiB: null,
      externalMiB: null,
      standIns: standInFigures,
    };
  }
  const reconciles = reconcileCount(after, api) - reconcileCount(before, api);
  return {
    server,
    until: to,
    writesPerMinute: round((writes(after) - writes(before)) / minutes, 1),
    reconcilesPerMinute: round(reconciles / minutes, 1),
    rssBytes,
    heapUsedMiB: round(sum(after, 'nodejs_heap_size_used_bytes') / MIB, 1),
    heapTotalMiB: round(sum(after, 'nodejs_heap_size_total_bytes') / MIB, 1),
    externalMiB: round(sum(after, 'nodejs_external_memory_bytes') / MIB, 1),
    standIns: standInFigures,
  };
}

function eventFigures(converging: ServerPhase, untilIdleEnd: ServerPhase, xrs: number): EventFigures {
  const early = eventWritesOf(converging.byRequest);
  const late = eventWritesOf(untilIdleEnd.byRequest);
  return {
    converging: early,
    convergingPerXr: round(writesOf(early) / xrs, 2),
    untilIdleEnd: late,
    untilIdleEndPerXr: round(writesOf(late) / xrs, 2),
  };
}

function reconcileCount(samples: readonly Sample[], api: ScaleApi): number {
  return sum(samples, 'controller_runtime_reconcile_total', { controller: api.controller });
}

/** Whether every composed ConfigMap of one XR shows `value`. */
async function composedShow(client: KubeClient, xr: string, value: string, composed: number): Promise<boolean> {
  const list = await client.request<{ items: ComposedConfigMap[] }>(
    'GET',
    `/api/v1/namespaces/${NAMESPACE}/configmaps`,
    { query: { labelSelector: `crossplane.io/composite=${xr}` } },
  );
  return list.items.length === composed && list.items.every((cm) => cm.data?.value === value);
}

/** Stops the controller, changes one XR while it is down, starts it and watches its first window. */
async function measureRestart(
  client: CountingKubeClient,
  controller: ControllerProcess,
  options: ScaleOptions,
  api: ScaleApi,
): Promise<RestartFigures> {
  const changed = `xr-${Math.floor(options.xrs / 2)}`;
  await controller.stop();
  await patchXrs(client, { api, namespace: NAMESPACE }, [changed], 'changed-while-down');
  const from = await mark(client);
  const started = Date.now();
  await controller.start();
  const readyAt = Date.now();
  const changedMs = await until(
    `${changed} reconciled after the restart`,
    async () =>
      (await composedShow(client, changed, 'changed-while-down', options.composed)) ? Date.now() : undefined,
    { timeoutMs: options.restartWindowMs, intervalMs: 20 },
  ).then(
    (at) => at - readyAt,
    () => null,
  );
  await sleep(Math.max(0, readyAt + options.restartWindowMs - Date.now()));
  const samples = await controller.metrics();
  const window = serverPhase(from, await mark(client));
  const reconciles = samples ? reconcileCount(samples, api) : null;
  return {
    windowSeconds: options.restartWindowMs / 1000,
    readySeconds: (readyAt - started) / 1000,
    timedFrom: controller.isCompositor || options.controllerReadyUrl !== undefined ? 'readiness' : 'spawn',
    reconcilesInWindow: reconciles,
    reconciledRatio: reconciles === null ? null : round(reconciles / options.xrs, 4),
    changedReconciledMs: changedMs,
    serverWritesInWindow: window.writes,
    serverReadsInWindow: window.reads,
  };
}

function verbs(run: Converge): Record<string, number> | null {
  if (!run.before || !run.after) return null;
  return delta(
    byLabel(run.after, 'rest_client_requests_total', 'method'),
    byLabel(run.before, 'rest_client_requests_total', 'method'),
  );
}

/**
 * The targets: the standing ones of bench/RESULTS.md, and the 1,000-XR ones of the performance issue (Ready within
 * 10 s, at most 5.5 writes per XR counted by the API server, at most 1.2 reconciles per XR, peak RSS at most 300 MiB
 * and idle at most 200 MiB, latency p99 below 50 ms). Writes at rest are the API server's count.
 */
function targetsOf(result: Omit<ScaleResult, 'targets' | 'node'>): Record<string, boolean | null> {
  const below = (value: number | null, limit: number): boolean | null => (value === null ? null : value < limit);
  const atMost = (value: number | null, limit: number): boolean | null => (value === null ? null : value <= limit);
  const latencyBelow = (limit: number): boolean | null =>
    result.latency.timedOut > 0 ? false : below(result.latency.p99Ms, limit);
  return {
    allReadyWithin30s: result.allReadySeconds === null ? false : result.allReadySeconds <= 30,
    allReadyWithin10s: result.allReadySeconds === null ? false : result.allReadySeconds <= 10,
    serverWritesPerXrAtMost5_5: atMost(result.apiServer.converging.writesPerXr, 5.5),
    reconcilesPerXrAtMost1_2: atMost(result.reconcilesPerXr, 1.2),
    latencyP99Below100ms: latencyBelow(100),
    latencyP99Below50ms: latencyBelow(50),
    zeroIdleWrites: result.apiServer.idle.writes === 0,
    peakRssAtMost300MiB: result.peakRssMiB <= 300,
    idleRssAtMost200MiB: result.idleRssMiB <= 200,
    idleRssBelow512MiB: result.idleRssMiB < 512,
    restartBelow5Percent: below(result.restart.reconciledRatio, 0.05),
    changedReconciledWithin2s:
      result.restart.changedReconciledMs === null ? false : result.restart.changedReconciledMs <= 2000,
    ...grpcTargets(result),
  };
}

/**
 * With --functions grpc (null with the built-ins): one RunFunction call per function per new XR, and the controller's
 * RSS at most 234 MiB at its peak and 196 MiB at rest, the stand-ins' own not counted.
 */
function grpcTargets(result: Omit<ScaleResult, 'targets' | 'node'>): Record<string, boolean | null> {
  const grpc = result.grpc;
  const perXr = grpc === null ? [] : Object.values(grpc.callsPerNewXr);
  return {
    grpcOneCallPerFunctionPerNewXr: grpc === null ? null : perXr.length > 0 && perXr.every((n) => n <= 1),
    grpcPeakRssAtMost234MiB: grpc === null ? null : result.peakRssMiB <= 234,
    grpcIdleRssAtMost196MiB: grpc === null ? null : result.idleRssMiB <= 196,
  };
}

/**
 * Installs the API. Another controller (--controller-cmd) installs its CRDs itself after it starts and has no
 * readiness probe the bench knows, so its Function and XRD kinds are waited for (up to 2 minutes).
 */
async function installWhenServed(
  client: KubeClient,
  api: ReturnType<typeof scaleApi>,
  waitForKinds: boolean,
  install: InstallOptions,
): Promise<void> {
  const deadline = Date.now() + (waitForKinds ? 120_000 : 0);
  for (;;) {
    try {
      await installApi(client, api, NAMESPACE, install);
      return;
    } catch (err) {
      if (!(err instanceof KindNotServedError) || Date.now() > deadline) throw err;
      await sleep(1_000);
    }
  }
}

const COUNTED_AT: Record<string, string> = {
  apiServer:
    "kube-apiserver's apiserver_request_total by verb and resource (resource requests only), minus the benchmark's own requests counted client-side under the same labels; the API server's identity Lease is switched off",
  apiRequestsByVerb:
    "compositor's rest_client_requests_total (client-side, by HTTP method); null for another controller",
  apiWritesPerXr: 'client-side, from apiRequestsByVerb',
  idleApiWritesPerMinute: 'client-side, rest_client_requests_total',
  'apiServer.converging.cpuSeconds':
    "kube-apiserver's process_cpu_seconds_total from the first create until all Ready; the benchmark's own creates and watch included",
  'apiServer.converging.cpu':
    'utime + stime from /proc/<pid>/stat of the controller process tree and each control plane process, process.cpuUsage() of the benchmark, from the first create until all Ready was seen',
  events:
    "apiserver_request_total's writes of core events and events.k8s.io Events (POST, PATCH, PUT), the benchmark's own subtracted (it writes none)",
  reconciles: "compositor's controller_runtime_reconcile_total for the XR kind",
  rss: 'VmRSS of the controller process tree, sampled every 250 ms',
  grpc: "RunFunction calls served by each stand-in process (--functions grpc), read from its counter endpoint; RSS of each stand-in's process, apart from the controller's",
};

/** The `grpc` figures of a run with the stand-ins; null with the built-ins. */
function grpcFigures(standIns: StandIns | undefined, run: Converge, idle: Idle, xrs: number): GrpcFigures | null {
  if (standIns === undefined || run.calls === undefined || idle.standIns === undefined) return null;
  return {
    endpoints: standIns.endpoints,
    callsConverging: run.calls,
    callsPerNewXr: dividedBy(run.calls, xrs),
    callsPerMinuteAtRest: idle.standIns.callsPerMinute,
    peakRssMiB: standIns.peakRssMiB(),
    idleRssMiB: idle.standIns.rssMiB,
  };
}

/** The stand-ins of --functions grpc, started; undefined with the built-ins. */
async function startStandIns(options: ScaleOptions): Promise<StandIns | undefined> {
  return options.functions === 'grpc' ? StandIns.start() : undefined;
}

/** Samples the controller's RSS, and the stand-ins' apart from it, every 250 ms until stop(). */
function sampleRss(controller: ControllerProcess, standIns: StandIns | undefined): { peak: number; stop(): void } {
  const rss = new RssSampler(() => controller.pid).start();
  standIns?.startSampling();
  return {
    get peak() {
      return rss.peak;
    },
    stop: () => {
      rss.stop();
      standIns?.stopSampling();
    },
  };
}

export async function runScale(options: ScaleOptions): Promise<ScaleResult> {
  const started = Date.now();
  const chain = await chainSteps(options);
  let standIns: StandIns | undefined;
  try {
    standIns = await startStandIns(options);
    return await runScaleWith(options, started, { extra: chain?.extra, standIns });
  } finally {
    await standIns?.stop();
    await chain?.fn.stop();
  }
}

async function runScaleWith(
  options: ScaleOptions,
  started: number,
  { extra, standIns }: { extra: ExtraSteps | undefined; standIns: StandIns | undefined },
): Promise<ScaleResult> {
  const plane = await startPlane(QUIET_API_SERVER_ARGS);
  const controller = new ControllerProcess({
    kubeconfigPath: plane.kubeconfigPath,
    command: options.controllerCmd,
    readyUrl: options.controllerReadyUrl,
    args: controllerArgs(options),
    // Always set, so that a COMPOSITOR_CACHE_TRIM in the bench's own environment cannot contradict the reported mode.
    // The stand-ins' endpoints, for another controller's command (compositor finds them in the Functions' annotation).
    env: { COMPOSITOR_CACHE_TRIM: String(options.cacheTrim), ...standIns?.environment },
    // A restart with 100,000 settled XRs may take longer to pass /readyz than the harness's 60 s default; a slow start
    // is what readySeconds reports, not a reason to lose the run.
    readyTimeoutMs: Math.max(60_000, options.xrs * 3),
    preload: (options.experiments ?? []).map((name) => fileURLToPath(new URL(`./harness/${name}.ts`, import.meta.url))),
  });
  const progress = new Progress(options.progress, plane, controller);
  progress.line(`control plane started in ${round((Date.now() - started) / 1000, 1)} s`);
  if (standIns) progress.line(`function stand-ins over gRPC: ${JSON.stringify(standIns.environment)}`);
  return measuring({ plane, controller, progress }, async () => {
    const client = new CountingKubeClient(reusingKubeConfig(plane.kubeConfig));
    const api = scaleApi('XScale', options.composed);
    progress.line(`control plane in ${dirname(plane.kubeconfigPath)}; controller log ${controller.log}`);
    await progress.phase('start the controller', () => controller.start());
    await progress.phase('install the API', () =>
      installWhenServed(client, api, options.controllerCmd !== undefined, { extra, endpoints: standIns?.endpoints }),
    );
    const rss = sampleRss(controller, standIns);
    const run = await converge(client, { plane, controller, standIns }, options, progress);
    const settled = await progress.phase('audit', () => audit(client, api, NAMESPACE));
    progress.line(`audit: ${JSON.stringify(settled)}`);
    const reconciles =
      run.before && run.after ? reconcileCount(run.after, api) - reconcileCount(run.before, api) : null;
    const requests = verbs(run);
    const latency = await progress.phase(`latency (${options.latencySamples} samples)`, () =>
      measureLatency(client, options, progress),
    );
    const idle = await progress.phase(`idle (${options.idleMs / 1000} s)`, () =>
      measureIdle(client, { controller, standIns }, options, api),
    );
    const converging = serverPhase(run.server.from, run.server.to);
    rss.stop();
    progress.line(`peak controller RSS ${round(rss.peak / MIB, 1)} MiB`);
    const restart = await progress.phase(`restart (window ${options.restartWindowMs / 1000} s)`, () =>
      measureRestart(client, controller, options, api),
    );
    const result = {
      benchmark: 'scale' as const,
      controller: options.controllerCmd ?? `compositor (${controller.mode})`,
      xrs: options.xrs,
      composed: options.composed,
      maxReconcileRate: effectiveReconcileRate(options.maxReconcileRate),
      realtime: options.realtime,
      experiments: options.experiments ?? [],
      cacheTrim: options.cacheTrim,
      chain: options.chain,
      functions: options.functions,
      grpc: grpcFigures(standIns, run, idle, options.xrs),
      createSeconds: round(run.createSeconds, 2),
      allReadySeconds: run.allReadySeconds === null ? null : round(run.allReadySeconds, 2),
      audit: settled,
      reconciles,
      reconcilesPerSecond:
        reconciles === null || run.allReadySeconds === null ? null : round(reconciles / run.allReadySeconds, 1),
      reconcilesPerXr: reconciles === null ? null : round(reconciles / options.xrs, 2),
      apiRequestsByVerb: requests,
      apiWritesPerXr: requests
        ? round(['POST', 'PUT', 'PATCH', 'DELETE'].reduce((t, v) => t + (requests[v] ?? 0), 0) / options.xrs, 2)
        : null,
      apiServer: {
        converging: {
          ...converging,
          writesPerXr: round(converging.writes / options.xrs, 2),
          readsPerXr: round(converging.reads / options.xrs, 2),
          cpuSeconds: serverCpuBetween(run.server.from, run.server.to),
          cpu: cpuBetween(run.cpu.from, run.cpu.to),
          benchmarkOwn: ownBetween(run.server.from, run.server.to),
        },
        idle: idle.server,
      },
      events: eventFigures(converging, serverPhase(run.server.from, idle.until), options.xrs),
      countedAt: COUNTED_AT,
      latency,
      idleSeconds: options.idleMs / 1000,
      idleApiWritesPerMinute: idle.writesPerMinute,
      idleReconcilesPerMinute: idle.reconcilesPerMinute,
      peakRssMiB: round(rss.peak / MIB, 1),
      idleRssMiB: round(idle.rssBytes / MIB, 1),
      idleHeapUsedMiB: idle.heapUsedMiB,
      idleHeapTotalMiB: idle.heapTotalMiB,
      idleExternalMiB: idle.externalMiB,
      restart,
    };
    return { ...result, targets: targetsOf(result), node: process.version };
  });
}

function functionsMode(text: string): ScaleOptions['functions'] {
  if (text === 'builtin' || text === 'grpc') return text;
  throw new Error(`cannot run with --functions ${JSON.stringify(text)}: expected builtin or grpc`);
}

function optionsFromArgs(argv: readonly string[]): ScaleOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      xrs: { type: 'string' },
      composed: { type: 'string' },
      'max-reconcile-rate': { type: 'string' },
      realtime: { type: 'string' },
      'controller-cmd': { type: 'string' },
      'controller-ready-url': { type: 'string' },
      idle: { type: 'string' },
      'restart-window': { type: 'string' },
      'latency-samples': { type: 'string' },
      experiment: { type: 'string', multiple: true },
      'no-cache-trim': { type: 'boolean' },
      'ready-timeout': { type: 'string' },
      chain: { type: 'string' },
      functions: { type: 'string' },
    },
  });
  const defaults = scaleDefaults();
  const xrs = Number(values.xrs ?? defaults.xrs);
  return {
    ...defaults,
    xrs,
    composed: Number(values.composed ?? defaults.composed),
    maxReconcileRate: optionalNumber(values['max-reconcile-rate']),
    realtime: values.realtime !== 'false',
    controllerCmd: values['controller-cmd'],
    controllerReadyUrl: values['controller-ready-url'],
    idleMs: values.idle === undefined ? defaults.idleMs : parseDuration(values.idle),
    restartWindowMs:
      values['restart-window'] === undefined ? defaults.restartWindowMs : parseDuration(values['restart-window']),
    latencySamples: Number(values['latency-samples'] ?? defaults.latencySamples),
    experiments: values.experiment ?? [],
    cacheTrim: values['no-cache-trim'] !== true,
    chain: Number(values.chain ?? defaults.chain),
    functions: functionsMode(values.functions ?? defaults.functions),
    readyTimeoutMs:
      values['ready-timeout'] === undefined ? readyTimeoutFor(xrs) : parseDuration(values['ready-timeout']),
    progress: (line) => process.stderr.write(`${line}\n`),
  };
}

const USAGE = `npm run bench:scale -- [--xrs 1000] [--composed 3] [--max-reconcile-rate <n>] [--realtime=false]
    [--controller-cmd "<command>"] [--controller-ready-url <url>] [--idle 2m] [--restart-window 60s]
    [--latency-samples 100] [--experiment reuse-connections] [--no-cache-trim] [--ready-timeout 50m] [--chain 3]
    [--functions builtin|grpc]
Prints one JSON object; bench/RESULTS.md explains its figures. Progress goes to stderr.
`;

await runMain(import.meta.url, USAGE, (argv) => runScale(optionsFromArgs(argv)));
