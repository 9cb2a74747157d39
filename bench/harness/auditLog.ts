// The API server's own record of who wrote what and when: kube-apiserver's audit log, restricted to writes by a
// policy, read back to check that replicas under leader election never wrote in the same period. Each compositor
// process authenticates as its own user (a static token per replica), so every write names its process. The Lease
// writes are the timeline of leadership: optimistic concurrency lets only the holder renew or take a Lease, so a
// successful Lease write by a user means that user held the Lease from then until the next one by someone else.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes only, with who, what and when (no bodies); reads and watches are not logged at all. */
export const WRITES_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
    verbs: ["create", "update", "patch", "delete", "deletecollection"]
  - level: None
`;

/** kube-apiserver flags that log every write to `<dir>/audit.log`, with the policy written to `<dir>`. */
export function auditArgs(dir: string): { args: string[]; logPath: string } {
  const policy = join(dir, 'audit-policy.yaml');
  const logPath = join(dir, 'audit.log');
  writeFileSync(policy, WRITES_POLICY);
  return {
    args: [
      `--audit-policy-file=${policy}`,
      `--audit-log-path=${logPath}`,
      '--audit-log-format=json',
      '--audit-log-mode=blocking',
      '--audit-log-maxsize=0',
    ],
    logPath,
  };
}

export interface AuditWrite {
  at: number;
  user: string;
  verb: string;
  resource: string;
  namespace: string | undefined;
  name: string | undefined;
  code: number;
}

interface RawAuditEvent {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
}

/** One audit line as a write, undefined for anything else (another stage, a failed write, a line cut by a kill). */
function parseWrite(line: string): AuditWrite | undefined {
  let event: RawAuditEvent;
  try {
    event = JSON.parse(line) as RawAuditEvent;
  } catch {
    return undefined;
  }
  const code = event.responseStatus?.code ?? 0;
  if (event.stage !== 'ResponseComplete' || code >= 400 || code === 0) return undefined;
  return toWrite(event, code);
}

function toWrite(event: RawAuditEvent, code: number): AuditWrite {
  const { resource = '', namespace, name } = event.objectRef ?? {};
  const at = Date.parse(event.requestReceivedTimestamp ?? '');
  return { at, user: event.user?.username ?? '', verb: event.verb ?? '', resource, namespace, name, code };
}

/** The successful writes of users for which `mine` is true, in the order the server received them. */
export function readWrites(logPath: string, mine: (user: string) => boolean): AuditWrite[] {
  const writes: AuditWrite[] = [];
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    const write = line === '' ? undefined : parseWrite(line);
    if (write && mine(write.user)) writes.push(write);
  }
  return writes.sort((a, b) => a.at - b.at);
}

export interface OverlapReport {
  /** Writes other than Lease writes, by the replicas checked. */
  writes: number;
  /** How many times the holder of a Lease changed (takeovers), over every Lease checked. */
  leaderChanges: number;
  /** Writes by a replica that did not hold its shard's Lease at that moment (should be 0). */
  writesWithoutLease: number;
  /** The first few of them, for the JSON. */
  examples: AuditWrite[];
  /** Per replica user, its writes. */
  byUser: Record<string, number>;
}

/**
 * Checks that every write of a replica fell while it held its Lease (`leaseOf(user)` names it), so two replicas of a
 * shard never wrote in the same period. The holder at time t is the user of the last successful Lease write at or
 * before t; a write before any Lease write counts as without lease.
 */
export function checkLeadership(writes: readonly AuditWrite[], leaseOf: (user: string) => string): OverlapReport {
  const holder = new Map<string, string>();
  const report: OverlapReport = { writes: 0, leaderChanges: 0, writesWithoutLease: 0, examples: [], byUser: {} };
  for (const write of writes) {
    if (write.resource === 'leases') {
      const lease = write.name ?? '';
      const previous = holder.get(lease);
      if (previous !== undefined && previous !== write.user) report.leaderChanges++;
      holder.set(lease, write.user);
      continue;
    }
    report.writes++;
    report.byUser[write.user] = (report.byUser[write.user] ?? 0) + 1;
    if (holder.get(leaseOf(write.user)) !== write.user) {
      report.writesWithoutLease++;
      if (report.examples.length < 5) report.examples.push(write);
    }
  }
  return report;
}
