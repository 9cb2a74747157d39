// The annotations a managed resource carries about its external resource, and the pure decisions made from them.
// Times are RFC 3339 with milliseconds (Date.toISOString), so two steps in the same second still order.

export const EXTERNAL_NAME_ANNOTATION = 'crossplane.io/external-name';
export const EXTERNAL_CREATE_PENDING_ANNOTATION = 'crossplane.io/external-create-pending';
export const EXTERNAL_CREATE_SUCCEEDED_ANNOTATION = 'crossplane.io/external-create-succeeded';
export const EXTERNAL_CREATE_FAILED_ANNOTATION = 'crossplane.io/external-create-failed';
/** The metadata.generation the last external reconcile saw (the name is upstream's proposal; see externalSkip). */
export const LAST_EXTERNAL_RECONCILE_VERSION_ANNOTATION = 'crossplane.io/last-external-reconcile-resource-version';
export const LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION = 'crossplane.io/last-external-reconcile-timestamp';

type Annotations = Readonly<Record<string, string>> | undefined;

/** Milliseconds since the epoch of an annotation holding an RFC 3339 time; undefined when absent or invalid. */
export function timeOf(annotations: Annotations, key: string): number | undefined {
  const value = annotations?.[key];
  if (value === undefined || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Where the create protocol stands. Before calling Create the reconciler records `pending`; after it, `succeeded`
 * or `failed`. A pending time newer than both means a reconcile stopped between Create and recording its result
 * (a crash, a lost write): Create may or may not have happened, and calling it again could leak a resource.
 */
export type CreationState =
  | { phase: 'none' }
  | { phase: 'incomplete'; pendingAt: number }
  | { phase: 'succeeded'; at: number }
  | { phase: 'failed'; at: number };

export function creationState(annotations: Annotations): CreationState {
  const pending = timeOf(annotations, EXTERNAL_CREATE_PENDING_ANNOTATION);
  const succeeded = timeOf(annotations, EXTERNAL_CREATE_SUCCEEDED_ANNOTATION);
  const failed = timeOf(annotations, EXTERNAL_CREATE_FAILED_ANNOTATION);
  const recorded = Math.max(succeeded ?? -Infinity, failed ?? -Infinity);
  if (pending !== undefined && pending > recorded) return { phase: 'incomplete', pendingAt: pending };
  if (succeeded !== undefined && succeeded === recorded) return { phase: 'succeeded', at: succeeded };
  if (failed !== undefined) return { phase: 'failed', at: failed };
  return { phase: 'none' };
}

/** What to do when Observe says the external resource does not exist (and the MR is not being deleted). */
export type AbsentAction = 'create' | 'wait-for-creation' | 'report-missing';

/**
 * Create unless the managementPolicies forbid it (then the missing resource is an error to report); but right
 * after a successful Create an eventually consistent API may not show the resource yet, so within the grace
 * period a "not found" is waited out instead of creating a second one.
 */
export function whenAbsent(
  state: CreationState,
  input: { nowMs: number; gracePeriodMs: number; mayCreate: boolean },
): AbsentAction {
  if (state.phase === 'succeeded' && input.nowMs - state.at < input.gracePeriodMs) return 'wait-for-creation';
  return input.mayCreate ? 'create' : 'report-missing';
}

export const CREATE_INCOMPLETE_MESSAGE = `cannot determine creation result - remove the ${EXTERNAL_CREATE_PENDING_ANNOTATION} annotation if it is safe to proceed`;

/** The last external reconcile as recorded on the MR: the generation it saw and when. */
export interface ExternalReconcileRecord {
  generation: number | undefined;
  atMs: number | undefined;
}

export function externalReconcileRecord(annotations: Annotations): ExternalReconcileRecord {
  const version = annotations?.[LAST_EXTERNAL_RECONCILE_VERSION_ANNOTATION];
  const generation = version !== undefined && /^\d+$/.test(version) ? Number(version) : undefined;
  return { generation, atMs: timeOf(annotations, LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION) };
}
