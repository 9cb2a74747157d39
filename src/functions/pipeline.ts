// Runs a Composition's function pipeline once: steps in order, each given the previous step's desired state and
// context; FATAL stops it; results become events, function conditions become XR conditions; the shortest TTL
// decides the requeue. The runner passed in is already stacked (cache, requirements loop, built-ins or gRPC).
import { parseDuration } from '../apis/index.js';
import { FunctionCallError, PipelineFatalError } from './errors.js';
import { setLazyTag } from './requestTag.js';
import { resultToEvent, toCondition, type PipelineCondition, type PipelineEvent } from './outcome.js';
import type { FunctionCall, FunctionRunner } from './runner.js';
import { ALL_CAPABILITIES } from './types.js';
import type {
  Credentials,
  JsonObject,
  Requirements,
  Resources,
  RunFunctionRequest,
  RunFunctionResponse,
  State,
  StepRequirements,
} from './types.js';

/** One entry of a Composition's spec.pipeline. */
export interface PipelineStep {
  step: string;
  functionRef: { name: string };
  input?: JsonObject;
  credentials?: { name: string; source: string; secretRef?: { namespace: string; name: string } }[];
  /**
   * compositor's extension: a Go duration bounding each call of this step (including retries), instead of
   * --function-timeout. Crossplane's Composition schema has no such field; compositor's CRD keeps it (docs/crds.md).
   */
  timeout?: string;
  /** Resources and schemas to fetch and send on the step's first call (Crossplane v2.2's bootstrap requirements). */
  requirements?: StepRequirements;
}

export interface PipelineInput {
  steps: readonly PipelineStep[];
  /** The XR and its composed resources as observed when the pipeline starts; the same for every step. */
  observed: State;
  /** Initial context; Crossplane v2 starts with an empty one. */
  context?: JsonObject;
  /** Required resources to send each step on its first call (bootstrap requirements, last reconcile's). */
  requiredResources?: (step: string) => Record<string, Resources> | undefined;
}

export interface PipelineDeps {
  runner: FunctionRunner;
  /** A Secret's data (base64 values, as the API returns it); undefined when it does not exist. */
  getSecret?: (namespace: string, name: string) => Promise<Record<string, string> | undefined>;
  signal?: AbortSignal;
}

export interface PipelineOutput {
  desired: State;
  context: JsonObject | undefined;
  events: PipelineEvent[];
  conditions: PipelineCondition[];
  /** Shortest non-zero response TTL of any step; undefined when no step set one. */
  ttlMs: number | undefined;
  /** What each step required on its last call, for watches and for seeding the next reconcile. */
  requirements: Record<string, Requirements>;
  /** The `output` of each step that returned one, in step order (an Operation records them in its status). */
  outputs: { step: string; output: JsonObject }[];
}

async function stepCredentials(
  step: PipelineStep,
  getSecret: PipelineDeps['getSecret'],
): Promise<Record<string, Credentials> | undefined> {
  const out: Record<string, Credentials> = {};
  for (const c of step.credentials ?? []) {
    if (c.source !== 'Secret' || c.secretRef === undefined) continue;
    const { namespace, name } = c.secretRef;
    const data = getSecret ? await getSecret(namespace, name) : undefined;
    if (data === undefined) {
      throw new Error(
        `cannot get credentials "${c.name}" of pipeline step "${step.step}": Secret ${namespace}/${name} not found`,
      );
    }
    const bytes: Record<string, Uint8Array> = {};
    for (const [key, value] of Object.entries(data)) bytes[key] = Buffer.from(value, 'base64');
    out[c.name] = { credentialData: { data: bytes } };
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The step's `timeout` in milliseconds; a value that is not a positive Go duration fails the step, naming it. */
export function stepTimeoutMs(step: PipelineStep): number | undefined {
  if (step.timeout === undefined) return undefined;
  let ms: number;
  try {
    // YAML may hold a number here; only a duration string is accepted.
    ms = typeof step.timeout === 'string' ? parseDuration(step.timeout) : -1;
  } catch {
    ms = -1;
  }
  if (!(ms > 0)) {
    throw new FunctionCallError(
      step.functionRef.name,
      step.step,
      `invalid timeout ${JSON.stringify(step.timeout)}: use a positive duration such as 10s or 1m30s`,
    );
  }
  return ms;
}

async function buildRequest(
  step: PipelineStep,
  input: PipelineInput,
  out: PipelineOutput,
  deps: PipelineDeps,
): Promise<RunFunctionRequest> {
  const request: RunFunctionRequest = { observed: input.observed, desired: out.desired };
  if (out.context !== undefined) request.context = out.context;
  if (step.input !== undefined) request.input = step.input;
  const credentials = await stepCredentials(step, deps.getSecret);
  if (credentials !== undefined) request.credentials = credentials;
  const required = input.requiredResources?.(step.step);
  if (required !== undefined) request.requiredResources = required;
  // The tag is a digest of the request before meta is set, as Crossplane computes it, taken when first read.
  setLazyTag(request, [...ALL_CAPABILITIES]);
  return request;
}

function absorbConditions(out: PipelineOutput, rsp: RunFunctionResponse): void {
  for (const c of rsp.conditions ?? []) {
    const mapped = toCondition(c);
    if (mapped !== undefined) out.conditions.push(mapped);
  }
}

/** Folds one step's response into the pipeline's output; a FATAL result ends the pipeline. */
function absorb(out: PipelineOutput, step: string, rsp: RunFunctionResponse): void {
  if (rsp.requirements !== undefined) out.requirements[step] = rsp.requirements;
  const ttl = rsp.meta?.ttlMs ?? 0;
  if (ttl > 0 && (out.ttlMs === undefined || ttl < out.ttlMs)) out.ttlMs = ttl;
  // Replaced wholesale, never merged: a function that returns no desired state empties it.
  out.desired = rsp.desired ?? {};
  out.context = rsp.context;
  absorbConditions(out, rsp);
  for (const result of rsp.results ?? []) {
    if (result.severity === 'SEVERITY_FATAL') {
      throw new PipelineFatalError(step, result.message ?? '', { events: out.events, conditions: out.conditions });
    }
    out.events.push(resultToEvent(step, result));
  }
}

/**
 * Runs every step; throws PipelineFatalError on a FATAL result and FunctionCallError when a function cannot be
 * called (nothing may be applied or deleted in either case).
 *
 * @example
 * const out = await runPipeline({ steps: composition.spec.pipeline, observed: { composite: { resource: xr } } }, { runner });
 */
export async function runPipeline(input: PipelineInput, deps: PipelineDeps): Promise<PipelineOutput> {
  const out: PipelineOutput = {
    desired: {},
    context: input.context ?? {},
    events: [],
    conditions: [],
    ttlMs: undefined,
    requirements: {},
    outputs: [],
  };
  for (const step of input.steps) {
    const request = await buildRequest(step, input, out, deps);
    const call: FunctionCall = { functionName: step.functionRef.name, step: step.step, request };
    const timeoutMs = stepTimeoutMs(step);
    if (timeoutMs !== undefined) call.timeoutMs = timeoutMs;
    if (step.requirements !== undefined) call.bootstrap = step.requirements;
    if (deps.signal) call.signal = deps.signal;
    const rsp = await deps.runner.run(call);
    absorb(out, step.step, rsp);
    if (rsp.output !== undefined) out.outputs.push({ step: step.step, output: rsp.output });
  }
  return out;
}
