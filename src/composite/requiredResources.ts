import type { JsonObject, RequiredResourceFetcher, ResourceSelector, Resources } from '../functions/index.js';
import { getIfExists, type Discovery, type KubeClient, type KubeObject } from '../kube/index.js';
import { OpenApiSchemas } from './requiredSchemas.js';

// One OpenApiSchemas per API connection, so each group-version's OpenAPI document is read once per change of it.
const openApiSchemas = new WeakMap<KubeClient, OpenApiSchemas>();

function schemasOf(client: KubeClient): OpenApiSchemas {
  let schemas = openApiSchemas.get(client);
  if (schemas === undefined) {
    schemas = new OpenApiSchemas(client);
    openApiSchemas.set(client, schemas);
  }
  return schemas;
}

/**
 * A resource an XR's pipeline required, as the API was asked for it: by name, or by labels (in one namespace, or
 * cluster-wide). The composite controller watches these so a change to a required resource reconciles the XR at
 * once instead of at the next poll or TTL.
 */
export interface RequiredWatch {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  labels?: Record<string, string>;
}

export interface FetchScope {
  /** The XR's namespace: namespaced kinds without a namespace in the selector are looked up there. */
  namespace: string | undefined;
  signal?: AbortSignal;
  /** Called with every selector served, resolved to what was asked of the API. */
  record?: (watch: RequiredWatch) => void;
}

/**
 * Serves the resources functions require (required_resources) from the API server. A namespaced kind without a
 * namespace in the selector is looked up in the XR's namespace, so a namespaced XR only sees its own namespace.
 * Schemas come from the API server's OpenAPI v3 documents, references flattened (requiredSchemas.ts).
 */
export function apiResourceFetcher(
  client: KubeClient,
  discovery: Discovery,
  scope: FetchScope,
): RequiredResourceFetcher {
  return {
    async fetchResources(selector: ResourceSelector, maxItems?: number): Promise<Resources> {
      const { apiVersion = '', kind = '' } = selector;
      const info = await discovery.resolve(apiVersion, kind);
      const namespace = info.namespaced ? (selector.namespace ?? scope.namespace) : undefined;
      const watch: RequiredWatch =
        selector.matchName !== undefined
          ? { apiVersion, kind, namespace, name: selector.matchName }
          : { apiVersion, kind, namespace, labels: selector.matchLabels?.labels ?? {} };
      scope.record?.(watch);
      if (watch.name !== undefined) {
        const path = await discovery.path(apiVersion, kind, watch.name, namespace);
        const resource = await getIfExists<JsonObject>(client, path, scope.signal);
        return { items: resource ? [{ resource }] : [] };
      }
      const prefix = namespace === undefined ? '' : `/namespaces/${namespace}`;
      const path = `${info.groupVersionPath}${prefix}/${info.plural}`;
      return listSelected(client, path, watch, { maxItems, signal: scope.signal });
    },
    fetchSchema: (selector) => schemasOf(client).fetch(selector, scope.signal),
  };
}

/**
 * Lists by label selector; items come back with their type and in a stable order. With maxItems, one page of
 * maxItems + 1 is asked for: a selector that matches a whole cluster costs the API server one bounded page, and the
 * caller sees that there are more than it takes.
 */
async function listSelected(
  client: KubeClient,
  path: string,
  watch: RequiredWatch,
  { maxItems, signal }: { maxItems: number | undefined; signal: AbortSignal | undefined },
): Promise<Resources> {
  const query = labelSelector(watch.labels ?? {});
  const found: KubeObject[] = [];
  let next: string | undefined;
  do {
    // The API server may return a short page with a continue token, so pages are followed until past the limit.
    const limit = maxItems === undefined ? undefined : String(maxItems + 1 - found.length);
    const page = await client.request<{ items?: KubeObject[]; metadata?: { continue?: string } }>('GET', path, {
      query: { labelSelector: query || undefined, limit, continue: next },
      signal,
    });
    for (const item of page.items ?? []) found.push(item);
    next = page.metadata?.continue || undefined;
  } while (next !== undefined && maxItems !== undefined && found.length <= maxItems);
  const items = found
    .map((item) => ({ ...item, apiVersion: watch.apiVersion, kind: watch.kind }))
    .sort((a, b) => order(a).localeCompare(order(b)));
  return { items: items.map((resource) => ({ resource: resource as unknown as JsonObject })) };
}

/** True when an object of the watched kind is one the requirement selects. */
export function isRequired(watch: RequiredWatch, object: KubeObject): boolean {
  const { metadata } = object;
  if (watch.namespace !== undefined && metadata.namespace !== watch.namespace) return false;
  if (watch.name !== undefined) return metadata.name === watch.name;
  const labels = (metadata.labels ?? {}) as Record<string, string>;
  return Object.entries(watch.labels ?? {}).every(([key, value]) => labels[key] === value);
}

function labelSelector(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

function order(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}
