// The requirements loop (Crossplane's FetchingFunctionRunner): the step's declared requirements (bootstrap), and
// what the memory holds for the step (what it required last run for the same XR, rememberedRequirements.ts), are
// fetched and sent on the first call; then, while a function's requirements change, fetch what it asks for and call
// it again, at most 5 extra calls. A function that asks again for what it was seeded with is called once; one that
// asks for anything else gets only that on its next call, so a seed never reaches the answer the loop returns. The request's meta.tag is not recomputed between calls. What one call
// may ask for is bounded (selectors and objects), as a function that asks for every ConfigMap in the cluster would
// otherwise hold a worker and the API client's budget for as long as the list takes, and the XR's memory with it.
import { assertNesting, errorMessage } from '../base/index.js';
import { FunctionCallError } from './errors.js';
import { digest, sameMessage } from './hash.js';
import type { RequirementsMemory } from './rememberedRequirements.js';
import type { FunctionCall, FunctionRunner } from './runner.js';
import type {
  Requirements,
  ResourceSelector,
  Resources,
  RunFunctionRequest,
  RunFunctionResponse,
  Schema,
  SchemaSelector,
  StepRequirements,
} from './types.js';

export const MAX_REQUIREMENTS_ITERATIONS = 5;

/** Resource selectors one response may ask for; each is a GET or LIST of the API server. */
export const MAX_REQUIRED_SELECTORS = 100;

/** Objects the required resources of one call may hold, all selectors together. */
export const MAX_REQUIRED_RESOURCES = 1000;

/** What one call asked for is more than the engine fetches; the message says which bound. */
export class RequirementsLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequirementsLimitError';
  }
}

/** Serves required resources, from the watch cache or the API server. */
export interface RequiredResourceFetcher {
  /**
   * matchName: the object (or no items when absent); otherwise every match sorted by namespace/name. With maxItems,
   * a label selector may stop after maxItems + 1 matches: more than maxItems is all the caller needs to know.
   */
  fetchResources(selector: ResourceSelector, maxItems?: number): Promise<Resources>;
  /** The OpenAPI v3 schema of a kind; an empty Schema when unknown. */
  fetchSchema(selector: SchemaSelector): Promise<Schema>;
}

/** A fetcher with nothing to serve: every selector resolves to no items. */
export const EMPTY_FETCHER: RequiredResourceFetcher = {
  fetchResources: () => Promise.resolve({}),
  fetchSchema: () => Promise.resolve({}),
};

function isEmpty(r: Requirements | undefined): boolean {
  if (r === undefined) return true;
  return [r.extraResources, r.resources, r.schemas].every((m) => m === undefined || Object.keys(m).length === 0);
}

async function fetchAll<S, T>(
  selectors: Record<string, S> | undefined,
  fetch: (s: S, name: string) => Promise<T>,
  base: Record<string, T> = {},
): Promise<Record<string, T>> {
  const out: Record<string, T> = { ...base };
  for (const [name, selector] of Object.entries(selectors ?? {})) out[name] = await fetch(selector, name);
  return out;
}

function checkSelectorCount(r: Requirements | undefined): void {
  const count = Object.keys(r?.resources ?? {}).length + Object.keys(r?.extraResources ?? {}).length;
  if (count > MAX_REQUIRED_SELECTORS) {
    throw new RequirementsLimitError(
      `asked for ${count} required resource selectors, more than ${MAX_REQUIRED_SELECTORS}`,
    );
  }
}

/**
 * Fetches one selector's resources within what is left of the call's object budget, and checks how deeply they
 * nest before anything walks them recursively.
 */
function budgeted(
  fetcher: RequiredResourceFetcher,
  budget: { left: number },
): (selector: ResourceSelector, name: string) => Promise<Resources> {
  return async (selector, name) => {
    const resources = await fetcher.fetchResources(selector, budget.left);
    const items = resources.items ?? [];
    if (items.length > budget.left) {
      throw new RequirementsLimitError(
        `required resources "${name}" (${selector.kind ?? ''} ${selector.apiVersion ?? ''}) bring the objects of one call past ${MAX_REQUIRED_RESOURCES}: select fewer with matchLabels or a namespace`,
      );
    }
    budget.left -= items.length;
    for (const item of items) assertNesting(item.resource, `required resource "${name}"`);
    return resources;
  };
}

/** Objects of `base` that stay in the request: those no selector of this round fetches again. */
function keptItems(
  base: Record<string, Resources> | undefined,
  selectors: Record<string, unknown> | undefined,
): number {
  let count = 0;
  for (const [name, r] of Object.entries(base ?? {})) if (!(name in (selectors ?? {}))) count += r.items?.length ?? 0;
  return count;
}

type Resolved = Pick<RunFunctionRequest, 'extraResources' | 'requiredResources' | 'requiredSchemas'>;

function alreadySent(sent: RunFunctionRequest, resolved: Resolved): boolean {
  return (['extraResources', 'requiredResources', 'requiredSchemas'] as const).every((key) =>
    sameMessage(sent[key] ?? {}, resolved[key] ?? {}),
  );
}

export class RequirementsRunner implements FunctionRunner {
  /** memory: what each step of this XR is seeded with on its first call (none: nothing is seeded). */
  constructor(
    private readonly inner: FunctionRunner,
    private readonly fetcher: RequiredResourceFetcher,
    private readonly memory?: RequirementsMemory,
  ) {}

  async run(call: FunctionCall): Promise<RunFunctionResponse> {
    const bootstrapped = await this.bootstrapped(call);
    const input = stepFingerprint(call);
    const seed = await this.seeded(call, input, bootstrapped);
    const first = seed?.request ?? bootstrapped;
    let request = first;
    // Seeded with last run's requirements, the loop ends after one call when the function asks for them again.
    let previous: Requirements | undefined = seed?.requirements;
    for (let i = 0; i <= MAX_REQUIREMENTS_ITERATIONS; i++) {
      const rsp = await this.inner.run({ ...call, request });
      // Nothing is remembered from a FATAL response: the function did not get to act on its requirements.
      if ((rsp.results ?? []).some((r) => r.severity === 'SEVERITY_FATAL')) return rsp;
      const requirements = isEmpty(rsp.requirements) ? undefined : rsp.requirements;
      if (sameMessage(requirements, previous)) return this.remember(call, input, requirements, rsp);
      previous = requirements;
      // Each round starts again from the bootstrapped request: what an earlier round fetched is not kept.
      const resolved = await this.resolve(call, requirements, bootstrapped);
      // The first call was seeded (bootstrap requirements) with exactly what it asks for.
      if (i === 0 && alreadySent(first, resolved)) return this.remember(call, input, requirements, rsp);
      request = { ...request, ...resolved, context: rsp.context };
    }
    throw new FunctionCallError(
      call.functionName,
      call.step,
      `requirements didn't stabilize after the maximum number of iterations (${MAX_REQUIREMENTS_ITERATIONS})`,
    );
  }

  private remember(
    call: FunctionCall,
    input: string,
    requirements: Requirements | undefined,
    rsp: RunFunctionResponse,
  ): RunFunctionResponse {
    this.memory?.set(call.step ?? call.functionName, input, requirements);
    return rsp;
  }

  /**
   * The first request with what the step required last run fetched into it, as the loop would fetch it for a
   * second call: those reads replace the second call's. Best effort, as upstream's: when they cannot be fetched
   * (a kind since uninstalled, past a bound) the first call goes unseeded and the loop asks the function.
   */
  private async seeded(
    call: FunctionCall,
    input: string,
    bootstrapped: RunFunctionRequest,
  ): Promise<{ request: RunFunctionRequest; requirements: Requirements } | undefined> {
    const requirements = this.memory?.get(call.step ?? call.functionName, input);
    if (requirements === undefined) return undefined;
    try {
      const resolved = await this.resolve(call, requirements, bootstrapped);
      return { request: { ...bootstrapped, ...resolved }, requirements };
    } catch {
      return undefined;
    }
  }

  /**
   * The first request: what the step declares in `requirements` is fetched and sent with it, as Crossplane v2.2 does,
   * so a function that knows what it needs is called once instead of twice.
   */
  private async bootstrapped(call: FunctionCall): Promise<RunFunctionRequest> {
    if (call.bootstrap === undefined) return call.request;
    const { resources, schemas } = bootstrapSelectors(call.bootstrap);
    const resolved = await this.resolve(call, { resources, schemas }, call.request);
    const request: RunFunctionRequest = { ...call.request };
    if (Object.keys(resources).length > 0) request.requiredResources = resolved.requiredResources;
    if (Object.keys(schemas).length > 0) request.requiredSchemas = resolved.requiredSchemas;
    return request;
  }

  private async resolve(
    call: FunctionCall,
    r: Requirements | undefined,
    seeded: RunFunctionRequest,
  ): Promise<Resolved> {
    try {
      checkSelectorCount(r);
      const kept =
        keptItems(seeded.extraResources, r?.extraResources) + keptItems(seeded.requiredResources, r?.resources);
      const fetchResources = budgeted(this.fetcher, { left: Math.max(0, MAX_REQUIRED_RESOURCES - kept) });
      return {
        extraResources: await fetchAll(r?.extraResources, fetchResources, seeded.extraResources),
        requiredResources: await fetchAll(r?.resources, fetchResources, seeded.requiredResources),
        requiredSchemas: await fetchAll(r?.schemas, (s) => this.fetcher.fetchSchema(s), seeded.requiredSchemas),
      };
    } catch (err) {
      const detail = `cannot fetch required resources: ${errorMessage(err)}`;
      throw new FunctionCallError(call.functionName, call.step, detail, { cause: err });
    }
  }
}

/**
 * What a step runs, as the requirements memory tells one step from another under the same name: its function and
 * its input. A Composition edited to give the step another input (or function) asks the function afresh rather than
 * sending it what the old input asked for; the input is small, so digesting it per call costs little.
 */
export function stepFingerprint(call: Pick<FunctionCall, 'functionName' | 'request'>): string {
  return digest({ functionName: call.functionName, input: call.request.input ?? null });
}

/** A step's declared requirements as the selectors a function would send for them. */
export function bootstrapSelectors(r: StepRequirements): {
  resources: Record<string, ResourceSelector>;
  schemas: Record<string, SchemaSelector>;
} {
  const resources: Record<string, ResourceSelector> = {};
  for (const { requirementName, apiVersion, kind, name, matchLabels, namespace } of r.requiredResources ?? []) {
    const selector: ResourceSelector = { apiVersion, kind };
    if (name !== undefined) selector.matchName = name;
    else selector.matchLabels = { labels: matchLabels ?? {} };
    if (namespace !== undefined) selector.namespace = namespace;
    resources[requirementName] = selector;
  }
  const schemas: Record<string, SchemaSelector> = {};
  for (const { requirementName, apiVersion, kind } of r.requiredSchemas ?? [])
    schemas[requirementName] = { apiVersion, kind };
  return { resources, schemas };
}
