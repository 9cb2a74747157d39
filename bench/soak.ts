// Soak: for a set duration, XRs are created, updated and deleted at a steady rate while a random fault of the faults
// benchmark (bench/harness/faults.ts) is injected every few minutes. After each fault the workload pauses at a
// checkpoint: the time until every XR converged is that fault's recovery, then the namespace is audited (0 missing,
// duplicated, orphaned, stale) and compositor's RSS and open file descriptors are sampled; their slopes over the run
// are reported. With --replicas 2 (and --shards N) several compositor processes run under leader election, each as
// its own API user, and kube-apiserver's audit log (writes only) shows whether two replicas of a shard ever wrote in
// the same period (bench/harness/auditLog.ts). Prints one JSON object.
// Usage: npm run bench:soak -- [--duration 60m] [--fault-every 3m] [--ops-per-second 5] [--xrs 50] [--seed 1]
//        [--faults name,name] [--replicas 2] [--shards 2]
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { ControlPlane } from '../e2e/controlplane/index.js';
import { createXrs } from './harness/api.js';
import { audit, converged, type Audit } from './harness/audit.js';
import { auditArgs, checkLeadership, readWrites, type OverlapReport } from './harness/auditLog.js';
import {
  allMetrics,
  faultCatalogue,
  PT_NAMESPACE,
  setUpFaults,
  tearDownFaults,
  type Fault,
  type FaultContext,
} from './harness/faults.js';
import { sum } from './harness/metrics.js';
import type { EtcdRestarter } from './harness/plane.js';
import { createWorkload, type WorkloadCounts } from './harness/workload.js';
import { round, sleep } from './harness/util.js';

export interface SoakOptions {
  durationMs: number;
  faultEveryMs: number;
  opsPerSecond: number;
  /** XRs the workload keeps alive on average. */
  xrs: number;
  composed: number;
  /** Fault names to draw from (all but etcd-restart when empty: after it the control plane refuses restarts). */
  faults: readonly string[];
  seed: number;
  recoveryTimeoutMs: number;
  logLevel?: string;
  /** compositor processes per shard, under leader election when above 1 (default 1). */
  replicas?: number;
  /** --shard-count (default 1). */
  shards?: number;
}

export interface Checkpoint {
  atSeconds: number;
  fault: string;
  faultSeconds: number;
  recoverySeconds: number | null;
  audit: Audit;
  clean: boolean;
  rssMiB: number | null;
  openFds: number | null;
}

export interface SoakResult {
  benchmark: 'soak';
  durationSeconds: number;
  opsPerSecond: number;
  operations: WorkloadCounts;
  checkpoints: Checkpoint[];
  final: Checkpoint;
  rssSlopeMiBPerHour: number | null;
  openFdsSlopePerHour: number | null;
  replicas: number;
  shards: number;
  /** From the API server's audit log: writes of each replica, Lease takeovers, writes outside a held Lease. */
  leadership: OverlapReport | null;
  targets: { everyCheckpointClean: boolean; allRecoveredWithin10s: boolean; neverTwoWriters: boolean | null };
  node: string;
}

/** A seeded generator (mulberry32), so a run's fault order can be replayed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Least-squares slope of `y` over `x`, null with fewer than two points. */
export function slope(points: readonly { x: number; y: number }[]): number | null {
  if (points.length < 2) return null;
  const mx = points.reduce((a, p) => a + p.x, 0) / points.length;
  const my = points.reduce((a, p) => a + p.y, 0) / points.length;
  const den = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  if (den === 0) return null;
  return points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0) / den;
}

function clean(audit: Audit): boolean {
  return (
    audit.ready === audit.xrs &&
    audit.missing === 0 &&
    audit.duplicated === 0 &&
    audit.orphaned === 0 &&
    audit.stale === 0
  );
}

/** RSS and open fds of every compositor process together. */
async function sample(ctx: FaultContext): Promise<{ rssMiB: number | null; openFds: number | null }> {
  const samples = await allMetrics(ctx);
  if (samples.length === 0) return { rssMiB: null, openFds: null };
  return {
    rssMiB: round(sum(samples, 'process_resident_memory_bytes') / 2 ** 20, 1),
    openFds: sum(samples, 'process_open_fds'),
  };
}

/** Injects one fault on a small fresh batch (as the faults benchmark does), then waits for the namespace. */
async function checkpoint(ctx: FaultContext, fault: Fault, started: number, options: SoakOptions): Promise<Checkpoint> {
  const batch = Array.from({ length: 5 }, (_, i) => `soak-${fault.name}-${Date.now().toString(36)}-${i}`);
  const api = fault.viaProbe === true ? ctx.probe : ctx.pt;
  if (!api.viaProbe) await createXrs(ctx.client, { api, namespace: PT_NAMESPACE }, batch, { value: 'v1' });
  const injected = Date.now();
  await fault.inject(ctx, batch);
  const ended = Date.now();
  const at = { fault: fault.name, faultSeconds: round((ended - injected) / 1000, 2), ended, started };
  try {
    return await settle(ctx, at, options);
  } finally {
    // Only now, as the faults benchmark does: released at once, the held sockets would reset every blackholed
    // connection, and compositor would see a reset instead of silence.
    if (fault.name === 'watch-cut-blackhole') ctx.proxy.release();
  }
}

/**
 * Audits every 250 ms until the XRs that exist have converged. The API server is the record of which XRs exist (an
 * operation cut by a fault may or may not have happened), and the count is not fixed in advance: XRs the workload
 * deleted just before may still be finishing their deletion (not Ready, Deleting) and go away meanwhile.
 */
async function waitSettled(
  ctx: FaultContext,
  timeoutMs: number,
): Promise<{ audit: Audit; at: number; converged: boolean }> {
  const deadline = Date.now() + timeoutMs;
  let last: Audit = { xrs: 0, ready: 0, composed: 0, missing: 0, duplicated: 0, orphaned: 0, stale: 0 };
  for (;;) {
    const seen = await audit(ctx.client, ctx.pt, PT_NAMESPACE).catch(() => undefined);
    if (seen) last = seen;
    if (seen && converged(seen, seen.xrs)) return { audit: seen, at: Date.now(), converged: true };
    if (Date.now() > deadline) return { audit: last, at: Date.now(), converged: false };
    await sleep(250);
  }
}

/** Waits until every XR of the namespace converged, and audits it. */
async function settle(
  ctx: FaultContext,
  at: { fault: string; faultSeconds: number; ended: number; started: number },
  options: SoakOptions,
): Promise<Checkpoint> {
  const result = await waitSettled(ctx, options.recoveryTimeoutMs);
  return {
    atSeconds: round((Date.now() - at.started) / 1000, 1),
    fault: at.fault,
    faultSeconds: at.faultSeconds,
    recoverySeconds: result.converged ? round((result.at - at.ended) / 1000, 2) : null,
    audit: result.audit,
    clean: result.converged && clean(result.audit),
    ...(await sample(ctx)),
  };
}

const REPLICA_USER = 'compositor-replica-';

function replicaUser(shard: number, replica: number): string {
  return `${REPLICA_USER}s${shard}-r${replica}`;
}

/**
 * The benchmarks' control plane (no controller manager) with kube-apiserver logging every write to an audit log,
 * and, with more than one process, a static token per process, so the log names which process wrote: the tokens are
 * added to the plane's token file and the API server restarted once to read them. `kubeconfigFor` writes each
 * process's kubeconfig (through the faults proxy, as its own user).
 */
async function auditedPlane(
  shards: number,
  replicas: number,
): Promise<{
  plane: ControlPlane;
  auditLog: string;
  kubeconfigFor: ((shard: number, replica: number, server: string) => string) | undefined;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'compositor-soak-'));
  const audit = auditArgs(dir);
  const plane = await ControlPlane.start({ controllerManager: false, apiServerArgs: audit.args });
  if (shards * replicas <= 1) return { plane, auditLog: audit.logPath, kubeconfigFor: undefined };
  const tokens = await addReplicaTokens(plane, shards, replicas);
  const kubeconfigFor = (shard: number, replica: number, server: string): string => {
    const user = replicaUser(shard, replica);
    const config = JSON.parse(readFileSync(plane.kubeconfigPath, 'utf8')) as {
      clusters: { cluster: { server: string } }[];
      users: { name: string; user: { token?: string } }[];
    };
    for (const c of config.clusters) c.cluster.server = server;
    for (const u of config.users) u.user = { token: tokens.get(user) ?? '' };
    const path = join(dir, `${user}.kubeconfig`);
    writeFileSync(path, JSON.stringify(config));
    return path;
  };
  return { plane, auditLog: audit.logPath, kubeconfigFor };
}

/** The Lease of a shard's leader election (src/manager): one for the whole process without shards. */
function leaseName(shard: number, shards: number): string {
  return shards > 1 ? `compositor-shard-${shard}` : 'compositor-leader-election';
}

/** Adds a system:masters token per process to the plane's token file; the API server reads it when it restarts. */
async function addReplicaTokens(plane: ControlPlane, shards: number, replicas: number): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  const tokenFile = join(plane.kubeconfigPath, '..', 'tokens.csv');
  for (let shard = 0; shard < shards; shard++) {
    for (let replica = 0; replica < replicas; replica++) {
      const user = replicaUser(shard, replica);
      const token = randomBytes(24).toString('hex');
      tokens.set(user, token);
      appendFileSync(tokenFile, `${token},${user},${user},"system:masters"\n`);
    }
  }
  await plane.restartApiServer();
  return tokens;
}

/** Whether replicas of one shard ever wrote in the same period, from the audit log; null without leader election. */
function leadershipReport(auditLog: string, shards: number, replicas: number): OverlapReport | null {
  if (replicas <= 1) return null;
  // CRD installation at start comes before the Lease by design (a standby installs them too), so it is left out.
  const writes = readWrites(auditLog, (user) => user.startsWith(REPLICA_USER)).filter(
    (w) => w.resource !== 'customresourcedefinitions',
  );
  return checkLeadership(writes, (user) => leaseName(Number(/-s(\d+)-r\d+$/.exec(user)?.[1] ?? '0'), shards));
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const random = seeded(options.seed);
  const catalogue = faultCatalogue().filter((f) =>
    options.faults.length === 0 ? f.name !== 'etcd-restart' : options.faults.includes(f.name),
  );
  const replicas = options.replicas ?? 1;
  const shards = options.shards ?? 1;
  const { plane, auditLog, kubeconfigFor } = await auditedPlane(shards, replicas);
  const etcd: EtcdRestarter[] = [];
  try {
    const ctx = await setUpFaults(plane, {
      composed: options.composed,
      logLevel: options.logLevel,
      replicas,
      shards,
      kubeconfigFor,
    });
    etcd.push(ctx.etcd);
    try {
      const started = Date.now();
      const workload = createWorkload(ctx.client, { api: ctx.pt, namespace: PT_NAMESPACE }, { ...options, random });
      const checkpoints: Checkpoint[] = [];
      while (Date.now() - started < options.durationMs) {
        await workload.runFor(Math.min(options.faultEveryMs, options.durationMs - (Date.now() - started)));
        if (Date.now() - started >= options.durationMs) break;
        const fault = catalogue[Math.floor(random() * catalogue.length)];
        if (fault) checkpoints.push(await checkpoint(ctx, fault, started, options));
      }
      const final = await settle(ctx, { fault: 'none', faultSeconds: 0, ended: Date.now(), started }, options);
      const points = [...checkpoints, final];
      const perHour = (key: 'rssMiB' | 'openFds'): number | null => {
        const s = slope(points.flatMap((c) => (c[key] === null ? [] : [{ x: c.atSeconds / 3600, y: c[key] }])));
        return s === null ? null : round(s, 2);
      };
      const leadership = leadershipReport(auditLog, shards, replicas);
      return {
        benchmark: 'soak',
        durationSeconds: round((Date.now() - started) / 1000, 1),
        opsPerSecond: options.opsPerSecond,
        operations: workload.counts,
        checkpoints,
        final,
        rssSlopeMiBPerHour: perHour('rssMiB'),
        openFdsSlopePerHour: perHour('openFds'),
        replicas,
        shards,
        leadership,
        targets: {
          everyCheckpointClean: points.every((c) => c.clean),
          allRecoveredWithin10s: checkpoints.every((c) => c.recoverySeconds !== null && c.recoverySeconds < 10),
          neverTwoWriters: leadership === null ? null : leadership.writesWithoutLease === 0,
        },
        node: process.version,
      };
    } finally {
      await tearDownFaults(ctx);
    }
  } finally {
    await plane.stop();
    for (const e of etcd) await e.stop();
  }
}

/** "90s", "10m", "1h" or plain seconds, in ms. */
export function durationMs(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match?.[1]) throw new Error(`cannot parse duration "${text}"`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? 's'] ?? 1000;
  return Number(match[1]) * unit;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '60m' },
      'fault-every': { type: 'string', default: '3m' },
      'ops-per-second': { type: 'string', default: '5' },
      xrs: { type: 'string', default: '50' },
      composed: { type: 'string', default: '3' },
      faults: { type: 'string', default: '' },
      seed: { type: 'string', default: '1' },
      'recovery-timeout': { type: 'string', default: '120s' },
      'log-level': { type: 'string', default: 'warn' },
      replicas: { type: 'string', default: '1' },
      shards: { type: 'string', default: '1' },
    },
  });
  const result = await runSoak({
    durationMs: durationMs(values.duration),
    faultEveryMs: durationMs(values['fault-every']),
    opsPerSecond: Number(values['ops-per-second']),
    xrs: Number(values.xrs),
    composed: Number(values.composed),
    faults: values.faults === '' ? [] : values.faults.split(','),
    seed: Number(values.seed),
    recoveryTimeoutMs: durationMs(values['recovery-timeout']),
    logLevel: values['log-level'],
    replicas: Number(values.replicas),
    shards: Number(values.shards),
  });
  process.stdout.write(JSON.stringify(result) + '\n');
}
