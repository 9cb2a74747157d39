// Whether a namespace of XRs has converged: every XR Ready with exactly its M composed ConfigMaps (none missing,
// none duplicated), none composed that no live XR controls (orphaned), and (for P&T) every data.value current.
import type { KubeClient } from '../../src/kube/index.js';
import {
  controllerUid,
  forEachComposed,
  forEachPage,
  isReady,
  resourceNameOf,
  resourceNames,
  xrPath,
  type ScaleApi,
  type ScaleXr,
} from './api.js';

export interface Audit {
  xrs: number;
  ready: number;
  composed: number;
  /** Composed resources an XR should have and has not. */
  missing: number;
  /** Composed resources beyond one per composition resource name of an XR (or under a name it does not compose). */
  duplicated: number;
  /** Labelled composed ConfigMaps no live XR controls. */
  orphaned: number;
  /** Composed ConfigMaps whose data.value differs from their XR's spec.value (P&T only). */
  stale: number;
}

export function converged(audit: Audit, expectedXrs: number): boolean {
  return (
    audit.xrs === expectedXrs &&
    audit.ready === audit.xrs &&
    audit.missing === 0 &&
    audit.duplicated === 0 &&
    audit.orphaned === 0 &&
    audit.stale === 0
  );
}

/**
 * What the audit needs of an XR. Only these facts are kept of each listed object, so that auditing 100,000 XRs and
 * their 300,000 ConfigMaps does not hold every whole object (managedFields and all) in the benchmark's heap at once.
 */
interface XrFacts {
  uid: string;
  ready: boolean;
  value: string | undefined;
}

/** What the audit needs of a composed ConfigMap. */
interface ComposedFacts {
  owner: string;
  resourceName: string | undefined;
  value: string | undefined;
}

function auditOne(api: ScaleApi, xr: XrFacts, mine: readonly ComposedFacts[]): Omit<Audit, 'xrs' | 'ready'> {
  const expected = resourceNames(api);
  const counts = new Map<string, number>();
  for (const cm of mine) counts.set(cm.resourceName ?? '', (counts.get(cm.resourceName ?? '') ?? 0) + 1);
  let missing = 0;
  let duplicated = 0;
  for (const name of expected) {
    const count = counts.get(name) ?? 0;
    if (count === 0) missing++;
    else duplicated += count - 1;
  }
  for (const [name, count] of counts) if (!expected.includes(name)) duplicated += count;
  const stale = api.viaProbe ? 0 : mine.filter((cm) => cm.value !== xr.value).length;
  return { composed: mine.length, missing, duplicated, orphaned: 0, stale };
}

/** Audits every XR of `api` in `namespace` against every composed ConfigMap there. */
export async function audit(client: KubeClient, api: ScaleApi, namespace: string): Promise<Audit> {
  const xrs: XrFacts[] = [];
  const byOwner = new Map<string, ComposedFacts[]>();
  let composed = 0;
  await Promise.all([
    forEachPage<ScaleXr>(client, xrPath(api, namespace), (page) => {
      for (const xr of page) xrs.push({ uid: xr.metadata.uid ?? '', ready: isReady(xr), value: xr.spec?.value });
    }),
    forEachComposed(client, namespace, (page) => {
      for (const cm of page) {
        const owner = controllerUid(cm) ?? '';
        const facts = { owner, resourceName: resourceNameOf(cm), value: cm.data?.value };
        const mine = byOwner.get(owner);
        if (mine === undefined) byOwner.set(owner, [facts]);
        else mine.push(facts);
        composed++;
      }
    }),
  ]);
  const total: Audit = {
    xrs: xrs.length,
    ready: 0,
    composed,
    missing: 0,
    duplicated: 0,
    orphaned: 0,
    stale: 0,
  };
  const uids = new Set<string>();
  for (const xr of xrs) {
    uids.add(xr.uid);
    if (xr.ready) total.ready++;
    const one = auditOne(api, xr, byOwner.get(xr.uid) ?? []);
    total.missing += one.missing;
    total.duplicated += one.duplicated;
    total.stale += one.stale;
  }
  for (const [owner, mine] of byOwner) if (!uids.has(owner)) total.orphaned += mine.length;
  return total;
}

/** Audits until converged; resolves with the audit and when it first held. */
export async function waitConverged(
  client: KubeClient,
  target: { api: ScaleApi; namespace: string; xrs: number },
  options: { timeoutMs: number; intervalMs?: number },
): Promise<{ audit: Audit; at: number; converged: boolean }> {
  const deadline = Date.now() + options.timeoutMs;
  let last: Audit | undefined;
  for (;;) {
    try {
      last = await audit(client, target.api, target.namespace);
      if (converged(last, target.xrs)) return { audit: last, at: Date.now(), converged: true };
    } catch {
      // The API server may be down during a fault; try again.
    }
    if (Date.now() > deadline) {
      const fallback: Audit = { xrs: 0, ready: 0, composed: 0, missing: 0, duplicated: 0, orphaned: 0, stale: 0 };
      return { audit: last ?? fallback, at: Date.now(), converged: false };
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}
