// Which changes of a watched resource start an Operation, and the Operation they start, as Crossplane's
// WatchOperation does (internal/controller/ops/watchoperation/watch.go, internal/controller/ops/watched/reconciler.go).
// Pure functions: the event filter runs on every informer event, before anything is queued.
import { createHash } from 'node:crypto';
import type { RequiredResourceSelector } from '../functions/index.js';
import { operationFromTemplate, rfc3339 } from './owner.js';
import {
  SYNTHETIC_DELETED_RESOURCE_VERSION,
  WATCH_OPERATION_LABEL,
  WATCHED_ANNOTATIONS,
  WATCHED_RESOURCE_REQUIREMENT,
  type Operation,
  type OperationStep,
  type WatchedObject,
  type WatchOperation,
  type WatchSpec,
} from './types.js';

/** An informer event of a watched kind (the shape src/watch emits). */
export type WatchedEvent =
  | { type: 'add' | 'delete' | 'resync'; object: WatchedObject }
  | { type: 'update'; object: WatchedObject; oldObject: WatchedObject };

/** True when the object is one the WatchOperation selects: its namespace (if set) and every matchLabel. */
export function selects(watch: WatchSpec, object: WatchedObject): boolean {
  const { namespace, labels } = object.metadata;
  // A namespace does not filter cluster-scoped objects, as upstream.
  if (watch.namespace && namespace && namespace !== watch.namespace) return false;
  return Object.entries(watch.matchLabels ?? {}).every(([key, value]) => labels?.[key] === value);
}

/**
 * Whether an event may start an Operation. Not for a resync or an update that changed nothing (same
 * resourceVersion), nor for the echo of a write an Operation itself made (`isOwnEcho`), nor for objects the
 * WatchOperation does not select; an update counts when the object was selected before or after it, as upstream
 * maps both.
 */
export function triggers(
  watch: WatchSpec,
  event: WatchedEvent,
  isOwnEcho: (object: WatchedObject) => boolean = () => false,
): boolean {
  if (event.type === 'resync') return false;
  if (event.type === 'update') {
    if (event.oldObject.metadata.resourceVersion === event.object.metadata.resourceVersion) return false;
    if (!selects(watch, event.object) && !selects(watch, event.oldObject)) return false;
  } else if (!selects(watch, event.object)) return false;
  return event.type === 'delete' || !isOwnEcho(event.object);
}

/** What stands for a watched resource that is gone: its name, a deletion time and the synthetic resourceVersion. */
export function deletedStandIn(watch: WatchSpec, key: string, nowMs: number): WatchedObject {
  const slash = key.indexOf('/');
  const metadata: WatchedObject['metadata'] =
    slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
  metadata.deletionTimestamp = rfc3339(nowMs);
  metadata.resourceVersion = SYNTHETIC_DELETED_RESOURCE_VERSION;
  return { apiVersion: watch.apiVersion, kind: watch.kind, metadata };
}

/** Go's schema.GroupVersionKind.String(): "group/version, Kind=kind" ("/v1, Kind=ConfigMap" for the core group). */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${kind}`;
}

/**
 * The Operation's name: the WatchOperation's and the first 7 hex digits of a SHA-256 over the watched object's kind,
 * namespace, name, UID and resourceVersion (and deletion time for a stand-in), upstream's OperationName, so one
 * version of one object starts at most one Operation.
 */
export function watchedOperationName(wo: WatchOperation, watched: WatchedObject): string {
  const { namespace = '', name, uid = '', resourceVersion = '', deletionTimestamp } = watched.metadata;
  let input = `${gvkString(watched.apiVersion, watched.kind)}/${namespace}/${name}/${uid}/${resourceVersion}`;
  if (deletionTimestamp !== undefined) input += `/${rfc3339(Date.parse(deletionTimestamp))}`;
  const hash = createHash('sha256').update(input).digest('hex');
  return `${wo.metadata.name}-${hash.slice(0, 7)}`;
}

/**
 * The Operation for one change: the template with the watched resource added to every step's required resources
 * under ops.crossplane.io/watched-resource, and annotations naming it.
 */
export function operationForWatched(wo: WatchOperation, watched: WatchedObject, name: string): Operation {
  const op = operationFromTemplate(wo, name, WATCH_OPERATION_LABEL);
  const { namespace, resourceVersion = '' } = watched.metadata;
  op.spec.pipeline = withWatchedRequirement(op.spec.pipeline, watched);
  op.metadata.annotations = {
    ...op.metadata.annotations,
    [WATCHED_ANNOTATIONS.apiVersion]: watched.apiVersion,
    [WATCHED_ANNOTATIONS.kind]: watched.kind,
    [WATCHED_ANNOTATIONS.name]: watched.metadata.name,
    [WATCHED_ANNOTATIONS.resourceVersion]: resourceVersion,
    ...(namespace ? { [WATCHED_ANNOTATIONS.namespace]: namespace } : {}),
  };
  return op;
}

/** Every step with the watched resource added to its required resources under ops.crossplane.io/watched-resource. */
export function withWatchedRequirement(
  pipeline: readonly OperationStep[],
  watched: Pick<WatchedObject, 'apiVersion' | 'kind' | 'metadata'>,
): OperationStep[] {
  const { namespace } = watched.metadata;
  const selector: RequiredResourceSelector = {
    requirementName: WATCHED_RESOURCE_REQUIREMENT,
    apiVersion: watched.apiVersion,
    kind: watched.kind,
    name: watched.metadata.name,
    ...(namespace ? { namespace } : {}),
  };
  return pipeline.map((step) => ({
    ...step,
    requirements: {
      ...step.requirements,
      requiredResources: [...(step.requirements?.requiredResources ?? []), selector],
    },
  }));
}
