// `compositor render <xr> <composition> <functions>`: runs a Composition's pipeline once, offline, and prints the
// desired state as YAML, like `crossplane render`. A Function a built-in serves (chooseRuntime, as `compositor start`
// decides it without flags) runs in-process; any other Function must carry the
// render.crossplane.io/runtime-development-target annotation naming a running function (compositor starts no
// containers). A problem with an input file is one line naming the file, and exit code 1.
import {
  builtinFunctions,
  chooseRuntime,
  DEFAULT_BUILTIN_POLICY,
  GrpcFunctionRunner,
  insecureCredentials,
  RequirementsRunner,
  RoutingRunner,
  runPipeline,
  staticEndpointResolver,
  type BuiltinFunction,
  type FunctionLike,
  type FunctionRunner,
  type JsonObject,
  type RequiredResourceFetcher,
  type ResourceSelector,
  type Resources,
} from '../functions/index.js';
import { schemaIn, type OpenApiDocument } from '../composite/index.js';
import { xrdScope, type CompositeResourceDefinition } from '../definition/index.js';
import { checkRenderInputs, type RenderFiles } from './renderCheck.js';
import { readObject, readObjects, RenderInputError } from './renderInputs.js';
import { readPipelineInputs, type PipelineInputFlags } from './renderPipelineInputs.js';
import { withSchemaDefaults } from './renderDefaults.js';
import { reconcileEvents } from './renderEvents.js';
import { RESOURCE_NAME_ANNOTATION, renderDocuments } from './renderOutput.js';
import { printDocuments } from './renderPrint.js';
import { reconcilerView } from './renderXr.js';
import type { Output } from './start.js';

export const DEVELOPMENT_TARGET_ANNOTATION = 'render.crossplane.io/runtime-development-target';

export interface RenderOptions extends RenderFiles, PipelineInputFlags {
  observedResources?: string;
  /** -e: resources functions may require. */
  requiredResources?: string;
  /** --extra-resources: crank's deprecated name for more of the same, served after -e's. */
  extraResources?: string;
  includeFunctionResults: boolean;
  includeContext: boolean;
  includeEvents?: boolean;
  /** Also print the observed resources the engine would delete (compositor's own flag). */
  includeDeleted?: boolean;
  /** Run with composed resource ordering and print the dependencies and waves (compositor's own flag). */
  includeOrder?: boolean;
  /** -x, --include-full-xr: print the rendered XR merged into the input XR, as crank does. */
  includeFullXr?: boolean;
  /** The XRD of the XR's type: a legacy (v1, LegacyCluster) XRD puts the machinery at spec.* instead. */
  xrd?: string;
  /** Deadline of each function call. */
  timeoutMs: number;
  /** In-process functions by built-in name; tests put fakes here. */
  builtins?: ReadonlyMap<string, BuiltinFunction>;
}

function obj(v: unknown): JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function matches(object: JsonObject, s: ResourceSelector): boolean {
  if (str(object.apiVersion) !== s.apiVersion || str(object.kind) !== s.kind) return false;
  const metadata = obj(object.metadata);
  if (s.matchName !== undefined) return str(metadata.name) === s.matchName;
  const labels = obj(metadata.labels);
  return Object.entries(s.matchLabels?.labels ?? {}).every(([k, v]) => labels[k] === v);
}

/**
 * Serves required resources from the supplied objects (like crossplane render, it ignores namespaces) and required
 * schemas from the supplied OpenAPI documents.
 */
export function fileFetcher(
  objects: readonly JsonObject[],
  schemas: readonly OpenApiDocument[] = [],
): RequiredResourceFetcher {
  return {
    fetchResources: (selector): Promise<Resources> =>
      Promise.resolve({ items: objects.filter((o) => matches(o, selector)).map((resource) => ({ resource })) }),
    fetchSchema: (selector) => Promise.resolve(schemaIn(schemas, selector)),
  };
}

/** Observed composed resources by their composition resource name annotation. */
function observedByName(objects: readonly JsonObject[], file: string): Map<string, JsonObject> {
  const byName = new Map<string, JsonObject>();
  for (const o of objects) {
    const name = str(obj(obj(o.metadata).annotations)[RESOURCE_NAME_ANNOTATION]);
    if (name === '') {
      throw new RenderInputError(
        `invalid observed resources "${file}": ${str(o.kind)} "${str(obj(o.metadata).name)}" has no ${RESOURCE_NAME_ANNOTATION} annotation`,
      );
    }
    byName.set(name, o);
  }
  return byName;
}

function isLegacy(xrd: JsonObject): boolean {
  if (str(xrd.kind) !== 'CompositeResourceDefinition') return false;
  return xrdScope(xrd as unknown as CompositeResourceDefinition) === 'LegacyCluster';
}

/** The XR with its schema's defaults (crank's --xrd); a problem is one line naming the XRD file. */
function defaultedXr(file: JsonObject, xrd: JsonObject, path: string): JsonObject {
  try {
    return withSchemaDefaults(file, xrd as unknown as CompositeResourceDefinition);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new RenderInputError(
      `invalid composite resource definition "${path}": cannot default values for XR "${str(obj(file.metadata).name)}": ${detail}`,
      { cause: err },
    );
  }
}

/** What chooseRuntime reads of a Function file's object, whatever the file holds. */
function functionLike(fn: JsonObject): FunctionLike {
  const annotations = obj(obj(fn.metadata).annotations) as Record<string, string>;
  return { metadata: { annotations }, spec: { package: str(obj(fn.spec).package) } };
}

/** Where each Function runs: a development target, or a built-in; anything else cannot run here. */
function placeFunctions(
  functions: readonly JsonObject[],
  file: string,
  builtins: ReadonlyMap<string, BuiltinFunction>,
): Record<string, string> {
  const targets: Record<string, string> = {};
  for (const fn of functions) {
    const name = str(obj(fn.metadata).name);
    const target = str(obj(obj(fn.metadata).annotations)[DEVELOPMENT_TARGET_ANNOTATION]);
    if (target !== '') {
      targets[name] = target;
      continue;
    }
    const choice = chooseRuntime(functionLike(fn), DEFAULT_BUILTIN_POLICY);
    if (choice.builtin === undefined || !builtins.has(choice.builtin)) {
      throw new RenderInputError(
        `invalid functions "${file}": Function "${name}" is not built in (${choice.message}); annotate it with ${DEVELOPMENT_TARGET_ANNOTATION}: <host:port> of a running function`,
      );
    }
  }
  return targets;
}

/** The runner every step of an offline pipeline goes through, and how to close its connections. */
export interface FunctionStack {
  runner: FunctionRunner;
  close: () => void;
}

/**
 * Built-ins in-process, development targets over gRPC; a Function that is neither is a RenderInputError naming
 * `file`. `builtins` lets tests run an in-process fake in place of a real function.
 */
export function functionStack(
  functions: readonly JsonObject[],
  file: string,
  timeoutMs: number,
  builtins: ReadonlyMap<string, BuiltinFunction> = builtinFunctions(),
): FunctionStack {
  const targets = placeFunctions(functions, file, builtins);
  const byName = new Map(functions.map((fn) => [str(obj(fn.metadata).name), functionLike(fn)]));
  const grpc = new GrpcFunctionRunner({
    resolveEndpoint: staticEndpointResolver(targets),
    credentials: insecureCredentials(),
    timeoutMs,
  });
  const runner = new RoutingRunner({
    builtins,
    // An explicit development target wins over a built-in of the same package.
    functionOf: (name) => Promise.resolve(name in targets ? undefined : byName.get(name)),
    remote: grpc,
  });
  return {
    runner,
    close: () => {
      grpc.close();
    },
  };
}

/** -e's resources, then --extra-resources', as crank v2.3 appends them (a function sees both). */
async function requiredObjects(options: RenderOptions): Promise<JsonObject[]> {
  const required = options.requiredResources ? await readObjects(options.requiredResources, 'required resources') : [];
  const extra = options.extraResources ? await readObjects(options.extraResources, 'extra resources') : [];
  return [...required, ...extra];
}

async function render(options: RenderOptions): Promise<string> {
  const file = await readObject(options.xr, 'composite resource');
  const composition = await readObject(options.composition, 'composition');
  const { context, functions, schemas, getSecret } = await readPipelineInputs(options.functions, options);
  const steps = checkRenderInputs({ xr: file, composition, functions }, options);
  const observedObjects = options.observedResources
    ? await readObjects(options.observedResources, 'observed resources')
    : [];
  const observed = observedByName(observedObjects, options.observedResources ?? '');
  const required = await requiredObjects(options);
  const stack = functionStack(functions, options.functions, options.timeoutMs, options.builtins);
  // Read with the other inputs, so a problem with the file is reported before any function runs.
  const xrd = options.xrd === undefined ? undefined : await readObject(options.xrd, 'composite resource definition');
  const legacy = xrd !== undefined && isLegacy(xrd);
  const defaulted = xrd === undefined ? file : defaultedXr(file, xrd, options.xrd ?? '');
  const compositionName = str(obj(composition.metadata).name);
  const xr = reconcilerView(defaulted, compositionName, legacy);
  try {
    const resources = Object.fromEntries([...observed].map(([name, resource]) => [name, { resource }]));
    const out = await runPipeline(
      {
        steps,
        observed: { composite: { resource: xr }, resources },
        // Without --context-files or --context-values the first step gets an empty context, as in a cluster.
        context,
        ordering: options.includeOrder === true,
      },
      { runner: new RequirementsRunner(stack.runner, fileFetcher(required, schemas)), getSecret },
    );
    const machinery = legacy ? obj(file.spec) : obj(obj(file.spec).crossplane);
    const fileCompositionRef = str(obj(machinery.compositionRef).name) || undefined;
    const docs = renderDocuments(xr, out, {
      observed,
      includeResults: options.includeFunctionResults,
      includeContext: options.includeContext,
      includeEvents: options.includeEvents,
      includeDeleted: options.includeDeleted,
      includeOrder: options.includeOrder,
      legacy,
      events: reconcileEvents({ fileCompositionRef, compositionName, out }),
      ...(options.includeFullXr === true ? { inputXr: defaulted } : {}),
    });
    return printDocuments(docs);
  } finally {
    stack.close();
  }
}

/**
 * Runs an offline render; 0 with the YAML on stdout, 1 with one line on stderr, prefixed with `command`, when the
 * inputs or a function fail.
 */
export async function printRendered(command: string, rendered: () => Promise<string>, output: Output): Promise<number> {
  try {
    output.stdout(await rendered());
    return 0;
  } catch (err) {
    // Input problems, FATAL results and unreachable functions are expected failures; each is one line in CI logs.
    if (!(err instanceof Error)) throw err;
    output.stderr(`${command}: ${err.message.split('\n')[0] ?? ''}\n`);
    return 1;
  }
}

/** Runs render; 0 with the YAML on stdout, 1 with one line on stderr when the inputs or a function fail. */
export function runRender(options: RenderOptions, output: Output): Promise<number> {
  return printRendered('compositor render', () => render(options), output);
}
