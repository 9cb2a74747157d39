// The requirements loop (Crossplane's FetchingFunctionRunner): the step's declared requirements (bootstrap) are
// fetched and sent on the first call; then, while a function's requirements change, fetch what it asks for and call it
// again, at most 5 extra calls. The request's meta.tag is not recomputed between calls.
import { errorMessage } from '../base/index.js';
import { FunctionCallError } from './errors.js';
import { sameMessage } from './hash.js';
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

/** Serves required resources, from the watch cache or the API server. */
export interface RequiredResourceFetcher {
  /** matchName: the object (or no items when absent); otherwise every match sorted by namespace/name. */
  fetchResources(selector: ResourceSelector): Promise<Resources>;
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
  fetch: (s: S) => Promise<T>,
  base: Record<string, T> = {},
): Promise<Record<string, T>> {
  const out: Record<string, T> = { ...base };
  for (const [name, selector] of Object.entries(selectors ?? {})) out[name] = await fetch(selector);
  return out;
}

type Resolved = Pick<RunFunctionRequest, 'extraResources' | 'requiredResources' | 'requiredSchemas'>;

function alreadySent(sent: RunFunctionRequest, resolved: Resolved): boolean {
  return (['extraResources', 'requiredResources', 'requiredSchemas'] as const).every((key) =>
    sameMessage(sent[key] ?? {}, resolved[key] ?? {}),
  );
}

export class RequirementsRunner implements FunctionRunner {
  constructor(
    private readonly inner: FunctionRunner,
    private readonly fetcher: RequiredResourceFetcher,
  ) {}

  async run(call: FunctionCall): Promise<RunFunctionResponse> {
    const seeded = await this.bootstrapped(call);
    let request: RunFunctionRequest = seeded;
    let previous: Requirements | undefined;
    for (let i = 0; i <= MAX_REQUIREMENTS_ITERATIONS; i++) {
      const rsp = await this.inner.run({ ...call, request });
      if ((rsp.results ?? []).some((r) => r.severity === 'SEVERITY_FATAL')) return rsp;
      const requirements = isEmpty(rsp.requirements) ? undefined : rsp.requirements;
      if (sameMessage(requirements, previous)) return rsp;
      previous = requirements;
      const resolved = await this.resolve(call, requirements, seeded);
      // The first call was seeded (bootstrap requirements, last reconcile's) with exactly what it asks for.
      if (i === 0 && alreadySent(seeded, resolved)) return rsp;
      request = { ...request, ...resolved, context: rsp.context };
    }
    throw new FunctionCallError(
      call.functionName,
      call.step,
      `requirements didn't stabilize after the maximum number of iterations (${MAX_REQUIREMENTS_ITERATIONS})`,
    );
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
      const fetchResources = (s: ResourceSelector): Promise<Resources> => this.fetcher.fetchResources(s);
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
