// Faults: while N XRs (each composing M ConfigMaps) converge, inject one fault at a time, then check that
// everything converges (every XR Ready, a change made after the fault applied, exactly M composed resources per XR:
// none lost, none duplicated, none orphaned) and report the recovery time, from the end of the fault until then.
// compositor reaches the API server through a TCP proxy (bench/harness/proxy.ts) so watch connections can be cut.
// Prints one JSON object. Usage: npm run bench:faults -- [--xrs 100] [--composed 3] [--max-reconcile-rate <n>]
//        [--only name,name]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { KubeClient } from '../src/kube/index.js';
import { CONTENT_TYPE } from '../src/kube/index.js';
import { apply } from '../test/integration/engine.js';
import {
  controllerUid,
  createXrs,
  installApi,
  listComposed,
  patchXrs,
  probeFunction,
  resourceNameOf,
  scaleApi,
  type ScaleApi,
} from './harness/api.js';
import { converged, waitConverged, type Audit } from './harness/audit.js';
import { benchClient } from './harness/client.js';
import { ControllerProcess, effectiveReconcileRate, reconcileRateArgs } from './harness/controller.js';
import { CrashableFunction } from './harness/functions.js';
import { sum } from './harness/metrics.js';
import { apiPort, EtcdRestarter, proxiedKubeconfig, startPlane } from './harness/plane.js';
import { TcpProxy } from './harness/proxy.js';
import { optionalNumber, round, sleep, until } from './harness/util.js';
import type { ControlPlane } from '../e2e/controlplane/index.js';

export interface FaultOptions {
  xrs: number;
  composed: number;
  /** compositor's --max-reconcile-rate; undefined runs it with the shipped default. */
  maxReconcileRate?: number;
  /** Fault names to run (all when empty). */
  only: readonly string[];
  /** How long to wait for convergence after a fault before reporting it as not recovered. */
  recoveryTimeoutMs: number;
  /** compositor's --log-level (warn by default). */
  logLevel?: string;
}

export interface FaultFigures {
  name: string;
  /** How long the fault itself lasted (from injection until the faulty part was back). */
  faultSeconds: number;
  /** From the end of the fault until every XR converged; null when it did not within the timeout. */
  recoverySeconds: number | null;
  converged: boolean;
  audit: Audit;
  details?: Record<string, number | string | null>;
}

export interface FaultsResult {
  benchmark: 'faults';
  xrs: number;
  composed: number;
  maxReconcileRate: number;
  faults: FaultFigures[];
  final: { patchAndTransform: Audit; probeFunction: Audit };
  targets: { allRecoveredWithin30s: boolean; nothingLostDuplicatedOrOrphaned: boolean };
  log: string;
  node: string;
}

const PT_NAMESPACE = 'bench-faults';
const FN_NAMESPACE = 'bench-faults-fn';

interface Context {
  plane: ControlPlane;
  client: KubeClient;
  proxy: TcpProxy;
  controller: ControllerProcess;
  fn: CrashableFunction;
  etcd: EtcdRestarter;
  options: FaultOptions;
  pt: ScaleApi;
  probe: ScaleApi;
}

interface Fault {
  name: string;
  /** Composed through the probe function rather than the built-in P&T. */
  viaProbe?: boolean;
  /** Injects the fault into a converging batch and resolves once the faulty part is back. */
  inject(ctx: Context, batch: readonly string[]): Promise<Record<string, number | string | null> | undefined>;
  /** Figures read once the batch converged. */
  after?(ctx: Context, batch: readonly string[]): Promise<Record<string, number | string | null>>;
}

async function apiReady(ctx: Context): Promise<void> {
  await until('kube-apiserver ready', () => ctx.client.request('GET', '/readyz').then(() => true), {
    timeoutMs: 60_000,
    intervalMs: 100,
  });
}

async function reconciles(ctx: Context): Promise<number> {
  return sum((await ctx.controller.metrics()) ?? [], 'controller_runtime_reconcile_total', {
    controller: ctx.pt.controller,
  });
}

async function compositorWrites(ctx: Context): Promise<number> {
  const samples = (await ctx.controller.metrics()) ?? [];
  return ['POST', 'PUT', 'PATCH', 'DELETE'].reduce(
    (total, method) => total + sum(samples, 'rest_client_requests_total', { method }),
    0,
  );
}

/** The composed cm-1 of each named XR, once they all exist. */
async function fightTargets(ctx: Context, batch: readonly string[]): Promise<string[]> {
  return until(
    'composed ConfigMaps to fight over',
    async () => {
      const composed = await listComposed(ctx.client, PT_NAMESPACE);
      const found = composed
        .filter(
          (cm) =>
            resourceNameOf(cm) === 'cm-1' && batch.includes(cm.metadata.labels?.['crossplane.io/composite'] ?? ''),
        )
        .filter((cm) => controllerUid(cm) !== undefined)
        .map((cm) => cm.metadata.name);
      return found.length === batch.length ? found : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}

const STORM_XRS = 10;
const STORM_HZ = 5;
const STORM_MS = 10_000;

/**
 * Another field manager force-applies data.value (a field compositor owns) on cm-1 of 10 XRs, 5 times a second
 * each for 10 s, as a controller fighting over it would; compositor must take the field back every time and, once
 * the fight stops, keep it without reconciling again (no hot loop).
 */
async function conflictStorm(ctx: Context, batch: readonly string[]): Promise<Record<string, number>> {
  const targets = await fightTargets(ctx, batch.slice(0, STORM_XRS));
  const writesBefore = await compositorWrites(ctx);
  const deadline = Date.now() + STORM_MS;
  let fights = 0;
  while (Date.now() < deadline) {
    const round = Date.now();
    await Promise.all(
      targets.map((name) =>
        ctx.client.request('PATCH', `/api/v1/namespaces/${PT_NAMESPACE}/configmaps/${name}`, {
          body: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name, namespace: PT_NAMESPACE },
            data: { value: 'fighter' },
          },
          contentType: CONTENT_TYPE.apply,
          query: { fieldManager: 'bench-fighter', force: true },
        }),
      ),
    );
    fights += targets.length;
    await sleep(Math.max(0, round + 1000 / STORM_HZ - Date.now()));
  }
  return { fighterWrites: fights, compositorWritesDuringStorm: (await compositorWrites(ctx)) - writesBefore };
}

/**
 * After the storm converged: reconciles in the first 5 s (the queue draining what the storm left) and then
 * reconciles and writes in a quiet 10 s, 0 when nothing hot-loops.
 */
async function quietAfterStorm(ctx: Context): Promise<Record<string, number>> {
  const drainBefore = await reconciles(ctx);
  await sleep(5_000);
  const [reconcilesBefore, writesBefore] = [await reconciles(ctx), await compositorWrites(ctx)];
  await sleep(10_000);
  return {
    drainReconciles: reconcilesBefore - drainBefore,
    quietReconciles: (await reconciles(ctx)) - reconcilesBefore,
    quietWrites: (await compositorWrites(ctx)) - writesBefore,
    breakerOpensTotal: sum((await ctx.controller.metrics()) ?? [], 'circuit_breaker_opens_total'),
  };
}

const FAULTS: readonly Fault[] = [
  {
    name: 'function-crash',
    viaProbe: true,
    inject: async (ctx) => {
      await ctx.fn.kill();
      await sleep(2_000);
      await ctx.fn.restart();
      return undefined;
    },
  },
  {
    name: 'compositor-sigkill',
    inject: async (ctx) => {
      await ctx.controller.kill();
      const started = Date.now();
      await ctx.controller.start();
      return { restartReadySeconds: (Date.now() - started) / 1000 };
    },
  },
  { name: 'conflict-storm', inject: conflictStorm, after: quietAfterStorm },
  {
    name: 'watch-cut-close',
    inject: (ctx) => Promise.resolve({ connectionsCut: ctx.proxy.cut('close') }),
  },
  {
    name: 'watch-cut-blackhole',
    inject: (ctx) => Promise.resolve({ connectionsCut: ctx.proxy.cut('blackhole') }),
  },
  {
    name: 'apiserver-restart',
    inject: async (ctx) => {
      await ctx.plane.restartApiServer({ downMs: 3_000 });
      return undefined;
    },
  },
  {
    // Last: after an etcd restart the ControlPlane's own readiness check refuses to restart the API server.
    name: 'etcd-restart',
    inject: async (ctx) => {
      await ctx.etcd.restart(3_000);
      await apiReady(ctx);
      return undefined;
    },
  },
];

/** Retries `work` while the API server is still coming back. */
function retrying(what: string, work: () => Promise<void>): Promise<true> {
  return until(what, () => work().then(() => true as const), { timeoutMs: 60_000, intervalMs: 200 });
}

async function runFault(ctx: Context, fault: Fault, done: Map<ScaleApi, number>): Promise<FaultFigures> {
  const api = fault.viaProbe === true ? ctx.probe : ctx.pt;
  const namespace = fault.viaProbe === true ? FN_NAMESPACE : PT_NAMESPACE;
  const batch = Array.from({ length: ctx.options.xrs }, (_, i) => `${fault.name}-${i}`);
  await createXrs(ctx.client, { api, namespace }, batch, { value: 'v1' });
  done.set(api, (done.get(api) ?? 0) + batch.length);
  const injected = Date.now();
  const details = (await fault.inject(ctx, batch)) ?? {};
  const ended = Date.now();
  // A change made after the fault must be applied too: a watch that silently died would miss it.
  if (!api.viaProbe) {
    await retrying('patch after the fault', () =>
      patchXrs(ctx.client, { api, namespace }, batch, `after-${fault.name}`),
    );
  }
  const result = await waitConverged(
    ctx.client,
    { api, namespace, xrs: done.get(api) ?? 0 },
    { timeoutMs: ctx.options.recoveryTimeoutMs },
  );
  const after = result.converged && fault.after ? await fault.after(ctx, batch) : {};
  return {
    name: fault.name,
    faultSeconds: round((ended - injected) / 1000, 2),
    recoverySeconds: result.converged ? round((result.at - ended) / 1000, 2) : null,
    converged: result.converged,
    audit: result.audit,
    details: { ...details, ...after },
  };
}

async function setUp(plane: ControlPlane, options: FaultOptions): Promise<Context> {
  const proxy = await new TcpProxy('127.0.0.1', apiPort(plane)).start();
  const fn = await CrashableFunction.start();
  const controller = new ControllerProcess({
    kubeconfigPath: proxiedKubeconfig(plane, proxy.port),
    args: [
      ...reconcileRateArgs(options.maxReconcileRate),
      '--function-insecure',
      `--log-level=${options.logLevel ?? 'warn'}`,
    ],
  });
  const client = benchClient(plane.kubeConfig);
  const ctx: Context = {
    plane,
    client,
    proxy,
    controller,
    fn,
    etcd: new EtcdRestarter(plane),
    options,
    pt: scaleApi('XFault', options.composed),
    probe: scaleApi('XFaultFn', options.composed, true),
  };
  await controller.start();
  await apply(client, probeFunction(fn.endpoint));
  await installApi(client, ctx.pt, PT_NAMESPACE);
  await installApi(client, ctx.probe, FN_NAMESPACE);
  return ctx;
}

/** Each step given at most a minute, so a stuck teardown never hides the figures. */
async function tearDown(ctx: Context): Promise<void> {
  for (const step of [() => ctx.controller.stop(), () => ctx.fn.kill(), () => ctx.proxy.close()]) {
    await Promise.race([step(), sleep(60_000)]);
  }
}

export async function runFaults(options: FaultOptions): Promise<FaultsResult> {
  const plane = await startPlane();
  const etcdRestarters: EtcdRestarter[] = [];
  try {
    const ctx = await setUp(plane, options);
    etcdRestarters.push(ctx.etcd);
    try {
      const done = new Map<ScaleApi, number>();
      const faults: FaultFigures[] = [];
      for (const fault of FAULTS.filter((f) => options.only.length === 0 || options.only.includes(f.name))) {
        faults.push(await runFault(ctx, fault, done));
        if (fault.name === 'watch-cut-blackhole') ctx.proxy.release();
      }
      const final = {
        patchAndTransform: (
          await waitConverged(
            ctx.client,
            { api: ctx.pt, namespace: PT_NAMESPACE, xrs: done.get(ctx.pt) ?? 0 },
            { timeoutMs: 30_000 },
          )
        ).audit,
        probeFunction: (
          await waitConverged(
            ctx.client,
            { api: ctx.probe, namespace: FN_NAMESPACE, xrs: done.get(ctx.probe) ?? 0 },
            { timeoutMs: 30_000 },
          )
        ).audit,
      };
      return {
        benchmark: 'faults',
        xrs: options.xrs,
        composed: options.composed,
        maxReconcileRate: effectiveReconcileRate(options.maxReconcileRate),
        faults,
        final,
        targets: {
          allRecoveredWithin30s: faults.every((f) => f.recoverySeconds !== null && f.recoverySeconds <= 30),
          nothingLostDuplicatedOrOrphaned:
            converged(final.patchAndTransform, done.get(ctx.pt) ?? 0) &&
            converged(final.probeFunction, done.get(ctx.probe) ?? 0),
        },
        log: ctx.controller.log,
        node: process.version,
      };
    } finally {
      await tearDown(ctx);
    }
  } finally {
    await plane.stop();
    for (const etcd of etcdRestarters) await etcd.stop();
  }
}

export function faultNames(): string[] {
  return FAULTS.map((f) => f.name);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      xrs: { type: 'string', default: '100' },
      composed: { type: 'string', default: '3' },
      'max-reconcile-rate': { type: 'string' },
      only: { type: 'string', default: '' },
      'recovery-timeout': { type: 'string', default: '180' },
      'log-level': { type: 'string', default: 'warn' },
    },
  });
  const result = await runFaults({
    xrs: Number(values.xrs),
    composed: Number(values.composed),
    maxReconcileRate: optionalNumber(values['max-reconcile-rate']),
    only: values.only === '' ? [] : values.only.split(','),
    recoveryTimeoutMs: Number(values['recovery-timeout']) * 1000,
    logLevel: values['log-level'],
  });
  process.stdout.write(JSON.stringify(result) + '\n');
}
