// What `compositor trace` follows from the ops.crossplane.io kinds, which reference their children unlike XRs do: an
// Operation lists what it applied in status.appliedResourceRefs; a CronOperation or WatchOperation references none
// of its Operations for good (runningOperationRefs drops them once they end), so they are found by the label the
// controllers put on each Operation they create.
import { groupOf, type ObjectRef } from '../apis/index.js';
import {
  CRON_OPERATION_LABEL,
  OPS_API_VERSION,
  OPS_GROUP,
  SCHEDULING,
  SUCCEEDED,
  WATCH_OPERATION_LABEL,
  WATCHING,
} from '../operations/index.js';

/** A list of objects of one kind, cluster-wide, selected by labels. */
export interface ListQuery {
  apiVersion: string;
  kind: string;
  labelSelector: string;
}

/** The object fields read here; TracedObject satisfies it. */
interface OpsObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  status?: Record<string, unknown>;
}

function opsKind(object: OpsObject): string | undefined {
  return groupOf(object.apiVersion) === OPS_GROUP ? object.kind : undefined;
}

/**
 * The condition in the READY column: what says an object did its job. An Operation has no Ready but Succeeded, a
 * CronOperation Scheduling and a WatchOperation Watching; every other kind Ready.
 */
export function readyConditionType(object: OpsObject): string {
  const kind = opsKind(object);
  if (kind === 'Operation') return SUCCEEDED;
  if (kind === 'CronOperation') return SCHEDULING;
  if (kind === 'WatchOperation') return WATCHING;
  return 'Ready';
}

function isRef(value: unknown): value is ObjectRef {
  const ref = value as Partial<ObjectRef> | undefined;
  return typeof ref?.apiVersion === 'string' && typeof ref.kind === 'string' && typeof ref.name === 'string';
}

/** An Operation's status.appliedResourceRefs, as written (namespaced ones carry their namespace); else undefined. */
export function appliedRefs(object: OpsObject): ObjectRef[] | undefined {
  if (opsKind(object) !== 'Operation') return undefined;
  const refs = object.status?.appliedResourceRefs;
  return Array.isArray(refs) ? refs.filter(isRef) : [];
}

/** The Operations a CronOperation or WatchOperation created, by the label naming it; else undefined. */
export function ownedOperations(object: OpsObject): ListQuery | undefined {
  const kind = opsKind(object);
  const label =
    kind === 'CronOperation' ? CRON_OPERATION_LABEL : kind === 'WatchOperation' ? WATCH_OPERATION_LABEL : undefined;
  if (label === undefined) return undefined;
  return { apiVersion: OPS_API_VERSION, kind: 'Operation', labelSelector: `${label}=${object.metadata.name}` };
}
