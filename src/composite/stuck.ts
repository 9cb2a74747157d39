import { findCondition, isPaused, type Xr } from '../controller/index.js';

// How long XRs have been stuck: not Ready or not Synced. Pure, so the gauges computed at scrape time and
// `compositor diagnose --stuck` agree on what "stuck" and "since" mean.

export interface StuckXr {
  /** "namespace/name", or "name" for a cluster-scoped XR. */
  key: string;
  /** The first of Ready and Synced that is not True, with its reason (or "NoCondition" before the first reconcile). */
  condition: 'Ready' | 'Synced';
  reason: string;
  message: string | undefined;
  /** When that condition left True: its lastTransitionTime, or the XR's creation when it never had one. */
  sinceMs: number;
}

export interface StuckSummary {
  unready: number;
  unsynced: number;
  /** Age of the oldest stuck XR, 0 when none is. */
  oldestStuckSeconds: number;
  /** The stuck XRs, oldest first, at most `limit`. */
  oldest: StuckXr[];
}

function keyOf(xr: Xr): string {
  return xr.metadata.namespace ? `${xr.metadata.namespace}/${xr.metadata.name}` : xr.metadata.name;
}

/** NaN when the time is absent or unparseable. */
function timeOf(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/** A paused XR is Synced False by request, not stuck. */
function stuckOf(xr: Xr): StuckXr | undefined {
  if (isPaused(xr)) return undefined;
  for (const type of ['Synced', 'Ready'] as const) {
    const condition = findCondition(xr, type);
    if (condition?.status === 'True') continue;
    return {
      key: keyOf(xr),
      condition: type,
      reason: condition?.reason ?? 'NoCondition',
      message: condition?.message,
      sinceMs: timeOf(condition?.lastTransitionTime ?? xr.metadata.creationTimestamp),
    };
  }
  return undefined;
}

export function stuckSummary(xrs: Iterable<Xr>, nowMs: number, limit = 10): StuckSummary {
  let unready = 0;
  let unsynced = 0;
  const stuck: StuckXr[] = [];
  for (const xr of xrs) {
    if (findCondition(xr, 'Ready')?.status !== 'True') unready++;
    if (findCondition(xr, 'Synced')?.status !== 'True') unsynced++;
    const entry = stuckOf(xr);
    if (entry) stuck.push(entry);
  }
  // An XR without a usable time counts as stuck since now: it is reported, but never as the oldest.
  const since = (s: StuckXr): number => (Number.isNaN(s.sinceMs) ? nowMs : s.sinceMs);
  stuck.sort((a, b) => since(a) - since(b));
  const first = stuck[0];
  return {
    unready,
    unsynced,
    oldestStuckSeconds: first ? Math.max(0, (nowMs - since(first)) / 1000) : 0,
    oldest: stuck.slice(0, limit),
  };
}
