// The Operations section of `compositor diagnose`'s overview: Operations that failed (Succeeded False: they will
// not run again) and Operations still not finished long after they were created, each with what its conditions say.
import { formatDuration } from '../apis/index.js';
import { errorMessage } from '../base/index.js';
import type { Condition } from '../controller/index.js';
import { isNotFound, type KubeClient } from '../kube/index.js';
import { OPS_API_VERSION, SUCCEEDED } from '../operations/index.js';

/**
 * How long an Operation may take before it counts as stuck. A reconcile has two minutes, functions included, and a
 * failed run is retried after a backoff of at most a minute, five times by default: a healthy Operation has ended
 * well within 15 minutes.
 */
export const OPERATION_STUCK_AFTER_MS = 15 * 60_000;

export interface ProblemOperation {
  name: string;
  /** failed: Succeeded False, not run again; stuck: not finished after OPERATION_STUCK_AFTER_MS. */
  state: 'failed' | 'stuck';
  /** The condition that says why: Succeeded when it failed, else Synced when False, else Succeeded. */
  condition: string;
  reason: string;
  message: string;
  /** Since the condition's last transition (failed) or the Operation's creation (stuck). */
  forSeconds: number;
}

export interface OperationListing {
  /** Most recent first, at most the limit. */
  operations: ProblemOperation[];
  /** How many in all, beyond the limit too. */
  total: number;
}

interface OperationObject {
  metadata: { name: string; creationTimestamp?: string; deletionTimestamp?: string };
  status?: { conditions?: Condition[] };
}

function secondsSince(time: string | undefined, nowMs: number): number {
  const since = Date.parse(time ?? '');
  return Number.isNaN(since) ? 0 : Math.max(0, (nowMs - since) / 1000);
}

/** The condition's words, empty where it has none. */
function said(c: Condition | undefined, type: string): Pick<ProblemOperation, 'condition' | 'reason' | 'message'> {
  return { condition: c?.type ?? type, reason: c?.reason ?? 'NeverReconciled', message: c?.message ?? '' };
}

/** Whether one Operation failed or is stuck, and what its conditions say about it; undefined when neither. */
export function problemOf(op: OperationObject, nowMs: number): ProblemOperation | undefined {
  const conditions = op.status?.conditions ?? [];
  const succeeded = conditions.find((c) => c.type === SUCCEEDED);
  if (succeeded?.status === 'True' || op.metadata.deletionTimestamp !== undefined) return undefined;
  const { name } = op.metadata;
  if (succeeded?.status === 'False') {
    const forSeconds = secondsSince(succeeded.lastTransitionTime, nowMs);
    return { name, state: 'failed', ...said(succeeded, SUCCEEDED), forSeconds };
  }
  const forSeconds = secondsSince(op.metadata.creationTimestamp, nowMs);
  if (forSeconds * 1000 < OPERATION_STUCK_AFTER_MS) return undefined;
  const synced = conditions.find((c) => c.type === 'Synced');
  return { name, state: 'stuck', ...said(synced?.status === 'False' ? synced : succeeded, SUCCEEDED), forSeconds };
}

/** The failed and stuck Operations, most recent first; undefined when the API server serves no Operations. */
export async function problemOperations(
  client: KubeClient,
  nowMs: number,
  limit: number,
): Promise<OperationListing | undefined> {
  const list = await client
    .request<{ items: OperationObject[] }>('GET', `/apis/${OPS_API_VERSION}/operations`)
    .catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw new Error(`cannot list Operations: ${errorMessage(err)}`, { cause: err });
    });
  if (list === undefined) return undefined;
  const all = list.items.flatMap((op) => problemOf(op, nowMs) ?? []);
  all.sort((a, b) => a.forSeconds - b.forSeconds || a.name.localeCompare(b.name));
  return { operations: all.slice(0, limit), total: all.length };
}

/** The section as text: one line saying how many, then one line per Operation. */
export function formatOperations(listing: OperationListing): string {
  if (listing.total === 0) return 'no Operation failed or is stuck\n';
  const head = `${listing.total} Operation${listing.total === 1 ? '' : 's'} failed or stuck; most recent first:`;
  const lines = listing.operations.map((op) => {
    const age = formatDuration(Math.round(op.forSeconds) * 1000);
    const what = op.state === 'failed' ? `failed ${age} ago` : `not finished after ${age}`;
    return `  Operation ${op.name}: ${what}: ${op.condition} ${op.reason}${op.message ? `: ${op.message}` : ''}`;
  });
  const more =
    listing.total > listing.operations.length ? [`  ... and ${listing.total - listing.operations.length} more`] : [];
  return `${[head, ...lines, ...more].join('\n')}\n`;
}
