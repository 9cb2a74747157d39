export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/**
 * How precise a lastTransitionTime is. Crossplane writes conditions as metav1.Time, RFC 3339 in whole seconds;
 * compositor's status drafts (XRs, claims, managed resources, XRDs) and CompositionRevisions have written
 * Date.toISOString()'s milliseconds since they were first written, and keep doing so.
 */
export type TimePrecision = 'seconds' | 'milliseconds';

/** Where a condition's transition time comes from: the clock read when one changes, written at `precision`. */
export interface ConditionTime {
  now: () => Date;
  precision: TimePrecision;
}

/** `date` as a lastTransitionTime: RFC 3339 in UTC, with milliseconds or without any fraction. */
export function transitionTime(date: Date, precision: TimePrecision): string {
  const iso = date.toISOString();
  return precision === 'seconds' ? iso.replace(/\.\d+Z$/, 'Z') : iso;
}

/**
 * Sets conditions, each replacing the one of its type in place (so the list keeps its order) or appended when new.
 * A condition keeps its lastTransitionTime while its status holds, whatever its reason, message or generation, so an
 * unchanged condition compares equal and a steady-state reconcile writes nothing; a new status, or a stored
 * condition without a time, takes the clock's time. An empty message is left out, as Crossplane's omitempty does.
 *
 * @example
 * setConditions(status.conditions, [{ type: 'Ready', status: 'True', reason: 'Available' }], { now, precision: 'seconds' })
 */
export function setConditions(
  existing: readonly Condition[] | undefined,
  updates: readonly Condition[],
  time: ConditionTime,
): Condition[] {
  const out = [...(existing ?? [])];
  for (const update of updates) {
    const index = out.findIndex((c) => c.type === update.type);
    const previous = index < 0 ? undefined : out[index];
    const since = previous?.status === update.status ? previous.lastTransitionTime : undefined;
    // An empty time is as good as none.
    const condition: Condition = { ...update, lastTransitionTime: since || transitionTime(time.now(), time.precision) };
    if (condition.message === undefined || condition.message === '') delete condition.message;
    if (index < 0) out.push(condition);
    else out[index] = condition;
  }
  return out;
}

/** True when both conditions say the same thing (ignoring the transition time). */
export function sameCondition(a: Condition | undefined, b: Condition | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.type === b.type &&
    a.status === b.status &&
    a.reason === b.reason &&
    (a.message ?? '') === (b.message ?? '') &&
    a.observedGeneration === b.observedGeneration
  );
}

/** The fields of a condition in one order: the API server returns them sorted, compositor writes them its own way. */
function canonical(c: Condition): string[] {
  return [c.type, c.status, c.reason, c.message ?? '', c.lastTransitionTime ?? ''];
}

/** Whether two condition lists say the same, transition times included, whatever the order of each one's keys. */
export function sameConditions(a: readonly Condition[] | undefined, b: readonly Condition[]): boolean {
  return JSON.stringify((a ?? []).map(canonical)) === JSON.stringify(b.map(canonical));
}

/**
 * "Unready resources: a, b, c, and 2 more", as Crossplane's StableNAndSomeMore writes it: sorted so the message
 * never flaps between reconciles, the first three named so a large composition does not make a huge condition.
 */
export function unreadyMessage(names: readonly string[], shown = 3): string {
  return `Unready resources: ${stableNAndSomeMore(names, shown)}`;
}

/** "Unsynced resources: a, b, c, and 2 more": the composed resources not applied, written as unreadyMessage. */
export function unsyncedMessage(names: readonly string[], shown = 3): string {
  return `Unsynced resources: ${stableNAndSomeMore(names, shown)}`;
}

/** "a, b, c, and 2 more": crossplane-runtime's StableNAndSomeMore, sorted, exactly `shown` names read "a, b, and c". */
export function stableNAndSomeMore(names: readonly string[], shown = 3): string {
  const sorted = [...names].sort();
  if (sorted.length > shown) return `${sorted.slice(0, shown).join(', ')}, and ${sorted.length - shown} more`;
  if (sorted.length === shown && shown > 1) return `${sorted.slice(0, -1).join(', ')}, and ${sorted.at(-1) ?? ''}`;
  return sorted.join(', ');
}

/** A condition as a reconciler sets it: the draft stamps the generation and the transition time. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>;

/** Synced True: the last reconcile did everything it set out to do. */
export const RECONCILE_SUCCESS: ConditionInput = { type: 'Synced', status: 'True', reason: 'ReconcileSuccess' };

/** Synced False with what went wrong, as every reconciler reports a failed reconcile. */
export function reconcileError(message: string): ConditionInput {
  return { type: 'Synced', status: 'False', reason: 'ReconcileError', message };
}

/** Synced False while crossplane.io/paused is "true", for XRs, claims and managed resources alike. */
export const RECONCILE_PAUSED: ConditionInput = {
  type: 'Synced',
  status: 'False',
  reason: 'ReconcilePaused',
  message: 'Reconciliation (including deletion) is paused via the pause annotation',
};

/** The Normal event that goes with RECONCILE_PAUSED, emitted when a reconciler first sees the pause. */
export const RECONCILIATION_PAUSED_EVENT = {
  type: 'Normal',
  reason: 'ReconciliationPaused',
  message: 'Reconciliation is paused via the pause annotation',
} as const;
