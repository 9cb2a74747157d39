// Fairness: one noisy namespace receives a burst of XR updates while the XRs of a quiet namespace are changed, one
// every --quiet-interval; the figure is the quiet XRs' latency (spec change -> the XR's Synced condition's
// observedGeneration reaches the new generation) with --fair-queue=true and with --fair-queue=false (one FIFO queue,
// as Crossplane).
// Each mode runs on a fresh local control plane against compositor started as a separate process; prints one JSON
// object. kro#198: one noisy tenant starves the rest.
// The defaults (300 noisy XRs, 1,000 updates) run compositor with its shipped --max-reconcile-rate; the fairness
// target's 5,000 updates (bench/RESULTS.md): --updates 5000 (the backlog is the same size, as updates to a queued
// XR coalesce; it lasts longer).
// The figures in bench/RESULTS.md were taken at --max-reconcile-rate 10 (the default then), where a backlog forms
// sooner and lasts longer: pass it to compare with them.
// Usage: npm run bench:fairness -- [--noisy-xrs 300] [--updates 1000] [--max-reconcile-rate <n>]
//        [--quiet-interval 500ms] [--modes fair,fifo]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { parseDuration } from '../src/apis/index.js';
import { CONTENT_TYPE, type KubeClient } from '../src/kube/index.js';
import {
  createXrs,
  forEachBounded,
  installApi,
  isReady,
  listAll,
  scaleApi,
  xrPath,
  type ScaleApi,
  type ScaleXr,
} from './harness/api.js';
import { ensureNamespace } from '../test/integration/engine.js';
import { benchClient } from './harness/client.js';
import { ControllerProcess, effectiveReconcileRate, reconcileRateArgs } from './harness/controller.js';
import { sum } from './harness/metrics.js';
import { startPlane } from './harness/plane.js';
import { latencyFigures, optionalNumber, round, sleep, until, type LatencyFigures } from './harness/util.js';

export type Mode = 'fair' | 'fifo';

export interface FairnessOptions {
  noisyXrs: number;
  /** Spec updates sent to the noisy namespace's XRs, round-robin, as fast as 16 clients can. */
  updates: number;
  /** compositor's --max-reconcile-rate; undefined runs it with the shipped default. */
  maxReconcileRate?: number;
  quietIntervalMs: number;
  modes: readonly Mode[];
  /** A quiet change not seen in status after this long counts as timed out. */
  sampleTimeoutMs: number;
}

/** The latency figures of bench/harness/util.ts, under the name this benchmark's JSON types use. */
export type Latency = LatencyFigures;

export interface ModeResult {
  fairQueue: boolean;
  /** Plane and compositor start, API install, XRs created and Ready. */
  setupSeconds: number;
  /** The quiet XRs' latency with nothing else going on. */
  atRest: Latency;
  /**
   * The quiet XRs' latency from the start of the burst until the noisy backlog has drained. Timed from before the
   * PATCH that makes the change, so it includes that request's own latency.
   */
  duringBurst: Latency;
  burstSendSeconds: number;
  /** From the start of the burst until every noisy XR's status shows its last update. */
  noisyDrainSeconds: number | null;
  noisyReconciles: number | null;
}

export interface FairnessResult {
  benchmark: 'fairness';
  noisyXrs: number;
  updates: number;
  maxReconcileRate: number;
  quietIntervalMs: number;
  runs: Partial<Record<Mode, ModeResult>>;
  /** fifo p99 / fair p99 during the burst. */
  p99Speedup: number | null;
  node: string;
}

const NOISY = 'bench-noisy';
const QUIET = 'bench-quiet';
/**
 * The quiet namespace's XRs, changed in turn. Several, so that each is changed at most every 2.5 s with the default
 * interval: an update costs 2 circuit-breaker tokens and the bucket refills 1/s, so one XR changed every 500 ms
 * would trip its own breaker and the figure would measure the breaker, not the queue.
 */
const QUIET_XRS = Array.from({ length: 5 }, (_, i) => `quiet-${i}`);
const REST_SAMPLES = 10;
const POLL_MS = 20;
const DRAIN_TIMEOUT_MS = 180_000;

export function fairnessDefaults(): FairnessOptions {
  return {
    noisyXrs: 300,
    updates: 1_000,
    quietIntervalMs: 500,
    modes: ['fair', 'fifo'],
    sampleTimeoutMs: 120_000,
  };
}

/** The generation the XR's status has caught up with: its Synced condition's observedGeneration. */
function observedGeneration(xr: ScaleXr): number {
  return xr.status?.conditions?.find((c) => c.type === 'Synced')?.observedGeneration ?? 0;
}

function isCaughtUp(xr: ScaleXr): boolean {
  return observedGeneration(xr) >= (xr.metadata.generation ?? 1);
}

async function setValue(client: KubeClient, api: ScaleApi, target: { namespace: string; name: string }, value: string) {
  return client.request<ScaleXr>('PATCH', xrPath(api, target.namespace, target.name), {
    body: { spec: { value } },
    contentType: CONTENT_TYPE.mergePatch,
  });
}

interface PendingChange {
  name: string;
  generation: number;
  startedAt: number;
  settle: (ms: number | undefined) => void;
}

/**
 * Changes the quiet XRs in turn and times each change until its XR's status shows that generation. Changes may
 * overlap: one poller lists the quiet namespace every 20 ms and settles every pending change whose generation its
 * XR's status has reached.
 */
class QuietProbe {
  private readonly pending: PendingChange[] = [];
  private polling = false;
  private changes = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly api: ScaleApi,
    private readonly timeoutMs: number,
  ) {}

  /** One change; resolves with its latency in ms, or undefined when it timed out. */
  async change(): Promise<number | undefined> {
    const startedAt = performance.now();
    const n = this.changes++;
    const name = QUIET_XRS[n % QUIET_XRS.length] ?? '';
    const xr = await setValue(this.client, this.api, { namespace: QUIET, name }, `q-${n}`);
    const done = new Promise<number | undefined>((settle) => {
      this.pending.push({ name, generation: xr.metadata.generation ?? 0, startedAt, settle });
    });
    this.poll();
    return done;
  }

  private poll(): void {
    if (this.polling) return;
    this.polling = true;
    void this.loop().finally(() => {
      this.polling = false;
    });
  }

  private async loop(): Promise<void> {
    while (this.pending.length > 0) {
      const xrs = await listAll<ScaleXr>(this.client, xrPath(this.api, QUIET)).catch(() => []);
      const now = performance.now();
      const observed = new Map(xrs.map((xr) => [xr.metadata.name, observedGeneration(xr)]));
      for (const change of [...this.pending]) {
        const seen = observed.get(change.name) ?? 0;
        const late = now - change.startedAt > this.timeoutMs;
        if (change.generation > seen && !late) continue;
        this.pending.splice(this.pending.indexOf(change), 1);
        change.settle(late && change.generation > seen ? undefined : now - change.startedAt);
      }
      await sleep(POLL_MS);
    }
  }
}

async function waitAllReady(client: KubeClient, api: ScaleApi, options: FairnessOptions): Promise<void> {
  await until(
    `${options.noisyXrs} noisy XRs and the quiet XRs Ready`,
    async () => {
      const noisy = await listAll<ScaleXr>(client, xrPath(api, NOISY));
      const quiet = await listAll<ScaleXr>(client, xrPath(api, QUIET));
      const all = [...noisy, ...quiet];
      return all.length === options.noisyXrs + QUIET_XRS.length && all.every(isReady) ? true : undefined;
    },
    { timeoutMs: 600_000, intervalMs: 1_000 },
  );
}

/** Sends the burst: update i goes to noisy XR i mod N, 16 requests in flight. */
async function burst(client: KubeClient, api: ScaleApi, options: FairnessOptions): Promise<number> {
  const started = performance.now();
  const updates = Array.from({ length: options.updates }, (_, i) => i);
  await forEachBounded(updates, 16, async (i) => {
    await setValue(client, api, { namespace: NOISY, name: `noisy-${i % options.noisyXrs}` }, `burst-${i}`);
  });
  return (performance.now() - started) / 1000;
}

/** Seconds from `startedAt` until every noisy XR's status shows its latest generation; null on timeout. */
async function drained(client: KubeClient, api: ScaleApi, startedAt: number): Promise<number | null> {
  return until(
    'the noisy backlog to drain',
    async () => {
      const noisy = await listAll<ScaleXr>(client, xrPath(api, NOISY));
      return noisy.every(isCaughtUp) ? (performance.now() - startedAt) / 1000 : undefined;
    },
    { timeoutMs: DRAIN_TIMEOUT_MS, intervalMs: 500 },
  ).catch(() => null);
}

async function duringBurst(
  client: KubeClient,
  api: ScaleApi,
  options: FairnessOptions,
): Promise<{ latency: Latency; sendSeconds: number; drainSeconds: number | null }> {
  const probe = new QuietProbe(client, api, options.sampleTimeoutMs);
  const samples: Promise<number | undefined>[] = [];
  const stop = new AbortController();
  const ticker = (async (): Promise<void> => {
    while (!stop.signal.aborted) {
      samples.push(probe.change());
      await sleep(options.quietIntervalMs);
    }
  })();
  const startedAt = performance.now();
  const sendSeconds = await burst(client, api, options);
  const drainSeconds = await drained(client, api, startedAt);
  stop.abort();
  await ticker;
  return { latency: latencyFigures(await Promise.all(samples)), sendSeconds, drainSeconds };
}

async function atRest(client: KubeClient, api: ScaleApi, options: FairnessOptions): Promise<Latency> {
  const probe = new QuietProbe(client, api, options.sampleTimeoutMs);
  const samples: (number | undefined)[] = [];
  for (let i = 0; i < REST_SAMPLES; i++) {
    samples.push(await probe.change());
    await sleep(100);
  }
  return latencyFigures(samples);
}

function reconcilesOf(samples: Awaited<ReturnType<ControllerProcess['metrics']>>, api: ScaleApi): number {
  return samples ? sum(samples, 'controller_runtime_reconcile_total', { controller: api.controller }) : 0;
}

export async function runMode(options: FairnessOptions, mode: Mode): Promise<ModeResult> {
  const started = performance.now();
  const plane = await startPlane();
  const controller = new ControllerProcess({
    kubeconfigPath: plane.kubeconfigPath,
    args: [...reconcileRateArgs(options.maxReconcileRate), `--fair-queue=${mode === 'fair'}`, '--log-level=warn'],
  });
  try {
    const client = benchClient(plane.kubeConfig);
    const api = scaleApi('XFair', 1);
    await controller.start();
    await installApi(client, api, NOISY);
    await ensureNamespace(client, QUIET);
    const noisy = Array.from({ length: options.noisyXrs }, (_, i) => `noisy-${i}`);
    await createXrs(client, { api, namespace: NOISY }, noisy, { value: 'v0' });
    await createXrs(client, { api, namespace: QUIET }, QUIET_XRS, { value: 'v0' });
    await waitAllReady(client, api, options);
    const setupSeconds = (performance.now() - started) / 1000;
    const rest = await atRest(client, api, options);
    const before = reconcilesOf(await controller.metrics(), api);
    const run = await duringBurst(client, api, options);
    const after = reconcilesOf(await controller.metrics(), api);
    return {
      fairQueue: mode === 'fair',
      setupSeconds: round(setupSeconds, 1),
      atRest: rest,
      duringBurst: run.latency,
      burstSendSeconds: round(run.sendSeconds, 2),
      noisyDrainSeconds: run.drainSeconds === null ? null : round(run.drainSeconds, 2),
      // The quiet XR's own reconciles are in this count too: a few dozen.
      noisyReconciles: controller.isCompositor ? after - before : null,
    };
  } finally {
    await controller.stop();
    await plane.stop();
  }
}

export async function runFairness(options: FairnessOptions): Promise<FairnessResult> {
  const runs: Partial<Record<Mode, ModeResult>> = {};
  for (const mode of options.modes) runs[mode] = await runMode(options, mode);
  const fair = runs.fair?.duringBurst.p99Ms;
  const fifo = runs.fifo?.duringBurst.p99Ms;
  return {
    benchmark: 'fairness',
    noisyXrs: options.noisyXrs,
    updates: options.updates,
    maxReconcileRate: effectiveReconcileRate(options.maxReconcileRate),
    quietIntervalMs: options.quietIntervalMs,
    runs,
    p99Speedup: fair && fifo ? round(fifo / fair, 1) : null,
    node: process.version,
  };
}

function optionsFromArgs(argv: readonly string[]): FairnessOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'noisy-xrs': { type: 'string' },
      updates: { type: 'string' },
      'max-reconcile-rate': { type: 'string' },
      'quiet-interval': { type: 'string' },
      modes: { type: 'string' },
    },
  });
  const defaults = fairnessDefaults();
  const modes = values.modes?.split(',').filter((m): m is Mode => m === 'fair' || m === 'fifo');
  return {
    ...defaults,
    noisyXrs: Number(values['noisy-xrs'] ?? defaults.noisyXrs),
    updates: Number(values.updates ?? defaults.updates),
    maxReconcileRate: optionalNumber(values['max-reconcile-rate']),
    quietIntervalMs:
      values['quiet-interval'] === undefined ? defaults.quietIntervalMs : parseDuration(values['quiet-interval']),
    modes: modes ?? defaults.modes,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runFairness(optionsFromArgs(process.argv.slice(2)));
  process.stdout.write(JSON.stringify(result) + '\n');
}
