// What a function may hand back to the engine. A function's response decides how much work a reconcile does (every
// desired resource is rendered, applied, watched and listed in the XR's resourceRefs) and how deeply the engine walks
// what it returns; nothing in the protocol bounds either. Responses past these limits fail the step, as any failed
// call does: the XR reports it, and nothing is applied or deleted because of it.
import { deeperThan, MAX_NESTING_DEPTH } from '../base/index.js';
import { FunctionCallError } from './errors.js';
import type { FunctionCall, FunctionRunner } from './runner.js';
import type { RunFunctionResponse } from './types.js';

/** Default of --max-composed-resources: desired composed resources one response may hold. */
export const DEFAULT_MAX_COMPOSED_RESOURCES = 1000;

/**
 * The largest response read from a function over gRPC: 4 MiB, as Crossplane's gRPC client reads no larger (Go gRPC's
 * default), so a function that works with one works with the other.
 */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Results and conditions one response may hold; each becomes an event or a condition on the XR. */
export const MAX_RESULTS = 1000;

/** Characters of a condition's message, as metav1.Condition allows (its CRD schema's maxLength). */
export const MAX_CONDITION_MESSAGE = 32_768;

export interface ResponseLimits {
  /** --max-composed-resources; 0 means no limit. */
  maxComposedResources: number;
  /** Levels of objects and arrays; MAX_NESTING_DEPTH unless given (tests). */
  maxNestingDepth?: number;
}

/** A response past one of the limits; `limit` names which. */
export class ResponseLimitError extends FunctionCallError {
  constructor(
    call: FunctionCall,
    readonly limit: 'composed-resources' | 'nesting' | 'results',
    detail: string,
  ) {
    super(call.functionName, call.step, detail);
    this.name = 'ResponseLimitError';
  }
}

/**
 * Checks a response against the limits in time linear in its size; throws ResponseLimitError when it is past one.
 *
 * @example checkResponse(call, rsp, { maxComposedResources: 1000 });
 */
export function checkResponse(call: FunctionCall, rsp: RunFunctionResponse, limits: ResponseLimits): void {
  const detail = composedResources(rsp, limits.maxComposedResources);
  if (detail !== undefined) throw new ResponseLimitError(call, 'composed-resources', detail);
  const said = results(rsp);
  if (said !== undefined) throw new ResponseLimitError(call, 'results', said);
  const maxDepth = limits.maxNestingDepth ?? MAX_NESTING_DEPTH;
  const path = deeperThan(rsp, maxDepth);
  if (path !== undefined) {
    const nested = `returned a response nested deeper than ${maxDepth} levels of objects and arrays (at ${path})`;
    throw new ResponseLimitError(call, 'nesting', nested);
  }
}

function composedResources(rsp: RunFunctionResponse, max: number): string | undefined {
  const desired = Object.keys(rsp.desired?.resources ?? {}).length;
  if (max === 0 || desired <= max) return undefined;
  return `returned ${desired} desired composed resources, more than the ${max} allowed (--max-composed-resources)`;
}

function results(rsp: RunFunctionResponse): string | undefined {
  const counts = { results: rsp.results?.length ?? 0, conditions: rsp.conditions?.length ?? 0 };
  for (const [field, count] of Object.entries(counts)) {
    if (count > MAX_RESULTS) return `returned ${count} ${field}, more than ${MAX_RESULTS}`;
  }
  const long = rsp.conditions?.find((c) => (c.message?.length ?? 0) > MAX_CONDITION_MESSAGE);
  if (long === undefined) return undefined;
  return `returned condition "${long.type ?? ''}" with a message of ${long.message?.length} characters, more than ${MAX_CONDITION_MESSAGE}`;
}

/** A runner whose every response is checked against the limits before anyone else reads it. */
export class LimitedRunner implements FunctionRunner {
  constructor(
    private readonly inner: FunctionRunner,
    private readonly limits: ResponseLimits,
  ) {}

  async run(call: FunctionCall): Promise<RunFunctionResponse> {
    const rsp = await this.inner.run(call);
    checkResponse(call, rsp, this.limits);
    return rsp;
  }
}
