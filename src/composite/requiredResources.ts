import type { JsonObject, RequiredResourceFetcher, ResourceSelector, Resources } from '../functions/index.js';
import { getIfExists, type Discovery, type KubeClient, type KubeObject } from '../kube/index.js';
import { NAMESPACE_INDEX, objectKey, type ObjectStore } from '../watch/index.js';
import type { RequiredCache } from './requiredKinds.js';
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
  /**
   * The informer caches of required kinds: a kind's synced cache answers every lookup, with what the API server
   * would return, in the same order. Without it, or before a kind's cache has synced, lookups go to the API server.
   */
  cache?: RequiredCache;
}

/**
 * Serves the resources functions require (required_resources) from the informer caches, or the API server. A
 * namespaced kind without a namespace in the selector is looked up in the XR's namespace, so a namespaced XR only
 * sees its own namespace. Schemas come from the API server's OpenAPI v3 documents, references flattened
 * (requiredSchemas.ts).
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
      const watch = requiredWatchOf(selector, info.namespaced ? (selector.namespace ?? scope.namespace) : undefined);
      scope.record?.(watch);
      const cached = await scope.cache?.read({ apiVersion, kind }, (store) => selectCached(store, watch, maxItems));
      if (cached !== undefined) return cached;
      const { namespace } = watch;
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

/** A selector resolved to what is asked of the API: by name or by labels, in `namespace` or cluster-wide. */
function requiredWatchOf(selector: ResourceSelector, namespace: string | undefined): RequiredWatch {
  const { apiVersion = '', kind = '' } = selector;
  return selector.matchName !== undefined
    ? { apiVersion, kind, namespace, name: selector.matchName }
    : { apiVersion, kind, namespace, labels: selector.matchLabels?.labels ?? {} };
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
  return typedAndSorted(found, watch);
}

/**
 * What the API server would answer from a synced cache: by name the object, or none; by labels every match, or with
 * maxItems the first maxItems + 1 in the order a list pages them (by namespace, then name), which is all the caller
 * needs to see that there are more than it takes. Cached objects lack metadata.managedFields (src/watch/trim.ts), as
 * Crossplane's cache strips them too.
 */
function selectCached(store: ObjectStore, watch: RequiredWatch, maxItems: number | undefined): Resources {
  if (watch.name !== undefined) {
    const object = store.get(objectKey({ metadata: { name: watch.name, namespace: watch.namespace } }));
    return typedAndSorted(object ? [object] : [], watch);
  }
  const candidates = watch.namespace === undefined ? store.list() : store.byIndex(NAMESPACE_INDEX, watch.namespace);
  const found = typedAndSorted(
    candidates.filter((object) => isRequired(watch, object)),
    watch,
  );
  if (maxItems !== undefined) found.items = found.items?.slice(0, maxItems + 1);
  return found;
}

/** Items with the type they were asked for (items of a list of a built-in kind arrive without it), in a stable order. */
function typedAndSorted(found: readonly KubeObject[], watch: RequiredWatch): Resources {
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
