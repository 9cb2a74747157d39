// One run of an Operation's pipeline, as Crossplane's operation reconciler runs it
// (internal/controller/ops/operation/reconciler.go): the same runPipeline a Composition uses, starting from empty
// observed and desired state, each step given its credentials and its bootstrap requirements through the
// requirements loop; then every desired resource server-side applied, forced, under the Operation's field manager.
import {
  PipelineFatalError,
  RequirementsRunner,
  runPipeline,
  type FunctionRunner,
  type JsonObject,
  type PipelineEvent,
  type RequiredResourceFetcher,
} from '../functions/index.js';
import { errorMessage } from '../base/index.js';
import { EVENT_REASONS } from './conditions.js';
import type { AppliedObject, OpsStore } from './store.js';
import {
  OPERATION_FIELD_OWNER_PREFIX,
  type AppliedResourceRef,
  type Operation,
  type PipelineStepStatus,
} from './types.js';

export interface OperationRunDeps {
  /**
   * The function runner stack without the response cache (an Operation runs its functions every time) and without
   * the requirements loop, which this run adds with `fetcher`.
   */
  runner: FunctionRunner;
  /** Serves the required resources functions ask for (and the watched resource a WatchOperation injects). */
  fetcher: RequiredResourceFetcher;
  store: Pick<OpsStore, 'apply' | 'getSecret'>;
}

/** What a run produced, also when it failed part way: a failed run still records what it got to. */
export interface RunRecord {
  events: PipelineEvent[];
  pipeline: PipelineStepStatus[];
  applied: AppliedResourceRef[];
}

/** A run that failed: `reason` is the Warning event's, `record` what the run produced before it failed. */
export class OperationRunError extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly record: RunRecord,
    options: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'OperationRunError';
  }
}

/** The field manager of everything an Operation applies: Crossplane's prefix and the Operation's UID. */
export function fieldOwnerOf(op: Operation): string {
  return `${OPERATION_FIELD_OWNER_PREFIX}${op.metadata.uid ?? ''}`;
}

/** Results become events under Crossplane's RunPipelineStep reason, whatever reason the function gave. */
function asOperationEvents(events: readonly PipelineEvent[]): PipelineEvent[] {
  return events.map((e) => ({ ...e, reason: EVENT_REASONS.runPipelineStep }));
}

/** Adds `ref` unless present, keeping the list sorted by apiVersion, kind, namespace and name, as upstream does. */
export function addResourceRef(refs: readonly AppliedResourceRef[], ref: AppliedResourceRef): AppliedResourceRef[] {
  const key = (r: AppliedResourceRef): string => `${r.apiVersion}${r.kind}${r.namespace ?? ''}${r.name}`;
  if (refs.some((r) => key(r) === key(ref))) return [...refs];
  return [...refs, ref].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function toApplied(name: string, resource: JsonObject | undefined): AppliedObject {
  const r = resource as Partial<AppliedObject> | undefined;
  if (typeof r?.apiVersion !== 'string' || typeof r.kind !== 'string' || typeof r.metadata?.name !== 'string') {
    throw new Error(`desired resource "${name}" needs apiVersion, kind and metadata.name`);
  }
  return r as AppliedObject;
}

function refOf(object: AppliedObject): AppliedResourceRef {
  const { apiVersion, kind, metadata } = object;
  return { apiVersion, kind, name: metadata.name, ...(metadata.namespace ? { namespace: metadata.namespace } : {}) };
}

/**
 * Runs the pipeline once and applies what it returns, in resource-name order. Resolves to what the run produced;
 * rejects with an OperationRunError saying which step failed and why (nothing after a failure is applied).
 */
export async function runOperation(op: Operation, deps: OperationRunDeps, signal: AbortSignal): Promise<RunRecord> {
  const record: RunRecord = { events: [], pipeline: [...(op.status?.pipeline ?? [])], applied: [] };
  const desired = await runSteps(op, deps, record, signal);
  record.applied = [...(op.status?.appliedResourceRefs ?? [])];
  for (const name of Object.keys(desired).sort()) {
    try {
      const object = toApplied(name, desired[name]?.resource);
      await deps.store.apply(object, fieldOwnerOf(op), signal);
      record.applied = addResourceRef(record.applied, refOf(object));
    } catch (err) {
      const message = `cannot apply desired resource: ${errorMessage(err)}`;
      throw new OperationRunError(EVENT_REASONS.invalidResource, message, record, { cause: err });
    }
  }
  return record;
}

/** The pipeline's desired resources; its events and step outputs go to `record`. */
async function runSteps(
  op: Operation,
  deps: OperationRunDeps,
  record: RunRecord,
  signal: AbortSignal,
): Promise<Record<string, { resource?: JsonObject }>> {
  try {
    const out = await runPipeline(
      { steps: op.spec.pipeline, observed: {} },
      {
        runner: new RequirementsRunner(deps.runner, deps.fetcher),
        getSecret: (namespace, name) => deps.store.getSecret(namespace, name, signal),
        signal,
      },
    );
    record.events = asOperationEvents(out.events);
    for (const { step, output } of out.outputs) record.pipeline = withStepOutput(record.pipeline, step, output);
    return out.desired.resources ?? {};
  } catch (err) {
    if (err instanceof PipelineFatalError) record.events = asOperationEvents(err.partial.events);
    throw new OperationRunError(EVENT_REASONS.functionInvocation, errorMessage(err), record, { cause: err });
  }
}

/** Sets one step's output, in place of an earlier one of that step (upstream's AddPipelineStepOutput). */
export function withStepOutput(
  pipeline: readonly PipelineStepStatus[],
  step: string,
  output: JsonObject,
): PipelineStepStatus[] {
  if (pipeline.some((p) => p.step === step)) return pipeline.map((p) => (p.step === step ? { step, output } : p));
  return [...pipeline, { step, output }];
}
