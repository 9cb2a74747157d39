// `compositor operation render <operation> <functions>`: runs an Operation's pipeline once, offline, and prints the
// Operation with the status it would get and the resources it would apply, as crank's `alpha render op` does
// (crossplane/crossplane cmd/crank/alpha/render/op/{cmd,load,render}.go). A CronOperation or WatchOperation renders
// as the Operation its template makes; --watched-resource injects the watched resource into every step, as the
// WatchOperation controller does. Functions run as `compositor render` runs them (functionStack), through the same
// runPipeline the Operation controller uses. A problem with an input is one line naming the file, and exit code 1.
import { RequirementsRunner, runPipeline, type BuiltinFunction, type JsonObject } from '../functions/index.js';
import { RECONCILE_SUCCESS } from '../controller/index.js';
import {
  addResourceRef,
  COMPLETE,
  EVENT_REASONS,
  OPS_API_VERSION,
  VALID,
  withWatchedRequirement,
  type AppliedResourceRef,
  type OperationStep,
} from '../operations/index.js';
import { fileFetcher, functionStack, printRendered } from './render.js';
import { readObject, readObjects, RenderInputError } from './renderInputs.js';
import { readPipelineInputs, type PipelineInputFlags } from './renderPipelineInputs.js';
import { resultDocuments } from './renderOutput.js';
import { printDocuments, withStableConditions } from './renderPrint.js';
import type { Output } from './start.js';

const RENDER_API_VERSION = 'render.crossplane.io/v1beta1';

export interface OperationRenderOptions extends PipelineInputFlags {
  operation: string;
  functions: string;
  /** -e: resources functions may require. */
  requiredResources?: string;
  /** -w: the one resource a WatchOperation's Operation was created for. */
  watchedResource?: string;
  /** -r: print the functions' non-fatal results. */
  includeFunctionResults: boolean;
  /** -c: print the final pipeline context. */
  includeContext: boolean;
  /** -o: keep the Operation's spec in the printed Operation. */
  includeFullOperation: boolean;
  /** Deadline of each function call. */
  timeoutMs: number;
  /** In-process functions by built-in name; tests put fakes here. */
  builtins?: ReadonlyMap<string, BuiltinFunction>;
}

/** What the render reads of an Operation: the metadata it prints and the spec it runs. */
interface RenderedOperation {
  metadata: JsonObject;
  spec: JsonObject;
  pipeline: OperationStep[];
}

function obj(v: unknown): JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * The Operation a file describes (load.go LoadOperation): an Operation as written, or a CronOperation's or
 * WatchOperation's template under the parent's name (the controllers generate one; render keeps it simple).
 */
function operationOf(file: JsonObject, path: string): RenderedOperation {
  const invalid = (detail: string): RenderInputError => new RenderInputError(`invalid operation "${path}": ${detail}`);
  if (str(file.apiVersion) !== OPS_API_VERSION) {
    throw invalid(`not an operation type: ${str(file.kind)}/${str(file.apiVersion)}`);
  }
  const kind = str(file.kind);
  const name = str(obj(file.metadata).name);
  let metadata: JsonObject;
  let spec: JsonObject;
  if (kind === 'Operation') {
    metadata = obj(file.metadata);
    spec = obj(file.spec);
  } else if (kind === 'CronOperation' || kind === 'WatchOperation') {
    const template = obj(obj(file.spec).operationTemplate);
    metadata = { ...obj(template.metadata), name };
    spec = obj(template.spec);
  } else {
    throw invalid(`not an operation type: ${kind}/${OPS_API_VERSION}`);
  }
  if (!Array.isArray(spec.pipeline) || spec.pipeline.length === 0) {
    throw invalid(`${kind} "${name}" has no spec.pipeline steps`);
  }
  return { metadata, spec, pipeline: spec.pipeline as unknown as OperationStep[] };
}

/** -w: exactly one resource, with apiVersion, kind and name to select it by. */
async function watchedOf(path: string): Promise<JsonObject> {
  const objects = await readObjects(path, 'watched resource');
  const [watched] = objects;
  if (watched === undefined || objects.length !== 1) {
    throw new RenderInputError(
      `invalid watched resource "${path}": --watched-resource must contain exactly one resource, got ${objects.length}`,
    );
  }
  if (str(watched.apiVersion) === '' || str(watched.kind) === '' || str(obj(watched.metadata).name) === '') {
    throw new RenderInputError(`invalid watched resource "${path}": it needs apiVersion, kind and metadata.name`);
  }
  return watched;
}

function refOf(resource: JsonObject): AppliedResourceRef {
  const metadata = obj(resource.metadata);
  const namespace = str(metadata.namespace);
  return {
    apiVersion: str(resource.apiVersion),
    kind: str(resource.kind),
    name: str(metadata.name),
    ...(namespace !== '' ? { namespace } : {}),
  };
}

/**
 * The conditions one successful reconcile leaves (internal/controller/ops/operation/reconciler.go): the pipeline is
 * valid, then Synced and Succeeded True, in the order the reconciler first sets each type.
 */
const SUCCEEDED_CONDITIONS = [COMPLETE, VALID, RECONCILE_SUCCESS].map((c): JsonObject => ({ ...c }));

async function render(options: OperationRenderOptions): Promise<string> {
  const file = await readObject(options.operation, 'operation');
  const op = operationOf(file, options.operation);
  const required = options.requiredResources ? await readObjects(options.requiredResources, 'required resources') : [];
  if (options.watchedResource !== undefined) {
    const watched = await watchedOf(options.watchedResource);
    op.pipeline = withWatchedRequirement(op.pipeline, {
      apiVersion: str(watched.apiVersion),
      kind: str(watched.kind),
      metadata: { name: str(obj(watched.metadata).name), namespace: str(obj(watched.metadata).namespace) },
    });
    required.push(watched);
  }
  const { context, functions, schemas, getSecret } = await readPipelineInputs(options.functions, options);
  const stack = functionStack(functions, options.functions, options.timeoutMs, options.builtins);
  try {
    // An Operation starts from empty observed and desired state (render.go, and the Operation controller), and
    // from the context the flags seed (empty without them, as the controller's).
    const out = await runPipeline(
      { steps: op.pipeline, observed: {}, context },
      {
        runner: new RequirementsRunner(stack.runner, fileFetcher(required, schemas)),
        getSecret,
      },
    );
    const resources = Object.entries(out.desired.resources ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, r]) => obj(r.resource));
    const applied = resources.reduce<AppliedResourceRef[]>((refs, r) => addResourceRef(refs, refOf(r)), []);
    const pipeline = out.outputs.map(({ step, output }) => ({ step, output }));
    const operation: JsonObject = {
      apiVersion: OPS_API_VERSION,
      kind: 'Operation',
      // A typed ObjectMeta marshals its zero creationTimestamp as null, and crank prints it so.
      metadata: { creationTimestamp: null, ...op.metadata },
      ...(options.includeFullOperation
        ? { spec: { ...op.spec, pipeline: op.pipeline as unknown as JsonObject[] } }
        : {}),
      status: {
        conditions: SUCCEEDED_CONDITIONS,
        appliedResourceRefs: applied as unknown as JsonObject[],
        pipeline: pipeline as unknown as JsonObject[],
      },
    };
    const docs = [withStableConditions(operation), ...resources];
    // Results are the events the reconciler records, all under RunPipelineStep, as crank's engine prints them.
    const events = out.events.map((e) => ({ ...e, reason: EVENT_REASONS.runPipelineStep }));
    if (options.includeFunctionResults) docs.push(...resultDocuments(events));
    if (options.includeContext && out.context !== undefined && Object.keys(out.context).length > 0) {
      docs.push({ apiVersion: RENDER_API_VERSION, kind: 'Context', fields: out.context });
    }
    return printDocuments(docs);
  } finally {
    stack.close();
  }
}

/** Runs the render; 0 with the YAML on stdout, 1 with one line on stderr when the inputs or a function fail. */
export function runOperationRender(options: OperationRenderOptions, output: Output): Promise<number> {
  return printRendered('compositor operation render', () => render(options), output);
}
