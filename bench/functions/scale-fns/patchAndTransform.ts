// A stand-in for function-patch-and-transform, for bench:scale --functions grpc: it answers bench:scale's
// Composition step (bench/harness/api.ts) as the real function does, and interprets only the subset of the
// `Resources` input that step uses:
// - resources with a name and a base template (no patchSets, environment or connection details);
// - patches FromCompositeFieldPath (observed XR -> composed) and ToCompositeFieldPath (observed composed -> desired
//   XR) between dotted field paths such as spec.value (no [index], no transforms, no policy): a path that is not set
//   is skipped, as an optional path is upstream, and the value replaces what is there;
// - readinessChecks of type None (Ready as soon as the composed resource exists), or none (its Ready condition True).
// Anything else ends the call with a FATAL result naming it, rather than composing something the real function would
// not. Like the real function, the desired XR carries the observed XR's apiVersion and kind, an existing composed
// resource keeps its observed name and namespace, and the context gains the (empty) Composition environment.
import {
  fatal,
  Ready,
  type ComposeFunction,
  type Resource,
  type RunFunctionRequest,
  type State,
} from '@crossplane-org/function-sdk-typescript';

type JsonObject = Record<string, unknown>;

interface Patch {
  type?: string;
  fromFieldPath?: string;
  toFieldPath?: string;
}

interface Template {
  name: string;
  base: JsonObject;
  patches: Patch[];
  /** True with readinessChecks [{type: None}], false with none (the Ready condition decides). */
  readyWhenObserved: boolean;
}

/** The context key of the Composition environment (function-sdk-go's context.KeyEnvironment). */
const ENVIRONMENT_KEY = 'apiextensions.crossplane.io/environment';
const PATCH_TYPES = new Set(['FromCompositeFieldPath', 'ToCompositeFieldPath']);
const PATCH_KEYS = new Set(['type', 'fromFieldPath', 'toFieldPath']);
const TEMPLATE_KEYS = new Set(['name', 'base', 'patches', 'readinessChecks']);
const INPUT_KEYS = new Set(['apiVersion', 'kind', 'resources']);
const DOTTED_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

class Unsupported extends Error {}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function only(object: JsonObject, keys: ReadonlySet<string>, where: string): void {
  const extra = Object.keys(object).filter((k) => !keys.has(k));
  if (extra.length > 0) throw new Unsupported(`${where}: ${extra.sort().join(', ')}`);
}

function patchOf(p: unknown, where: string): Patch {
  if (!isObject(p)) throw new Unsupported(`${where}: not an object`);
  only(p, PATCH_KEYS, where);
  const { type, fromFieldPath, toFieldPath } = p as Patch;
  if (!PATCH_TYPES.has(type ?? '')) throw new Unsupported(`${where}: type ${JSON.stringify(type)}`);
  for (const path of [fromFieldPath, toFieldPath]) {
    if (!DOTTED_PATH.test(path ?? '')) throw new Unsupported(`${where}: field path ${JSON.stringify(path)}`);
  }
  return { type, fromFieldPath, toFieldPath };
}

function readyWhenObserved(checks: unknown, where: string): boolean {
  if (checks === undefined) return false;
  const none = Array.isArray(checks) && checks.length > 0 && checks.every((c) => isObject(c) && c.type === 'None');
  if (!none) throw new Unsupported(`${where}.readinessChecks: other than [{type: None}]`);
  return true;
}

function templateOf(r: unknown, i: number): Template {
  const where = `resources[${i}]`;
  if (!isObject(r)) throw new Unsupported(`${where}: not an object`);
  only(r, TEMPLATE_KEYS, where);
  if (typeof r.name !== 'string' || r.name === '') throw new Unsupported(`${where}: no name`);
  if (!isObject(r.base)) throw new Unsupported(`${where}: no base template`);
  const patches = Array.isArray(r.patches) ? r.patches : [];
  return {
    name: r.name,
    base: r.base,
    patches: patches.map((p, j) => patchOf(p, `${where}.patches[${j}]`)),
    readyWhenObserved: readyWhenObserved(r.readinessChecks, where),
  };
}

/** The input's templates; Unsupported names the first thing the stand-in does not interpret. */
function templatesOf(input: unknown): Template[] {
  if (!isObject(input) || input.kind !== 'Resources') throw new Unsupported('input: not of kind Resources');
  only(input, INPUT_KEYS, 'input');
  if (!Array.isArray(input.resources)) throw new Unsupported('input: no resources');
  return input.resources.map(templateOf);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function valueAt(object: JsonObject | undefined, path: string): unknown {
  let v: unknown = object;
  for (const segment of path.split('.')) v = isObject(v) ? v[segment] : undefined;
  return v;
}

function setAt(object: JsonObject, path: string, value: unknown): void {
  const segments = path.split('.');
  const last = segments.pop() ?? '';
  let at = object;
  for (const segment of segments) {
    const next = at[segment] ?? {};
    if (!isObject(next)) throw new Error(`cannot patch to object: ${segment} of ${path} is not an object`);
    at = at[segment] = next;
  }
  at[last] = structuredClone(value);
}

function conditionReady(observed: JsonObject): boolean {
  const found = valueAt(observed, 'status.conditions');
  const conditions: unknown[] = Array.isArray(found) ? found : [];
  const ready = conditions.find((c) => isObject(c) && c.type === 'Ready');
  return isObject(ready) && ready.status === 'True';
}

/** What one composed resource's patches read and write. */
interface Objects {
  observedXr: JsonObject;
  desiredXr: JsonObject;
  observed: JsonObject | undefined;
  desired: JsonObject;
}

function applyPatch(p: Patch, o: Objects): void {
  const [from, to] = p.type === 'FromCompositeFieldPath' ? [o.observedXr, o.desired] : [o.observed, o.desiredXr];
  const value = valueAt(from, p.fromFieldPath ?? '');
  if (value !== undefined) setAt(to, p.toFieldPath ?? '', value);
}

/** The desired composed resource of one template: the base, the observed name, its patches, its readiness. */
function render(t: Template, xr: { observed: JsonObject; desired: JsonObject }, observed?: JsonObject): Resource {
  const desired = structuredClone(t.base);
  let ready = Ready.READY_UNSPECIFIED;
  if (observed !== undefined) {
    const { name, namespace } = (valueAt(observed, 'metadata') ?? {}) as { name?: string; namespace?: string };
    const metadata = isObject(desired.metadata) ? desired.metadata : (desired.metadata = {});
    if (name) metadata.name = name;
    if (namespace) metadata.namespace = namespace;
    if (t.readyWhenObserved || conditionReady(observed)) ready = Ready.READY_TRUE;
  }
  for (const p of t.patches) applyPatch(p, { observedXr: xr.observed, desiredXr: xr.desired, observed, desired });
  return { resource: desired, connectionDetails: {}, ready };
}

function environmentOf(context: JsonObject | undefined): JsonObject {
  const env = isObject(context?.[ENVIRONMENT_KEY]) ? structuredClone(context[ENVIRONMENT_KEY]) : {};
  if (!env.apiVersion && !env.kind)
    Object.assign(env, { apiVersion: 'internal.crossplane.io/v1alpha1', kind: 'Environment' });
  return env;
}

/** The desired XR: the request's, with the observed XR's apiVersion and kind, as the real function gives it. */
function desiredXrOf(req: RunFunctionRequest): JsonObject {
  const observedXr = req.observed?.composite?.resource ?? {};
  return {
    ...structuredClone(req.desired?.composite?.resource ?? {}),
    apiVersion: str(observedXr.apiVersion),
    kind: str(observedXr.kind),
  };
}

/** Desired resources of earlier steps, without connection details, as the SDK's round trip drops them. */
function earlierResources(req: RunFunctionRequest): Record<string, Resource> {
  const resources: Record<string, Resource> = {};
  for (const [name, r] of Object.entries(req.desired?.resources ?? {})) {
    resources[name] = { resource: structuredClone(r.resource), connectionDetails: {}, ready: r.ready };
  }
  return resources;
}

/** The desired state: earlier steps' composed resources, then each template's, and the desired XR they patch. */
function desiredState(req: RunFunctionRequest, templates: readonly Template[]): State {
  const xr = { observed: req.observed?.composite?.resource ?? {}, desired: desiredXrOf(req) };
  const resources = earlierResources(req);
  for (const t of templates) resources[t.name] = render(t, xr, req.observed?.resources[t.name]?.resource);
  const connectionDetails = { ...req.desired?.composite?.connectionDetails };
  return { composite: { resource: xr.desired, connectionDetails, ready: Ready.READY_UNSPECIFIED }, resources };
}

/** The stand-in's RunFunction. The request is only read: `rsp.desired` may be the request's, so it is replaced. */
export const patchAndTransform: ComposeFunction = (req, rsp) => {
  let desired: State;
  try {
    desired = desiredState(req, templatesOf(req.input));
  } catch (err) {
    const why =
      err instanceof Unsupported
        ? `the patch-and-transform stand-in does not interpret ${err.message}`
        : (err as Error).message;
    // As the real function's FATAL: the request's desired state goes back untouched.
    return fatal(rsp, `cannot compose: ${why}`);
  }
  rsp.desired = desired;
  rsp.context = { ...structuredClone(req.context ?? {}), [ENVIRONMENT_KEY]: environmentOf(req.context) };
  return rsp;
};
