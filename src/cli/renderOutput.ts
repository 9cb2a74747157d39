// What `compositor render` prints, as `crossplane render` prints it: the XR (the pipeline's desired composite,
// with a Ready condition), then every desired composed resource with the metadata Crossplane would add, sorted by
// composition resource name, then -r's Results and -c's Context; compositor's own --include-events and
// --include-deleted documents come last. Timestamps are fixed so the output is stable in CI diffs.
import { childName, type ReconcileEvent } from '../composite/index.js';
import { unreadyMessage } from '../controller/index.js';
import type { JsonObject, PipelineOutput, Resource } from '../functions/index.js';
import { checkComposedNames } from './renderNames.js';
import { orderDocument } from './renderOrder.js';
import { fullXr, RENDER_TIME, withStableConditions } from './renderPrint.js';

export { RENDER_TIME };
export const COMPOSITE_LABEL = 'crossplane.io/composite';
export const RESOURCE_NAME_ANNOTATION = 'crossplane.io/composition-resource-name';
const CLAIM_LABELS = ['crossplane.io/claim-name', 'crossplane.io/claim-namespace'];

function obj(v: unknown): JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Returns object[key] as an object, creating it when absent. */
function child(object: JsonObject, key: string): JsonObject {
  const existing = object[key];
  if (existing !== null && typeof existing === 'object' && !Array.isArray(existing)) return existing;
  const created: JsonObject = {};
  object[key] = created;
  return created;
}

function readyCondition(out: PipelineOutput): JsonObject {
  const ready = out.desired.composite?.ready;
  const unready = Object.entries(out.desired.resources ?? {})
    .filter(([, r]) => r.ready !== 'READY_TRUE')
    .map(([name]) => name);
  if (ready === 'READY_FALSE' || (ready !== 'READY_TRUE' && unready.length > 0)) {
    const condition: JsonObject = {
      type: 'Ready',
      status: 'False',
      reason: 'Creating',
      lastTransitionTime: RENDER_TIME,
    };
    if (unready.length > 0 && ready !== 'READY_FALSE') condition.message = unreadyMessage(unready);
    return condition;
  }
  return { type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: RENDER_TIME };
}

/** The conditions a clean reconcile sets besides Ready, as the newer upstream render reports them. */
const RECONCILED_CONDITIONS: readonly JsonObject[] = [
  { type: 'Responsive', status: 'True', reason: 'WatchCircuitClosed', lastTransitionTime: RENDER_TIME },
  { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', lastTransitionTime: RENDER_TIME },
];

/**
 * References to the composed resources as the engine records them: apiVersion, kind and name, sorted by the string
 * apiVersion + kind + name as crank prints them (so `SecurityGroupRule` refs come before `SecurityGroup` ones).
 */
function resourceRefs(composed: readonly JsonObject[]): JsonObject[] {
  const refs = composed.map((o) => {
    const ref: JsonObject = { apiVersion: str(o.apiVersion), kind: str(o.kind) };
    const name = str(obj(o.metadata).name);
    if (name !== '') ref.name = name;
    return ref;
  });
  const key = (r: JsonObject): string => str(r.apiVersion) + str(r.kind) + str(r.name);
  return refs.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** A deep merge of JSON objects; `over` wins, arrays and scalars replace. */
function merged(base: JsonObject, over: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    const both = [b, v].every((x) => x !== null && typeof x === 'object' && !Array.isArray(x));
    out[k] = both ? merged(b as JsonObject, v as JsonObject) : v;
  }
  return out;
}

/**
 * The XR as crank prints it: its name (and namespace), the resource references at the machinery path
 * (spec.resourceRefs for legacy XRs, spec.crossplane.resourceRefs otherwise) and its status: the observed status
 * with the pipeline's desired status applied and the conditions of a reconcile. A function's writes to the XR's
 * spec or metadata are not printed: Crossplane v2 applies only the desired status.
 */
export function renderComposite(
  xr: JsonObject,
  out: PipelineOutput,
  composed: readonly JsonObject[],
  legacy = false,
): JsonObject {
  const source = obj(xr.metadata);
  const metadata: JsonObject = { name: str(source.name) };
  if (str(source.namespace) !== '') metadata.namespace = str(source.namespace);
  const refs = resourceRefs(composed);
  const spec: JsonObject = legacy ? { resourceRefs: refs } : { crossplane: { resourceRefs: refs } };
  const { conditions: _observed, ...observedStatus } = obj(xr.status);
  const status = merged(observedStatus, obj(out.desired.composite?.resource?.status));
  const functionConditions = out.conditions.map((c) => {
    const condition: JsonObject = { type: c.type, status: c.status, reason: c.reason, lastTransitionTime: RENDER_TIME };
    if (c.message !== undefined) condition.message = c.message;
    return condition;
  });
  status.conditions = [...RECONCILED_CONDITIONS, readyCondition(out), ...functionConditions];
  if (legacy) setClaimConditionTypes(status, out);
  return { apiVersion: str(xr.apiVersion), kind: str(xr.kind), metadata, spec, status };
}

/**
 * crossplane-runtime composite.Unstructured SetClaimConditionTypes, called by the reconciler for each condition a
 * function targets at CompositeAndClaim: only a legacy XR keeps them, the types it has first, new ones appended in
 * the pipeline's order, no duplicates.
 */
function setClaimConditionTypes(status: JsonObject, out: PipelineOutput): void {
  const existing = Array.isArray(status.claimConditionTypes) ? status.claimConditionTypes.map(str) : [];
  const types = new Set(existing);
  for (const c of out.conditions) if (c.target === 'CompositeAndClaim') types.add(c.type);
  if (types.size !== existing.length) status.claimConditionTypes = [...types];
}

function compositeLabel(xr: JsonObject): string {
  const metadata = obj(xr.metadata);
  return str(obj(metadata.labels)[COMPOSITE_LABEL]) || str(metadata.name);
}

/** The object of one desired composed resource with Crossplane's metadata. */
export function renderComposed(xr: JsonObject, name: string, desired: Resource, observed?: JsonObject): JsonObject {
  const rendered = structuredClone(desired.resource ?? {});
  const metadata = child(rendered, 'metadata');
  const seen = obj(observed?.metadata);
  // Functions cannot rename an existing composed resource.
  for (const key of ['name', 'namespace', 'generateName']) if (str(seen[key]) !== '') metadata[key] = str(seen[key]);
  const label = compositeLabel(xr);
  if (str(metadata.name) === '' && str(metadata.generateName) === '') metadata.generateName = `${label}-`;
  const xrMeta = obj(xr.metadata);
  // Crossplane names a new composed resource ChildName(generateName, xr uid, composition resource name).
  if (str(metadata.name) === '') metadata.name = childName(str(metadata.generateName), str(xrMeta.uid), name);
  if (str(xrMeta.namespace) !== '') metadata.namespace = str(xrMeta.namespace);
  child(metadata, 'annotations')[RESOURCE_NAME_ANNOTATION] = name;
  const labels = child(metadata, 'labels');
  labels[COMPOSITE_LABEL] = label;
  for (const key of CLAIM_LABELS) {
    const value = str(obj(xrMeta.labels)[key]);
    if (value !== '') labels[key] = value;
  }
  metadata.ownerReferences = [
    {
      apiVersion: str(xr.apiVersion),
      kind: str(xr.kind),
      name: str(xrMeta.name),
      uid: str(xrMeta.uid),
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  return rendered;
}

export interface RenderExtras {
  /** Observed composed resources by composition resource name. */
  observed: ReadonlyMap<string, JsonObject>;
  includeResults: boolean;
  includeContext: boolean;
  /** Also print the events as Event documents (compositor's own flag). */
  includeEvents?: boolean;
  /** Also print what the engine would delete as DeletedResource documents (compositor's own flag). */
  includeDeleted?: boolean;
  /** Also print the declared dependencies and the waves as an Order document (compositor's own flag). */
  includeOrder?: boolean;
  /** -x: the input XR (after --xrd defaults), which the printed XR is merged into. */
  inputXr?: JsonObject;
  /** The XR is a legacy (v1, LegacyCluster) one: machinery at spec.* rather than spec.crossplane.*. */
  legacy?: boolean;
  /** The events the reconcile recorded, in order (renderEvents.ts). */
  events?: readonly ReconcileEvent[];
}

const RENDER_API_VERSION = 'render.crossplane.io/v1beta1';

/** True when the XR controls the object (a controller reference to it). */
function controlledBy(object: JsonObject, xr: JsonObject): boolean {
  const xrMeta = obj(xr.metadata);
  const refs = obj(object.metadata).ownerReferences;
  return (Array.isArray(refs) ? refs : []).some((value) => {
    const ref = obj(value);
    const uid = str(xrMeta.uid);
    return (
      ref.controller === true &&
      str(ref.kind) === str(xr.kind) &&
      str(ref.name) === str(xrMeta.name) &&
      (uid === '' || str(ref.uid) === uid)
    );
  });
}

/** Observed resources the XR controls that the pipeline no longer desires: what the engine would delete. */
function deletedDocuments(
  xr: JsonObject,
  out: PipelineOutput,
  observed: ReadonlyMap<string, JsonObject>,
): JsonObject[] {
  const desired = out.desired.resources ?? {};
  return [...observed]
    .filter(([name, object]) => !(name in desired) && controlledBy(object, xr))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, object]) => {
      const metadata = obj(object.metadata);
      const resource: JsonObject = {
        apiVersion: str(object.apiVersion),
        kind: str(object.kind),
        name: str(metadata.name),
      };
      if (str(metadata.namespace) !== '') resource.namespace = str(metadata.namespace);
      return { apiVersion: RENDER_API_VERSION, kind: 'DeletedResource', resource };
    });
}

/**
 * -r as crank v2.3 prints it (cmd/crank/render/convert.go parseCompositeResponse): every event the reconciler
 * recorded, in order, as a Result with the event's type as its severity.
 */
export function resultDocuments(events: readonly ReconcileEvent[]): JsonObject[] {
  return events.map(({ type, reason, message }) => ({
    apiVersion: RENDER_API_VERSION,
    kind: 'Result',
    severity: type,
    reason,
    message,
  }));
}

function eventDocuments(events: readonly ReconcileEvent[]): JsonObject[] {
  return events.map(({ type, reason, message }) => ({
    apiVersion: RENDER_API_VERSION,
    kind: 'Event',
    type,
    reason,
    message,
  }));
}

/** Every document render prints, in order: crank's, then compositor's own. */
export function renderDocuments(xr: JsonObject, out: PipelineOutput, extras: RenderExtras): JsonObject[] {
  const names = Object.keys(out.desired.resources ?? {}).sort();
  const composed = names.map((name) =>
    renderComposed(xr, name, out.desired.resources?.[name] ?? {}, extras.observed.get(name)),
  );
  checkComposedNames(composed, names);
  const composite = renderComposite(xr, out, composed, extras.legacy);
  const printed = extras.inputXr === undefined ? composite : fullXr(extras.inputXr, composite);
  const docs: JsonObject[] = [printed, ...composed].map(withStableConditions);
  if (extras.includeResults) docs.push(...resultDocuments(extras.events ?? []));
  // crank captures the context in a last pipeline step; a step before it that returned none leaves nothing to print.
  if (extras.includeContext && out.context !== undefined) {
    docs.push({ apiVersion: RENDER_API_VERSION, kind: 'Context', fields: out.context });
  }
  if (extras.includeEvents === true) docs.push(...eventDocuments(extras.events ?? []));
  if (extras.includeDeleted === true) docs.push(...deletedDocuments(xr, out, extras.observed));
  if (extras.includeOrder === true) docs.push(orderDocument(out, extras.observed, RENDER_API_VERSION));
  return docs;
}
