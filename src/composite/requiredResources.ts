import type { JsonObject, RequiredResourceFetcher, ResourceSelector, Resources } from '../functions/index.js';
import { getIfExists, type Discovery, type KubeClient, type KubeObject } from '../kube/index.js';

/**
 * Serves the resources functions require (required_resources) from the API server. A namespaced kind without a
 * namespace in the selector is looked up in the XR's namespace, so a namespaced XR only sees its own namespace.
 * Schemas are not served yet (an empty Schema, which functions treat as unknown).
 */
export function apiResourceFetcher(
  client: KubeClient,
  discovery: Discovery,
  xrNamespace: string | undefined,
  signal?: AbortSignal,
): RequiredResourceFetcher {
  return {
    async fetchResources(selector: ResourceSelector): Promise<Resources> {
      const { apiVersion = '', kind = '' } = selector;
      const info = await discovery.resolve(apiVersion, kind);
      const namespace = info.namespaced ? (selector.namespace ?? xrNamespace) : undefined;
      if (selector.matchName !== undefined) {
        const path = await discovery.path(apiVersion, kind, selector.matchName, namespace);
        const resource = await getIfExists<JsonObject>(client, path, signal);
        return { items: resource ? [{ resource }] : [] };
      }
      const labels = labelSelector(selector);
      const scope = namespace === undefined ? '' : `/namespaces/${namespace}`;
      const list = await client.request<{ items?: KubeObject[] }>(
        'GET',
        `${info.groupVersionPath}${scope}/${info.plural}`,
        { query: { labelSelector: labels || undefined }, signal },
      );
      const items = (list.items ?? [])
        .map((item) => ({ ...item, apiVersion, kind }))
        .sort((a, b) => order(a).localeCompare(order(b)));
      return { items: items.map((resource) => ({ resource: resource as unknown as JsonObject })) };
    },
    fetchSchema: () => Promise.resolve({}),
  };
}

function labelSelector(selector: ResourceSelector): string {
  return Object.entries(selector.matchLabels?.labels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

function order(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}
