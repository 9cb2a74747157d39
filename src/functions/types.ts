// The function protocol in plain TypeScript: the messages of proto/run_function.proto with every
// google.protobuf.Struct already converted to a JSON object and every Duration to milliseconds. The pipeline and
// the built-in functions work on these; only codec.ts knows the wire form.

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export type Ready = 'READY_UNSPECIFIED' | 'READY_TRUE' | 'READY_FALSE';
export type Severity = 'SEVERITY_UNSPECIFIED' | 'SEVERITY_FATAL' | 'SEVERITY_WARNING' | 'SEVERITY_NORMAL';
export type Target = 'TARGET_UNSPECIFIED' | 'TARGET_COMPOSITE' | 'TARGET_COMPOSITE_AND_CLAIM';
export type ConditionStatus =
  'STATUS_CONDITION_UNSPECIFIED' | 'STATUS_CONDITION_UNKNOWN' | 'STATUS_CONDITION_TRUE' | 'STATUS_CONDITION_FALSE';
export type Capability =
  | 'CAPABILITY_UNSPECIFIED'
  | 'CAPABILITY_CAPABILITIES'
  | 'CAPABILITY_REQUIRED_RESOURCES'
  | 'CAPABILITY_CREDENTIALS'
  | 'CAPABILITY_CONDITIONS'
  | 'CAPABILITY_REQUIRED_SCHEMAS';

/** Every capability compositor supports; sent in each request's meta, as Crossplane v2.2+ does. */
export const ALL_CAPABILITIES: readonly Capability[] = [
  'CAPABILITY_CAPABILITIES',
  'CAPABILITY_REQUIRED_RESOURCES',
  'CAPABILITY_CREDENTIALS',
  'CAPABILITY_CONDITIONS',
  'CAPABILITY_REQUIRED_SCHEMAS',
];

export interface Resource {
  resource?: JsonObject;
  /** Raw bytes, as the wire carries them (not base64). */
  connectionDetails?: Record<string, Uint8Array>;
  /** Absent means READY_UNSPECIFIED. */
  ready?: Ready;
}

export interface State {
  composite?: Resource;
  resources?: Record<string, Resource>;
}

export interface Resources {
  items?: Resource[];
}

export interface Credentials {
  credentialData?: { data?: Record<string, Uint8Array> };
}

export interface Schema {
  openapiV3?: JsonObject;
}

export interface RequestMeta {
  tag?: string;
  capabilities?: Capability[];
}

export interface RunFunctionRequest {
  meta?: RequestMeta;
  observed?: State;
  desired?: State;
  input?: JsonObject;
  context?: JsonObject;
  extraResources?: Record<string, Resources>;
  credentials?: Record<string, Credentials>;
  requiredResources?: Record<string, Resources>;
  requiredSchemas?: Record<string, Schema>;
}

export interface ResourceSelector {
  apiVersion?: string;
  kind?: string;
  matchName?: string;
  matchLabels?: { labels?: Record<string, string> };
  namespace?: string;
}

export interface SchemaSelector {
  apiVersion?: string;
  kind?: string;
}

/**
 * What a Composition's pipeline step declares it needs before its first call (the step's `requirements`, Crossplane
 * v2.2's bootstrap requirements): resources by name or labels and schemas by kind, each under its requirement name.
 */
export interface StepRequirements {
  requiredResources?: RequiredResourceSelector[];
  requiredSchemas?: { requirementName: string; apiVersion: string; kind: string }[];
}

/** One of a step's required resources: by name, or by labels (in a namespace or cluster-wide). */
export interface RequiredResourceSelector {
  requirementName: string;
  apiVersion: string;
  kind: string;
  name?: string;
  matchLabels?: Record<string, string>;
  namespace?: string;
}

export interface Requirements {
  extraResources?: Record<string, ResourceSelector>;
  resources?: Record<string, ResourceSelector>;
  schemas?: Record<string, SchemaSelector>;
}

export interface Result {
  severity?: Severity;
  message?: string;
  reason?: string;
  target?: Target;
}

export interface Condition {
  type?: string;
  status?: ConditionStatus;
  reason?: string;
  message?: string;
  target?: Target;
}

export interface ResponseMeta {
  tag?: string;
  /** meta.ttl as milliseconds; absent when the function set no TTL. */
  ttlMs?: number;
}

export interface RunFunctionResponse {
  meta?: ResponseMeta;
  desired?: State;
  results?: Result[];
  context?: JsonObject;
  requirements?: Requirements;
  conditions?: Condition[];
  output?: JsonObject;
}
