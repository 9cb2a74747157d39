// The faults the faults and soak benchmarks inject, and the set-up they share: compositor (one or more processes)
// reaching the API server through a TCP proxy that can cut its connections, a crashable probe function, an etcd
// that can be restarted, and two XR kinds (built-in P&T, and the probe function over gRPC).
import type { KubeClient } from '../../src/kube/index.js';
import { CONTENT_TYPE } from '../../src/kube/index.js';
import { apply } from '../../test/integration/engine.js';
import type { ControlPlane } from '../../e2e/controlplane/index.js';
import {
  controllerUid,
  installApi,
  listComposed,
  probeFunction,
  resourceNameOf,
  scaleApi,
  type ScaleApi,
} from './api.js';
import { benchClient } from './client.js';
import { ControllerProcess, reconcileRateArgs } from './controller.js';
import { CrashableFunction } from './functions.js';
import { sum, type Sample } from './metrics.js';
import { apiPort, EtcdRestarter, proxiedKubeconfig } from './plane.js';
import { TcpProxy } from './proxy.js';
import { sleep, until } from './util.js';

export interface FaultSetUpOptions {
  composed: number;
  /** compositor's --max-reconcile-rate; undefined runs it with the shipped default. */
  maxReconcileRate?: number;
  /** compositor's --log-level (warn by default). */
  logLevel?: string;
  /**
   * compositor processes per shard (default 1); above 1 they run with --leader-election and LEASE_ARGS, and the
   * compositor-sigkill fault kills the leader.
   */
  replicas?: number;
  /** --shard-count (default 1): one process group per shard, --shard-index 0..shards-1. */
  shards?: number;
  /** The kubeconfig of one process (default: the plane's, through the proxy); lets each process be its own user. */
  kubeconfigFor?: (shard: number, replica: number, proxyServer: string) => string;
}

/**
 * Leader election timings of the benchmarks' replicas, shorter than the shipped 60 s / 50 s / 10 s so that a killed
 * leader is replaced within ~20 s rather than ~70 s: lease 15 s, renew deadline 10 s, retry every 2 s.
 */
export const LEASE_ARGS = [
  '--leader-election-lease-duration=15s',
  '--leader-election-renew-deadline=10s',
  '--leader-election-retry-period=2s',
] as const;

/** One compositor process of the set-up. */
export interface Replica {
  shard: number;
  replica: number;
  process: ControllerProcess;
}

export const PT_NAMESPACE = 'bench-faults';
export const FN_NAMESPACE = 'bench-faults-fn';

export interface FaultContext {
  plane: ControlPlane;
  client: KubeClient;
  proxy: TcpProxy;
  /** The first process (shard 0, replica 0); every process is in `replicas`. */
  controller: ControllerProcess;
  replicas: readonly Replica[];
  fn: CrashableFunction;
  etcd: EtcdRestarter;
  options: FaultSetUpOptions;
  pt: ScaleApi;
  probe: ScaleApi;
}

export interface Fault {
  name: string;
  /** Composed through the probe function rather than the built-in P&T. */
  viaProbe?: boolean;
  /** Injects the fault into a converging batch and resolves once the faulty part is back. */
  inject(ctx: FaultContext, batch: readonly string[]): Promise<Record<string, number | string | null> | undefined>;
  /** Figures read once the batch converged. */
  after?(ctx: FaultContext, batch: readonly string[]): Promise<Record<string, number | string | null>>;
}

export async function apiReady(ctx: FaultContext): Promise<void> {
  await until('kube-apiserver ready', () => ctx.client.request('GET', '/readyz').then(() => true), {
    timeoutMs: 60_000,
    intervalMs: 100,
  });
}

/** The metrics of every running process, concatenated (a killed or standby process adds what it has). */
export async function allMetrics(ctx: FaultContext): Promise<Sample[]> {
  const each = await Promise.all(ctx.replicas.map((r) => r.process.metrics().catch(() => undefined)));
  return each.flatMap((samples) => samples ?? []);
}

export async function reconciles(ctx: FaultContext): Promise<number> {
  return sum(await allMetrics(ctx), 'controller_runtime_reconcile_total', { controller: ctx.pt.controller });
}

async function compositorWrites(ctx: FaultContext): Promise<number> {
  const samples = await allMetrics(ctx);
  return ['POST', 'PUT', 'PATCH', 'DELETE'].reduce(
    (total, method) => total + sum(samples, 'rest_client_requests_total', { method }),
    0,
  );
}

/**
 * The process that leads shard 0: a standby exports no controller series, so the leader is the running process
 * with a composite controller's worker gauge. The first process when none has one (yet).
 */
export async function leader(ctx: FaultContext): Promise<ControllerProcess> {
  for (const r of ctx.replicas) {
    if (r.shard !== 0 || r.process.pid === undefined) continue;
    const samples = (await r.process.metrics().catch(() => undefined)) ?? [];
    if (samples.some((s) => s.name === 'controller_runtime_max_concurrent_reconciles')) return r.process;
  }
  return ctx.controller;
}

/** The composed cm-1 of each named XR, once they all exist. */
async function fightTargets(ctx: FaultContext, batch: readonly string[]): Promise<string[]> {
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
async function conflictStorm(ctx: FaultContext, batch: readonly string[]): Promise<Record<string, number>> {
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
async function quietAfterStorm(ctx: FaultContext): Promise<Record<string, number>> {
  const drainBefore = await reconciles(ctx);
  await sleep(5_000);
  const [reconcilesBefore, writesBefore] = [await reconciles(ctx), await compositorWrites(ctx)];
  await sleep(10_000);
  return {
    drainReconciles: reconcilesBefore - drainBefore,
    quietReconciles: (await reconciles(ctx)) - reconcilesBefore,
    quietWrites: (await compositorWrites(ctx)) - writesBefore,
    breakerOpensTotal: sum(await allMetrics(ctx), 'circuit_breaker_opens_total'),
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
      const victim = await leader(ctx);
      await victim.kill();
      const started = Date.now();
      await victim.start();
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
export function retrying(what: string, work: () => Promise<void>): Promise<true> {
  return until(what, () => work().then(() => true as const), { timeoutMs: 60_000, intervalMs: 200 });
}

/** Every fault, in the order the faults benchmark runs them (etcd last). */
export function faultCatalogue(): readonly Fault[] {
  return FAULTS;
}

/** The compositor processes: `replicas` per shard, each with its shard and leader election flags. */
function replicaProcesses(plane: ControlPlane, proxy: TcpProxy, options: FaultSetUpOptions): Replica[] {
  const shards = options.shards ?? 1;
  const replicas = options.replicas ?? 1;
  const proxied = proxiedKubeconfig(plane, proxy.port);
  const processes: Replica[] = [];
  for (let shard = 0; shard < shards; shard++) {
    for (let replica = 0; replica < replicas; replica++) {
      const args = [
        ...reconcileRateArgs(options.maxReconcileRate),
        '--function-insecure',
        `--log-level=${options.logLevel ?? 'warn'}`,
        ...(shards > 1 ? [`--shard-count=${shards}`, `--shard-index=${shard}`] : []),
        ...(replicas > 1 ? ['--leader-election', ...LEASE_ARGS] : []),
      ];
      const kubeconfigPath = options.kubeconfigFor?.(shard, replica, `https://127.0.0.1:${proxy.port}`) ?? proxied;
      processes.push({ shard, replica, process: new ControllerProcess({ kubeconfigPath, args }) });
    }
  }
  return processes;
}

/** Starts the proxy, the probe function and compositor, and installs both XR kinds. */
export async function setUpFaults(plane: ControlPlane, options: FaultSetUpOptions): Promise<FaultContext> {
  const proxy = await new TcpProxy('127.0.0.1', apiPort(plane)).start();
  const fn = await CrashableFunction.start();
  const replicas = replicaProcesses(plane, proxy, options);
  const controller = replicas[0]?.process;
  if (!controller) throw new Error('no compositor process to start');
  const client = benchClient(plane.kubeConfig);
  if ((options.replicas ?? 1) > 1)
    await apply(client, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'crossplane-system' } });
  const ctx: FaultContext = {
    plane,
    client,
    proxy,
    controller,
    replicas,
    fn,
    etcd: new EtcdRestarter(plane),
    options,
    pt: scaleApi('XFault', options.composed),
    probe: scaleApi('XFaultFn', options.composed, true),
  };
  // One after another: the first installs the CRDs and (with leader election) takes the Leases.
  for (const r of replicas) await r.process.start();
  await apply(client, probeFunction(fn.endpoint));
  await installApi(client, ctx.pt, PT_NAMESPACE);
  await installApi(client, ctx.probe, FN_NAMESPACE);
  return ctx;
}

/** Each step given at most a minute, so a stuck teardown never hides the figures. */
export async function tearDownFaults(ctx: FaultContext): Promise<void> {
  const stops = ctx.replicas.map((r) => () => r.process.stop());
  for (const step of [...stops, () => ctx.fn.kill(), () => ctx.proxy.close()]) {
    await Promise.race([step(), sleep(60_000)]);
  }
}
