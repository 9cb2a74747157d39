// What `compositor diagnose` concludes from what it read: the most blocking cause first, then every fact a platform
// engineer asks about when a resource is not reconciling. Pure, so each cause is tested without a cluster.
import type { Condition } from '../controller/index.js';
import { OPS_GROUP, SUCCEEDED } from '../operations/index.js';

export interface LeaseFacts {
  namespace: string;
  name: string;
  holder: string;
  renewTime?: string;
  leaseDurationSeconds?: number;
}

export interface ComposedFacts {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  /** The object's Ready condition status, 'missing' when it does not exist, undefined when it has none. */
  ready?: string;
}

export interface EventFacts {
  type: string;
  reason: string;
  message: string;
  time?: string;
}

export interface Facts {
  resource: { group?: string; kind: string; name: string; namespace?: string };
  object?: {
    generation?: number;
    annotations: Record<string, string>;
    conditions: Condition[];
    effectivePollInterval?: string;
    lastHandledReconcileAt?: string;
  };
  /** Absent when no lease exists (compositor is not running, or runs without --leader-election). */
  lease?: LeaseFacts;
  /** Why the lease could not be read, when it could not: then whether a leader runs is unknown. */
  leaseError?: string;
  xrd?: { name: string; established?: Condition };
  composed: ComposedFacts[];
  /** Warning events about the resource, newest first. */
  warnings: EventFacts[];
  /** Why the Events could not be listed, when they could not. */
  warningsError?: string;
  /** The breaker's cooldown, for when the next probe is allowed. */
  circuitBreakerCooldownMs: number;
}

export interface Diagnosis {
  cause: string;
  details: string[];
}

const PAUSED = 'crossplane.io/paused';

function find(conditions: readonly Condition[], type: string): Condition | undefined {
  return conditions.find((c) => c.type === type);
}

function describeCondition(c: Condition | undefined, type: string): string {
  if (!c) return `${type}: unknown (never set)`;
  return `${type}: ${c.status}${c.reason ? ` (${c.reason})` : ''}${c.message ? `: ${c.message}` : ''}`;
}

/** Whether a leader holds the lease now, judged by its last renewal. */
function leaseLive(lease: LeaseFacts | undefined, now: Date): boolean {
  if (!lease || lease.holder === '' || lease.renewTime === undefined) return false;
  return Date.parse(lease.renewTime) + (lease.leaseDurationSeconds ?? 0) * 1000 > now.getTime();
}

/** "Leader: ..." from the leader election Lease, or what its absence means. */
export function leaderLine(lease: LeaseFacts | undefined, now: Date): string {
  if (!lease) return 'Leader: no compositor-leader-election lease (compositor not running, or --leader-election off)';
  if (leaseLive(lease, now))
    return `Leader: ${lease.holder} (lease ${lease.namespace}/${lease.name} renewed ${lease.renewTime ?? ''})`;
  return `Leader: none; lease ${lease.namespace}/${lease.name} last renewed ${lease.renewTime ?? 'never'} by ${lease.holder || 'nobody'}`;
}

/** Whether a resource is an Operation, which runs once instead of reconciling towards Ready. */
export function isOperation(group: string | undefined, kind: string): boolean {
  return group === OPS_GROUP && kind === 'Operation';
}

type ObjectFacts = NonNullable<Facts['object']>;
type Rule = (facts: Facts, object: ObjectFacts, what: string, now: Date) => string | undefined;

function conditionText(c: Condition | undefined, fallback: string): string {
  return c?.message ?? c?.reason ?? fallback;
}

/** An Operation's state from Succeeded: it ran, it failed for good, or it is running or will run again. */
function operationCause(object: ObjectFacts, what: string): string {
  const succeeded = find(object.conditions, SUCCEEDED);
  if (succeeded?.status === 'True') return `${what} succeeded: its pipeline ran to completion and does not run again`;
  if (succeeded?.status === 'False') return `${what} failed and does not run again: ${conditionText(succeeded, '')}`;
  const synced = find(object.conditions, 'Synced');
  if (synced?.status === 'False') return `${what} failed a run and will run again: ${conditionText(synced, '')}`;
  return `${what} has not finished: ${conditionText(succeeded, 'no Succeeded condition')}`;
}

function ended(object: ObjectFacts): boolean {
  const status = find(object.conditions, SUCCEEDED)?.status;
  return status === 'True' || status === 'False';
}

/**
 * The causes in order of what blocks most: an Operation that ended, nothing running, no API, paused, open circuit,
 * failing (an Operation's run), unready.
 */
const RULES: readonly Rule[] = [
  // An Operation that ended does not run again: nothing else about the cluster matters to it.
  (facts, object, what) =>
    isOperation(facts.resource.group, facts.resource.kind) && ended(object) ? operationCause(object, what) : undefined,
  (facts, object, what, now) => {
    const observed = object.conditions.some((c) => c.type === 'Synced' && c.observedGeneration === object.generation);
    if (leaseLive(facts.lease, now) || observed) return undefined;
    if (facts.leaseError !== undefined)
      return `${what}: generation ${object.generation ?? '?'} was never observed, and the leader lease cannot be read: ${facts.leaseError}`;
    return `No compositor is reconciling ${what}: no live leader lease and generation ${object.generation ?? '?'} was never observed`;
  },
  (facts) => {
    const established = facts.xrd?.established;
    if (!facts.xrd || established?.status === 'True') return undefined;
    return `XRD ${facts.xrd.name} is not established: ${describeCondition(established, 'Established')}`;
  },
  (_, object, what) =>
    object.annotations[PAUSED] === 'true' ? `${what} is paused by the ${PAUSED} annotation` : undefined,
  (facts, object, what) => {
    const responsive = find(object.conditions, 'Responsive');
    if (responsive?.status !== 'False') return undefined;
    const since = Date.parse(responsive.lastTransitionTime ?? '');
    const until = Number.isNaN(since) ? 'unknown' : new Date(since + facts.circuitBreakerCooldownMs).toISOString();
    return `The watch circuit breaker of ${what} is open until ${until}: ${conditionText(responsive, '')}`;
  },
  (facts, object, what) =>
    isOperation(facts.resource.group, facts.resource.kind) ? operationCause(object, what) : undefined,
  (_, object, what) => {
    const synced = find(object.conditions, 'Synced');
    return synced?.status === 'False' ? `${what} fails to reconcile: ${conditionText(synced, '')}` : undefined;
  },
  (_, object, what) => {
    const ready = find(object.conditions, 'Ready');
    if (ready?.status === 'True') return undefined;
    return `${what} reconciles but is not ready: ${conditionText(ready, 'no Ready condition')}`;
  },
];

function causeOf(facts: Facts, now: Date): string {
  const { object, resource } = facts;
  const what = `${resource.kind} ${resource.namespace ? `${resource.namespace}/` : ''}${resource.name}`;
  if (!object) return `${what} does not exist`;
  for (const rule of RULES) {
    const cause = rule(facts, object, what, now);
    if (cause !== undefined) return cause;
  }
  return `${what} is healthy: Synced and Ready`;
}

/** The object's own facts; an Operation is not polled, so it has its own conditions and no poll interval. */
function objectDetails(object: ObjectFacts, operation: boolean): string[] {
  const paused = `Paused: ${object.annotations[PAUSED] === 'true' ? 'yes' : 'no'}`;
  const conditions = (types: string[]): string[] =>
    types.map((type) => describeCondition(find(object.conditions, type), type));
  if (operation) return [paused, ...conditions(['Synced', SUCCEEDED, 'ValidPipeline'])];
  return [
    paused,
    ...conditions(['Synced', 'Ready', 'Responsive']),
    `Effective poll interval: ${object.effectivePollInterval ?? 'not reported yet'}`,
    `Last reconcile request handled: ${object.lastHandledReconcileAt ?? 'none'}`,
  ];
}

export function diagnose(facts: Facts, now: Date): Diagnosis {
  const operation = isOperation(facts.resource.group, facts.resource.kind);
  const details = [facts.leaseError === undefined ? leaderLine(facts.lease, now) : `Leader: ${facts.leaseError}`];
  if (facts.xrd) details.push(`XRD ${facts.xrd.name}: ${describeCondition(facts.xrd.established, 'Established')}`);
  if (facts.object) details.push(...objectDetails(facts.object, operation));
  for (const c of facts.composed) {
    const where = c.namespace ? `${c.namespace}/` : '';
    const state = c.ready === 'missing' ? 'missing' : `Ready ${c.ready ?? 'unknown'}`;
    details.push(`${operation ? 'Applied' : 'Composed'} ${c.kind} ${where}${c.name}: ${state}`);
  }
  for (const e of facts.warnings.slice(0, 5))
    details.push(`Warning ${e.reason}${e.time ? ` at ${e.time}` : ''}: ${e.message}`);
  if (facts.warningsError !== undefined) details.push(facts.warningsError);
  return { cause: causeOf(facts, now), details };
}
