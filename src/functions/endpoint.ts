// Where a Function is served (docs/troubleshooting.md#the-xr-is-synced-false). Resolution order: the
// compositor.crossplane.io/endpoint annotation on the Function, then the active FunctionRevision's status.endpoint,
// then the Service that Crossplane's package runtime would have created: dns:///<function-name>.<namespace>:9443.

export const ENDPOINT_ANNOTATION = 'compositor.crossplane.io/endpoint';
/** The label Crossplane puts on every FunctionRevision of a Function. */
export const PACKAGE_LABEL = 'pkg.crossplane.io/package';
export const DEFAULT_FUNCTION_PORT = 9443;

export interface FunctionObject {
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: { package?: string };
}

export interface FunctionRevisionObject {
  metadata: { name?: string; labels?: Record<string, string> };
  spec?: { desiredState?: string };
  status?: { endpoint?: string; conditions?: { type: string; status: string }[] };
}

/**
 * The gRPC target of a Function.
 *
 * @example resolveEndpoint(fn, revisions, 'crossplane-system') // 'dns:///function-x.crossplane-system:9443'
 */
export function resolveEndpoint(
  fn: FunctionObject,
  revisions: readonly FunctionRevisionObject[],
  namespace: string,
): string {
  const annotated = fn.metadata.annotations?.[ENDPOINT_ANNOTATION];
  if (annotated !== undefined && annotated !== '') return annotated;
  const active = revisions.find(
    (r) => r.metadata.labels?.[PACKAGE_LABEL] === fn.metadata.name && r.spec?.desiredState === 'Active',
  );
  const endpoint = active?.status?.endpoint;
  if (endpoint !== undefined && endpoint !== '') return endpoint;
  return `dns:///${fn.metadata.name}.${namespace}:${DEFAULT_FUNCTION_PORT}`;
}

/** Looks up a Function and its revisions, from an informer cache or the API server. */
export interface FunctionLookup {
  getFunction(name: string): Promise<FunctionObject | undefined>;
  listRevisions(name: string): Promise<readonly FunctionRevisionObject[]>;
}

export type EndpointResolver = (functionName: string) => Promise<string>;

/** An EndpointResolver over a FunctionLookup; a Function that does not exist is an error naming it. */
export function lookupEndpointResolver(lookup: FunctionLookup, namespace: string): EndpointResolver {
  return async (name) => {
    const fn = await lookup.getFunction(name);
    if (fn === undefined) throw new Error(`cannot resolve endpoint: Function "${name}" not found`);
    return resolveEndpoint(fn, await lookup.listRevisions(name), namespace);
  };
}

/** An EndpointResolver over a fixed map, for render and tests. */
export function staticEndpointResolver(endpoints: Readonly<Record<string, string>>): EndpointResolver {
  return (name) => {
    const endpoint = endpoints[name];
    if (endpoint === undefined) return Promise.reject(new Error(`cannot resolve endpoint: no endpoint for "${name}"`));
    return Promise.resolve(endpoint);
  };
}
