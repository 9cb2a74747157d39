// The tree `compositor trace` prints: a claim, XR or composed resource and everything it references, read through an
// injected getter so that the walk is testable without an API server. Which references are followed is
// `crossplane beta trace`'s rule, plus the ops kinds' (traceOperations.ts); what each printer makes of the tree is in
// tracePrinters.ts.
import { groupOf, type ObjectRef } from '../apis/index.js';
import { errorMessage } from '../base/index.js';
import { appliedRefs, ownedOperations, type ListQuery } from './traceOperations.js';

/** An object as the API server returned it; only the fields the walk and the printers read are typed. */
export interface TracedObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    [field: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: { conditions?: TracedCondition[]; [field: string]: unknown };
  [field: string]: unknown;
}

export interface TracedCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  [field: string]: unknown;
}

export type { ObjectRef };

/** Why a referenced object could not be read. */
export interface TraceError {
  /** One line, as the API server or the client put it: `configmaps "x" not found`. */
  message: string;
  /** The API server's Status object, when the server answered with one. */
  status?: Record<string, unknown>;
}

/** One resource of the tree. A resource that could not be read keeps its reference as its object, and an error. */
export interface TraceNode {
  object: TracedObject;
  error?: TraceError;
  children: TraceNode[];
}

/** Reads one referenced object; throws when it cannot (a missing object included). */
export type TraceGetter = (ref: ObjectRef) => Promise<TracedObject>;

/** Lists objects by labels; throws when it cannot. */
export type TraceLister = (query: ListQuery) => Promise<TracedObject[]>;

export interface TraceTreeOptions {
  /** Also follow the connection Secret references of claims and legacy XRs (`--show-connection-secrets`). */
  connectionSecrets?: boolean;
  /** Turns whatever the getter threw into the node's error (default: the error's message). */
  describeError?: (err: unknown) => TraceError;
  /** Finds the Operations of a CronOperation or WatchOperation; without it they show none. */
  list?: TraceLister;
}

/** Kinds known to reference nothing, whatever their spec holds (upstream skips the same ones). */
const LEAVES = new Set([
  '/Secret',
  'apiextensions.crossplane.io/Usage',
  'apiextensions.crossplane.io/EnvironmentConfig',
]);

function isRef(value: unknown): value is ObjectRef {
  const ref = value as Partial<ObjectRef> | undefined;
  return typeof ref?.apiVersion === 'string' && typeof ref.kind === 'string' && typeof ref.name === 'string';
}

function refsAt(value: unknown): ObjectRef[] {
  return Array.isArray(value) ? value.filter(isRef) : [];
}

function withNamespace(ref: ObjectRef, namespace: string | undefined): ObjectRef {
  const { apiVersion, kind, name } = ref;
  const ns = ref.namespace ?? namespace;
  return ns === undefined || ns === '' ? { apiVersion, kind, name } : { apiVersion, kind, name, namespace: ns };
}

function secretRef(spec: Record<string, unknown>, namespace: string | undefined): ObjectRef[] {
  const ref = spec.writeConnectionSecretToRef as { name?: unknown; namespace?: unknown } | undefined;
  if (typeof ref?.name !== 'string') return [];
  const ns = typeof ref.namespace === 'string' ? ref.namespace : namespace;
  return [withNamespace({ apiVersion: 'v1', kind: 'Secret', name: ref.name }, ns)];
}

/**
 * The references a resource's children are read from: an Operation's status.appliedResourceRefs, a v2 XR's
 * spec.crossplane.resourceRefs (in the XR's namespace unless a ref names its own), a claim's spec.resourceRef to its
 * XR, a legacy XR's spec.resourceRefs. Anything else, a managed resource say, has no children.
 */
export function childRefs(object: TracedObject, options: TraceTreeOptions = {}): ObjectRef[] {
  if (LEAVES.has(`${groupOf(object.apiVersion)}/${object.kind}`)) return [];
  const applied = appliedRefs(object);
  return applied === undefined ? composedRefs(object, options) : applied.map((r) => withNamespace(r, undefined));
}

function composedRefs(object: TracedObject, options: TraceTreeOptions): ObjectRef[] {
  const spec = object.spec ?? {};
  const namespace = object.metadata.namespace;
  const crossplane = spec.crossplane as { resourceRefs?: unknown } | undefined;
  if (Array.isArray(crossplane?.resourceRefs))
    return refsAt(crossplane.resourceRefs).map((r) => withNamespace(r, namespace));
  // A namespaced object without spec.crossplane is a claim: its one child is its XR, which holds the secret refs.
  const secrets = options.connectionSecrets === true ? secretRef(spec, namespace) : [];
  if (namespace !== undefined && namespace !== '') {
    const xr = isRef(spec.resourceRef) ? [withNamespace(spec.resourceRef, undefined)] : [];
    return [...xr, ...secrets];
  }
  const composed = refsAt(spec.resourceRefs).map((r) => withNamespace(r, undefined));
  return composed.length === 0
    ? []
    : [...composed, ...(options.connectionSecrets === true ? secretRef(spec, undefined) : [])];
}

function keyOf(ref: ObjectRef): string {
  return `${groupOf(ref.apiVersion)}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}

/** What a resource that could not be read shows: its reference, as upstream keeps it. */
function placeholder(ref: ObjectRef): TracedObject {
  const metadata = ref.namespace === undefined ? { name: ref.name } : { name: ref.name, namespace: ref.namespace };
  return { apiVersion: ref.apiVersion, kind: ref.kind, metadata };
}

function defaultDescribe(err: unknown): TraceError {
  return { message: errorMessage(err) };
}

/** The Operations a CronOperation or WatchOperation created, oldest first (a CronOperation's names end in its time). */
async function operationsOf(object: TracedObject, options: TraceTreeOptions): Promise<TracedObject[]> {
  const query = ownedOperations(object);
  if (query === undefined || options.list === undefined) return [];
  const found = await options.list(query).catch((err: unknown) => {
    const message = `cannot list the Operations of ${object.kind} "${object.metadata.name}": ${errorMessage(err)}`;
    throw new Error(message, { cause: err });
  });
  const created = (o: TracedObject): string =>
    typeof o.metadata.creationTimestamp === 'string' ? o.metadata.creationTimestamp : '';
  const ordered = (a: TracedObject, b: TracedObject): number =>
    created(a).localeCompare(created(b)) || a.metadata.name.localeCompare(b.metadata.name);
  return [...found].sort(ordered);
}

async function expand(
  object: TracedObject,
  ancestors: ReadonlySet<string>,
  get: TraceGetter,
  options: TraceTreeOptions,
): Promise<TraceNode[]> {
  const describe = options.describeError ?? defaultDescribe;
  const owned = await Promise.all(
    (await operationsOf(object, options)).map(async (op): Promise<TraceNode> => {
      const key = keyOf({ ...op.metadata, apiVersion: op.apiVersion, kind: op.kind });
      return { object: op, children: await expand(op, new Set([...ancestors, key]), get, options) };
    }),
  );
  const referenced = await Promise.all(
    childRefs(object, options).map(async (ref): Promise<TraceNode> => {
      const key = keyOf(ref);
      const child = await get(ref).then(
        (found) => ({ object: found }),
        (err: unknown) => ({ object: placeholder(ref), error: describe(err) }),
      );
      // A reference back to an ancestor is shown once but not walked again: a cycle would never end.
      const children =
        'error' in child || ancestors.has(key)
          ? []
          : await expand(child.object, new Set([...ancestors, key]), get, options);
      return { ...child, children };
    }),
  );
  return [...owned, ...referenced];
}

/**
 * Reads everything the root references, depth first, siblings in parallel and in reference order. A child that
 * cannot be read becomes a node with an error and no children; only the root must exist (the caller read it).
 */
export async function buildTree(
  root: TracedObject,
  get: TraceGetter,
  options: TraceTreeOptions = {},
): Promise<TraceNode> {
  const key = keyOf({ ...root.metadata, apiVersion: root.apiVersion, kind: root.kind });
  return { object: root, children: await expand(root, new Set([key]), get, options) };
}
