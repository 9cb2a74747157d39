// `compositor diagnose --stuck`: the XRs that have been not Ready or not Synced the longest, across every XR kind
// the XRDs define, with the reason each is stuck. The same rule as the compositor_composite_stuck_seconds gauge.
import { formatDuration } from '../apis/index.js';
import { errorMessage } from '../base/index.js';
import { stuckSummary, type StuckXr } from '../composite/index.js';
import type { Xr } from '../controller/index.js';
import { typeOf, type CompositeResourceDefinition } from '../definition/index.js';
import { isNotFound, type KubeClient } from '../kube/index.js';

export interface StuckListing {
  /** Stuck XRs of every kind, oldest first, at most the limit; `resource` is their type as diagnose takes it. */
  stuck: (StuckXr & { kind: string; resource: string; forSeconds: number })[];
  /** How many XRs are stuck in all, beyond the limit too. */
  total: number;
  /**
   * The XR kinds that could not be listed (their CRD gone, a conversion webhook down, no RBAC to list them), each as
   * "cannot list <resource>: <why>"; absent when every kind was listed. The others are listed all the same.
   */
  unreadable?: string[];
}

async function xrsOf(client: KubeClient, xrd: CompositeResourceDefinition): Promise<Xr[]> {
  const { apiVersion } = typeOf(xrd);
  const list = await client
    .request<{ items: Xr[] }>('GET', `/apis/${apiVersion}/${xrd.spec.names.plural}`)
    .catch((err: unknown) => {
      if (isNotFound(err)) return { items: [] };
      throw err;
    });
  return list.items;
}

export async function stuckXrs(client: KubeClient, nowMs: number, limit: number): Promise<StuckListing> {
  const xrds = await client.request<{ items: CompositeResourceDefinition[] }>(
    'GET',
    '/apis/apiextensions.crossplane.io/v1/compositeresourcedefinitions',
  );
  const all: StuckListing['stuck'] = [];
  const unreadable: string[] = [];
  for (const xrd of xrds.items) {
    const resource = `${xrd.spec.names.plural}.${xrd.spec.group}`;
    const xrs = await xrsOf(client, xrd).catch((err: unknown) => {
      unreadable.push(`cannot list ${resource}: ${errorMessage(err)}`);
      return [];
    });
    for (const entry of stuckSummary(xrs, nowMs, Number.MAX_SAFE_INTEGER).oldest) {
      const since = Number.isNaN(entry.sinceMs) ? nowMs : entry.sinceMs;
      all.push({
        ...entry,
        kind: xrd.spec.names.kind,
        resource,
        forSeconds: Math.max(0, (nowMs - since) / 1000),
      });
    }
  }
  all.sort((a, b) => b.forSeconds - a.forSeconds);
  return { stuck: all.slice(0, limit), total: all.length, ...(unreadable.length > 0 ? { unreadable } : {}) };
}

/** The first line: how many XRs are stuck, and whether some kinds could not be looked at. */
function headline(listing: StuckListing): string {
  const unreadable = listing.unreadable?.length ?? 0;
  if (listing.total > 0)
    return `${listing.total} XR${listing.total === 1 ? ' is' : 's are'} not Ready or not Synced; oldest first:`;
  if (unreadable === 0) return 'no XR is stuck: every XR is Ready and Synced (or paused)';
  return `no XR is stuck among the kinds listed; ${unreadable} kind${unreadable === 1 ? '' : 's'} could not be listed:`;
}

export function formatStuck(listing: StuckListing): string {
  const head = headline(listing);
  const lines = listing.stuck.map(
    (s) =>
      `  ${s.kind} ${s.key}: ${s.condition} ${s.reason} for ${formatDuration(Math.round(s.forSeconds) * 1000)}${s.message ? `: ${s.message}` : ''}`,
  );
  const more = listing.total > listing.stuck.length ? [`  ... and ${listing.total - listing.stuck.length} more`] : [];
  const unreadable = (listing.unreadable ?? []).map((line) => `  ${line}`);
  return `${[head, ...lines, ...more, ...unreadable].join('\n')}\n`;
}
