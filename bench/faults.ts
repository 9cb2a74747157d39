// Faults: while N XRs (each composing M ConfigMaps) converge, inject one fault at a time, then check that
// everything converges (every XR Ready, a change made after the fault applied, exactly M composed resources per XR:
// none lost, none duplicated, none orphaned) and report the recovery time, from the end of the fault until then.
// compositor reaches the API server through a TCP proxy (bench/harness/proxy.ts) so watch connections can be cut.
// Prints one JSON object. Usage: npm run bench:faults -- [--xrs 100] [--composed 3] [--max-reconcile-rate <n>]
//        [--only name,name]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createXrs, patchXrs, type ScaleApi } from './harness/api.js';
import { converged, waitConverged, type Audit } from './harness/audit.js';
import { effectiveReconcileRate } from './harness/controller.js';
import {
  faultCatalogue,
  FN_NAMESPACE,
  PT_NAMESPACE,
  retrying,
  setUpFaults,
  tearDownFaults,
  type Fault,
  type FaultContext,
} from './harness/faults.js';
import { startPlane, type EtcdRestarter } from './harness/plane.js';
import { optionalNumber, round } from './harness/util.js';

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

async function runFault(
  ctx: FaultContext,
  fault: Fault,
  done: Map<ScaleApi, number>,
  options: FaultOptions,
): Promise<FaultFigures> {
  const api = fault.viaProbe === true ? ctx.probe : ctx.pt;
  const namespace = fault.viaProbe === true ? FN_NAMESPACE : PT_NAMESPACE;
  const batch = Array.from({ length: options.xrs }, (_, i) => `${fault.name}-${i}`);
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
    { timeoutMs: options.recoveryTimeoutMs },
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

export async function runFaults(options: FaultOptions): Promise<FaultsResult> {
  const plane = await startPlane();
  const etcdRestarters: EtcdRestarter[] = [];
  try {
    const ctx = await setUpFaults(plane, options);
    etcdRestarters.push(ctx.etcd);
    try {
      const done = new Map<ScaleApi, number>();
      const faults: FaultFigures[] = [];
      for (const fault of faultCatalogue().filter((f) => options.only.length === 0 || options.only.includes(f.name))) {
        faults.push(await runFault(ctx, fault, done, options));
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
      await tearDownFaults(ctx);
    }
  } finally {
    await plane.stop();
    for (const etcd of etcdRestarters) await etcd.stop();
  }
}

export function faultNames(): string[] {
  return faultCatalogue().map((f) => f.name);
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
