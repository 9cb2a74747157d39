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
import { sum } from './metrics.js';
import { apiPort, EtcdRestarter, proxiedKubeconfig } from './plane.js';
import { TcpProxy } from './proxy.js';
import { sleep, until } from './util.js';

export interface FaultSetUpOptions {
  composed: number;
  /** compositor's --max-reconcile-rate; undefined runs it with the shipped default. */
  maxReconcileRate?: number;
  /** compositor's --log-level (warn by default). */
  logLevel?: string;
}

export const PT_NAMESPACE = 'bench-faults';
export const FN_NAMESPACE = 'bench-faults-fn';

export interface FaultContext {
  plane: ControlPlane;
  client: KubeClient;
  proxy: TcpProxy;
  controller: ControllerProcess;
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

export async function reconciles(ctx: FaultContext): Promise<number> {
  return sum((await ctx.controller.metrics()) ?? [], 'controller_runtime_reconcile_total', {
    controller: ctx.pt.controller,
  });
}

async function compositorWrites(ctx: FaultContext): Promise<number> {
  const samples = (await ctx.controller.metrics()) ?? [];
  return ['POST', 'PUT', 'PATCH', 'DELETE'].reduce(
    (total, method) => total + sum(samples, 'rest_client_requests_total', { method }),
    0,
  );
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
export function retrying(what: string, work: () => Promise<void>): Promise<true> {
  return until(what, () => work().then(() => true as const), { timeoutMs: 60_000, intervalMs: 200 });
}

/** Every fault, in the order the faults benchmark runs them (etcd last). */
export function faultCatalogue(): readonly Fault[] {
  return FAULTS;
}

/** Starts the proxy, the probe function and compositor, and installs both XR kinds. */
export async function setUpFaults(plane: ControlPlane, options: FaultSetUpOptions): Promise<FaultContext> {
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
  const ctx: FaultContext = {
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
export async function tearDownFaults(ctx: FaultContext): Promise<void> {
  for (const step of [() => ctx.controller.stop(), () => ctx.fn.kill(), () => ctx.proxy.close()]) {
    await Promise.race([step(), sleep(60_000)]);
  }
}
