import type { KubeClient } from './client.js';
import { isNotFound } from './errors.js';

export interface ResourceInfo {
  /** e.g. "/apis/apps/v1" or "/api/v1". */
  groupVersionPath: string;
  plural: string;
  namespaced: boolean;
}

/** The kind is not served (yet): its CRD may still be on its way, so callers typically retry. */
export class KindNotServedError extends Error {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(`kind ${kind} of ${apiVersion} is not served by the API server`);
    this.name = 'KindNotServedError';
  }
}

interface ApiResourceList {
  resources: { name: string; kind: string; namespaced: boolean }[];
}

/**
 * Maps apiVersion + kind to its REST path through the discovery API, caching each group-version's list. A kind
 * missing from a cached list triggers one refetch, because CRDs are installed at run time.
 */
export class Discovery {
  private readonly cache = new Map<string, ApiResourceList | undefined>();

  constructor(private readonly client: KubeClient) {}

  async resolve(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const groupVersionPath = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    let list = this.cache.get(groupVersionPath) ?? (await this.fetch(groupVersionPath));
    let resource = find(list, kind);
    if (!resource && this.cache.has(groupVersionPath)) {
      list = await this.fetch(groupVersionPath);
      resource = find(list, kind);
    }
    if (!resource) throw new KindNotServedError(apiVersion, kind);
    return { groupVersionPath, plural: resource.name, namespaced: resource.namespaced };
  }

  /** The path of one object, or of the collection when name is undefined. */
  async path(apiVersion: string, kind: string, name: string | undefined, namespace?: string): Promise<string> {
    const info = await this.resolve(apiVersion, kind);
    const scope = info.namespaced ? `/namespaces/${namespace ?? 'default'}` : '';
    return `${info.groupVersionPath}${scope}/${info.plural}${name === undefined ? '' : `/${name}`}`;
  }

  private async fetch(groupVersionPath: string): Promise<ApiResourceList | undefined> {
    try {
      const list = await this.client.request<ApiResourceList>('GET', groupVersionPath);
      this.cache.set(groupVersionPath, list);
      return list;
    } catch (err) {
      if (isNotFound(err)) {
        this.cache.set(groupVersionPath, undefined);
        return undefined;
      }
      throw err;
    }
  }
}

function find(list: ApiResourceList | undefined, kind: string): ApiResourceList['resources'][number] | undefined {
  // Subresources ("deployments/status") share the kind; the top-level resource has no slash.
  return list?.resources.find((resource) => resource.kind === kind && !resource.name.includes('/'));
}
