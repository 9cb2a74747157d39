// The built-in function-patch-and-transform (fn.go RunFunction): composes resources from base templates and
// patches between the XR, the environment and composed resources, with the real function's results, warnings
// and FATAL texts. The request is never modified; a FATAL result returns the request's desired state untouched,
// as the real function does.
import type { JsonObject, Ready, Resource, Result, RunFunctionRequest, RunFunctionResponse } from '../../types.js';
import { isNotFound } from '../fieldpath.js';
import { DEFAULT_TTL_MS, responseTo } from '../response.js';
import {
  connectionSecret,
  connectionSecretRef,
  extractConnectionDetails,
  supportsConnectionDetails,
  type ConnectionDetails,
} from './connection.js';
import { fromFieldPathRequired, patchType, type ComposedTemplate, type Patch, type ResourcesInput } from './input.js';
import { applyComposedPatch, applyEnvironmentPatch } from './patches.js';
import { composedTemplates } from './patchSets.js';
import { isReady } from './ready.js';
import { validateResources } from './validate.js';
import { echoTag } from '../../requestTag.js';

export const PATCH_AND_TRANSFORM = 'function-patch-and-transform';
/** The context key of the Composition environment (function-sdk-go context.KeyEnvironment). */
export const ENVIRONMENT_KEY = 'apiextensions.crossplane.io/environment';

/** Ends the run with a FATAL result. */
class FatalResult extends Error {}

interface Desired {
  resource: JsonObject;
  ready?: Ready;
}

/** Everything one run reads and writes. Only `req` is shared with the caller, and it is only read. */
interface Run {
  req: RunFunctionRequest;
  input: ResourcesInput;
  observedXr: JsonObject;
  desiredXr: JsonObject;
  xrDetails: ConnectionDetails;
  desired: Map<string, Desired>;
  environment: JsonObject;
  warnings: Result[];
  skipped: boolean;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function warn(run: Run, text: string): void {
  run.warnings.push({ severity: 'SEVERITY_WARNING', message: text, target: 'TARGET_COMPOSITE' });
}

/** Sets metadata.name or metadata.namespace; an empty value removes it, as Unstructured's setters do. */
function setMetadata(object: JsonObject, name: string, namespace: string): void {
  if (!isObject(object.metadata)) {
    if (name === '' && namespace === '') return;
    object.metadata = {};
  }
  const metadata = object.metadata;
  if (name === '') delete metadata.name;
  else metadata.name = name;
  if (namespace === '') delete metadata.namespace;
  else metadata.namespace = namespace;
}

function environmentOf(req: RunFunctionRequest): JsonObject {
  const value = req.context?.[ENVIRONMENT_KEY];
  const env = isObject(value) ? structuredClone(value) : {};
  if (str(env.apiVersion) === '' && str(env.kind) === '') {
    env.apiVersion = 'internal.crossplane.io/v1alpha1';
    env.kind = 'Environment';
  }
  return env;
}

/** Desired composed resources from earlier steps; their connection details are dropped, as the SDK drops them. */
function desiredComposed(req: RunFunctionRequest): Map<string, Desired> {
  const desired = new Map<string, Desired>();
  for (const [name, r] of Object.entries(req.desired?.resources ?? {})) {
    desired.set(name, withReady({ resource: structuredClone(r.resource ?? {}) }, r.ready));
  }
  return desired;
}

function startRun(req: RunFunctionRequest, input: ResourcesInput): Run {
  const observedXr = req.observed?.composite?.resource ?? {};
  const desiredXr = structuredClone(req.desired?.composite?.resource ?? {});
  // The real function gives the desired XR the observed XR's type, so it can treat it as an object.
  desiredXr.apiVersion = str(observedXr.apiVersion);
  desiredXr.kind = str(observedXr.kind);
  return {
    req,
    input,
    observedXr,
    desiredXr,
    xrDetails: { ...(req.desired?.composite?.connectionDetails ?? {}) },
    desired: desiredComposed(req),
    environment: environmentOf(req),
    warnings: [],
    skipped: false,
  };
}

function withReady(d: Desired, ready: Ready | undefined): Desired {
  if (ready !== undefined && ready !== 'READY_UNSPECIFIED') d.ready = ready;
  return d;
}

function runEnvironmentPatches(run: Run): void {
  for (const [i, p] of (run.input.environment?.patches ?? []).entries()) {
    try {
      applyEnvironmentPatch(p, run);
    } catch (err) {
      if (isNotFound(err) && !fromFieldPathRequired(p)) continue;
      throw new FatalResult(`cannot apply the "${patchType(p)}" environment patch at index ${i}: ${message(err)}`);
    }
  }
}

function baseOf(run: Run, t: ComposedTemplate, name: string): Desired {
  if (t.base !== undefined) return { resource: structuredClone(t.base) };
  const previous = run.desired.get(name);
  if (previous === undefined) {
    throw new FatalResult(
      `composed resource "${name}" has no base template, and was not produced by a previous Function in the pipeline`,
    );
  }
  return withReady({ resource: structuredClone(previous.resource) }, previous.ready);
}

/** What an existing composed resource contributes: its name, XR connection details, readiness. */
function observe(run: Run, t: ComposedTemplate, observed: Resource, d: Desired): void {
  const name = t.name ?? '';
  const object = observed.resource ?? {};
  const metadata = isObject(object.metadata) ? object.metadata : {};
  setMetadata(d.resource, str(metadata.name), str(metadata.namespace));
  try {
    Object.assign(
      run.xrDetails,
      extractConnectionDetails(object, observed.connectionDetails ?? {}, t.connectionDetails ?? []),
    );
  } catch (err) {
    warn(run, `cannot extract composite resource connection details from composed resource "${name}": ${message(err)}`);
  }
  try {
    if (isReady(object, t.readinessChecks)) d.ready = 'READY_TRUE';
  } catch (err) {
    warn(run, `cannot check readiness of composed resource "${name}": ${message(err)}`);
  }
}

/** Applies a template's patches; false when the resource must not be added (a Required path is missing). */
function patch(run: Run, t: ComposedTemplate, observed: JsonObject | undefined, d: Desired): boolean {
  const name = t.name ?? '';
  const objects = { ...run, observed, desired: d.resource };
  for (const [i, p] of (t.patches ?? []).entries()) {
    try {
      applyComposedPatch(p, objects);
    } catch (err) {
      if (!isNotFound(err)) {
        throw new FatalResult(
          `cannot render composed resource "${name}" "${patchType(p)}" patch at index ${i}: ${message(err)}`,
        );
      }
      if (!requiredMissing(run, { name, p, i, exists: observed !== undefined }, err)) return false;
    }
  }
  return true;
}

/** Reports a missing Required path; false when the resource is new and so must not be created. */
function requiredMissing(run: Run, at: { name: string; p: Patch; i: number; exists: boolean }, err: unknown): boolean {
  if (!fromFieldPathRequired(at.p)) return true;
  const type = patchType(at.p);
  if (!at.exists) {
    warn(
      run,
      `not adding new composed resource "${at.name}" to desired state because "${type}" patch at index ${at.i} has 'policy.fromFieldPath: Required': ${message(err)}`,
    );
    return false;
  }
  warn(
    run,
    `cannot render composed resource "${at.name}" "${type}" patch at index ${at.i}: ignoring 'policy.fromFieldPath: Required' because 'to' resource already exists: ${message(err)}`,
  );
  return true;
}

function renderTemplate(run: Run, t: ComposedTemplate): void {
  const name = t.name ?? '';
  const d = baseOf(run, t, name);
  const observed = run.req.observed?.resources?.[name];
  if (observed !== undefined) observe(run, t, observed, d);
  const object = observed === undefined ? undefined : (observed.resource ?? {});
  if (patch(run, t, object, d)) run.desired.set(name, d);
  else run.skipped = true;
}

/** Modern XRs also get their connection details as a composed Secret. */
function composeConnectionSecret(run: Run): void {
  if (supportsConnectionDetails(run.observedXr) || Object.keys(run.xrDetails).length === 0) return;
  let ref;
  try {
    ref = connectionSecretRef(run.observedXr, run.input.writeConnectionSecretToRef);
  } catch (err) {
    throw new FatalResult(`cannot get connection secret reference: ${message(err)}`);
  }
  const xrName = str((run.observedXr.metadata as JsonObject | undefined)?.name);
  run.desired.set(`${xrName}-connection-secret`, {
    resource: connectionSecret(ref, run.xrDetails),
    ready: 'READY_TRUE',
  });
  // The details stay in the desired XR as well, as upstream leaves them; Crossplane v2 publishes none for it.
}

function respond(run: Run): RunFunctionResponse {
  const rsp: RunFunctionResponse = { meta: echoTag(run.req, DEFAULT_TTL_MS) };
  const composite: Resource = { resource: run.desiredXr };
  if (Object.keys(run.xrDetails).length > 0) composite.connectionDetails = run.xrDetails;
  // The SDK does not read the desired XR's readiness, so only a skipped resource sets it.
  if (run.skipped) composite.ready = 'READY_FALSE';
  const resources: Record<string, Resource> = {};
  for (const [name, d] of run.desired) resources[name] = d.ready === undefined ? { resource: d.resource } : { ...d };
  rsp.desired = Object.keys(resources).length === 0 ? { composite } : { composite, resources };
  rsp.context = { ...structuredClone(run.req.context ?? {}), [ENVIRONMENT_KEY]: run.environment };
  if (run.warnings.length > 0) rsp.results = run.warnings;
  return rsp;
}

function fatalResponse(req: RunFunctionRequest, warnings: Result[], text: string): RunFunctionResponse {
  const rsp = responseTo(req);
  rsp.results = [...warnings, { severity: 'SEVERITY_FATAL', message: text, target: 'TARGET_COMPOSITE' }];
  return rsp;
}

/**
 * Runs function-patch-and-transform on one request.
 *
 * @example
 * const rsp = patchAndTransform({ input: { apiVersion: 'pt.fn.crossplane.io/v1beta1', kind: 'Resources', resources }, observed });
 */
export function patchAndTransform(req: RunFunctionRequest): RunFunctionResponse {
  const input = (req.input ?? {}) as ResourcesInput;
  const invalid = validateResources(input);
  if (invalid !== undefined) return fatalResponse(req, [], `invalid Function input: ${invalid.message}`);
  let run: Run | undefined;
  try {
    let templates: ComposedTemplate[];
    try {
      templates = composedTemplates(input.patchSets ?? [], input.resources ?? []);
    } catch (err) {
      throw new FatalResult(`cannot resolve PatchSets: ${message(err)}`);
    }
    run = startRun(req, { ...input, resources: templates });
    runEnvironmentPatches(run);
    for (const t of templates) renderTemplate(run, t);
    composeConnectionSecret(run);
    return respond(run);
  } catch (err) {
    if (err instanceof FatalResult) return fatalResponse(req, run?.warnings ?? [], err.message);
    throw err;
  }
}
