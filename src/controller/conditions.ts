export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/**
 * Sets a condition, keeping lastTransitionTime when the status did not change so that an unchanged condition
 * compares equal and a steady-state reconcile writes nothing.
 */
export function setCondition(existing: readonly Condition[], next: Condition, now: () => Date): Condition[] {
  const previous = existing.find((c) => c.type === next.type);
  const transitioned = previous?.status !== next.status;
  const condition: Condition = {
    ...next,
    lastTransitionTime:
      transitioned || !previous.lastTransitionTime ? now().toISOString() : previous.lastTransitionTime,
  };
  if (condition.message === undefined || condition.message === '') delete condition.message;
  // Replaced in place, so the list keeps its order and an unchanged status compares equal field by field.
  if (!previous) return [...existing, condition];
  return existing.map((c) => (c.type === next.type ? condition : c));
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

/**
 * "Unready resources: a, b, c, and 2 more", as Crossplane's StableNAndSomeMore writes it: sorted so the message
 * never flaps between reconciles, the first three named so a large composition does not make a huge condition.
 */
export function unreadyMessage(names: readonly string[], shown = 3): string {
  return `Unready resources: ${firstNAndSomeMore(names, shown)}`;
}

/** "Unsynced resources: a, b, c, and 2 more": the composed resources not applied, written as unreadyMessage. */
export function unsyncedMessage(names: readonly string[], shown = 3): string {
  return `Unsynced resources: ${firstNAndSomeMore(names, shown)}`;
}

function firstNAndSomeMore(names: readonly string[], shown: number): string {
  // crossplane-runtime resource.FirstNAndSomeMore: exactly `shown` names read "a, b, and c".
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
