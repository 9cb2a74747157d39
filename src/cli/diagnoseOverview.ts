// `compositor diagnose` without arguments: the first thing to run after installing or migrating, before knowing which
// resource to ask about. The XRs of every kind that are stuck (the listing of --stuck) first, then the Operations that
// failed or are stuck, then who holds the leader lease, then the command that diagnoses the oldest stuck XR.
import { leaderLine, type LeaseFacts } from './diagnosis.js';
import { formatOperations, type OperationListing } from './problemOperations.js';
import { formatStuck, type StuckListing } from './stuckXrs.js';

export interface Overview extends StuckListing {
  /** Absent when no lease exists (compositor is not running, or runs without --leader-election). */
  lease?: LeaseFacts;
  /** Absent when the API server serves no Operations (ops.crossplane.io is not installed). */
  operations?: OperationListing;
  /**
   * The sections that could not be read, each with why: the others are printed all the same, so one unreadable
   * part of a troubled cluster does not hide the rest.
   */
  failed?: { xrs?: string; operations?: string; lease?: string };
}

/** The next command to run for a stuck XR: diagnose with its type, name and namespace. */
function diagnoseCommand(stuck: StuckListing['stuck'][number]): string {
  const slash = stuck.key.indexOf('/');
  const name = stuck.key.slice(slash + 1);
  const namespace = slash < 0 ? '' : ` -n ${stuck.key.slice(0, slash)}`;
  return `compositor diagnose ${stuck.resource} ${name}${namespace}`;
}

/**
 * The overview as text: the stuck listing (its first line says whether anything is stuck), the failed or stuck
 * Operations, the leader, and what to run next.
 *
 * @example formatOverview({ stuck: [], total: 0 }, new Date()) // "no XR is stuck: ...\nLeader: ...\n"
 */
export function formatOverview(overview: Overview, now: Date): string {
  const { failed = {} } = overview;
  const lines = [failed.xrs ?? formatStuck(overview).trimEnd()];
  if (failed.operations !== undefined) lines.push(failed.operations);
  else if (overview.operations) lines.push(formatOperations(overview.operations).trimEnd());
  lines.push(failed.lease === undefined ? leaderLine(overview.lease, now) : `Leader: ${failed.lease}`);
  const oldest = overview.stuck[0];
  if (oldest !== undefined) lines.push(`Next: ${diagnoseCommand(oldest)}`);
  return `${lines.join('\n')}\n`;
}
