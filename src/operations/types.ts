// The ops.crossplane.io/v1alpha1 API as Crossplane v2 defines it (apis/ops/v1alpha1/*_types.go): Operation,
// CronOperation and WatchOperation, with the labels, annotations and names the controllers agree on.
import type { ObjectMeta, ObjectRef } from '../apis/index.js';
import type { Condition } from '../controller/index.js';
import type { JsonObject, PipelineStep } from '../functions/index.js';

export const OPS_GROUP = 'ops.crossplane.io';
export const OPS_API_VERSION = 'ops.crossplane.io/v1alpha1';

/** Label on each Operation a CronOperation creates: the CronOperation's name. */
export const CRON_OPERATION_LABEL = 'ops.crossplane.io/cronoperation';
/** Label on each Operation a WatchOperation creates: the WatchOperation's name. */
export const WATCH_OPERATION_LABEL = 'ops.crossplane.io/watchoperation';

/** Annotations a WatchOperation puts on each Operation: the watched resource that triggered it. */
export const WATCHED_ANNOTATIONS = {
  apiVersion: 'ops.crossplane.io/watched-resource-apiversion',
  kind: 'ops.crossplane.io/watched-resource-kind',
  name: 'ops.crossplane.io/watched-resource-name',
  namespace: 'ops.crossplane.io/watched-resource-namespace',
  resourceVersion: 'ops.crossplane.io/watched-resource-resourceversion',
} as const;

/** The required-resource name under which a WatchOperation injects the watched resource into every step. */
export const WATCHED_RESOURCE_REQUIREMENT = 'ops.crossplane.io/watched-resource';

/** The resourceVersion of the synthetic object that stands for a watched resource that was deleted. */
export const SYNTHETIC_DELETED_RESOURCE_VERSION = 'ops.crossplane.io/synthetic-deleted';

/** The finalizer a WatchOperation carries while its watch runs. */
export const WATCH_OPERATION_FINALIZER = 'watchoperation.ops.crossplane.io';

/** Crossplane's field manager prefix for what an Operation applies; the Operation's UID follows it. */
export const OPERATION_FIELD_OWNER_PREFIX = 'ops.crossplane.io/operation/';

/** How many times an Operation may fail when spec.retryLimit is unset. */
export const DEFAULT_RETRY_LIMIT = 5;
export const DEFAULT_SUCCESSFUL_HISTORY_LIMIT = 3;
export const DEFAULT_FAILED_HISTORY_LIMIT = 1;

export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';

/** spec.pipeline[] of an Operation: a Composition's step without compositor's `timeout` extension. */
export type OperationStep = Omit<PipelineStep, 'timeout'>;

export interface OperationSpec {
  mode?: 'Pipeline';
  pipeline: OperationStep[];
  retryLimit?: number;
}

export interface PipelineStepStatus {
  step: string;
  output?: JsonObject;
}

/** status.appliedResourceRefs[]: an object the Operation applied. */
export type AppliedResourceRef = ObjectRef;

export interface OperationStatus {
  conditions?: Condition[];
  failures?: number;
  pipeline?: PipelineStepStatus[];
  appliedResourceRefs?: AppliedResourceRef[];
}

export interface Operation {
  apiVersion: typeof OPS_API_VERSION;
  kind: 'Operation';
  metadata: ObjectMeta;
  spec: OperationSpec;
  status?: OperationStatus;
}

export interface OperationTemplate {
  metadata?: Pick<ObjectMeta, 'labels' | 'annotations'> & Record<string, unknown>;
  spec: OperationSpec;
}

export interface RunningOperationRef {
  name: string;
}

/** The spec fields CronOperation and WatchOperation share. */
export interface OperationOwnerSpec {
  concurrencyPolicy?: ConcurrencyPolicy;
  successfulHistoryLimit?: number;
  failedHistoryLimit?: number;
  operationTemplate: OperationTemplate;
}

export interface CronOperation {
  apiVersion: typeof OPS_API_VERSION;
  kind: 'CronOperation';
  metadata: ObjectMeta;
  spec: OperationOwnerSpec & { schedule: string; startingDeadlineSeconds?: number };
  status?: {
    conditions?: Condition[];
    runningOperationRefs?: RunningOperationRef[];
    lastScheduleTime?: string;
    lastSuccessfulTime?: string;
  };
}

export interface WatchSpec {
  apiVersion: string;
  kind: string;
  matchLabels?: Record<string, string>;
  namespace?: string;
}

export interface WatchOperation {
  apiVersion: typeof OPS_API_VERSION;
  kind: 'WatchOperation';
  metadata: ObjectMeta;
  spec: OperationOwnerSpec & { watch: WatchSpec };
  status?: {
    conditions?: Condition[];
    runningOperationRefs?: RunningOperationRef[];
    watchingResources?: number;
    lastScheduleTime?: string;
    lastSuccessfulTime?: string;
  };
}

/** Any object a WatchOperation may watch. */
export interface WatchedObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}
