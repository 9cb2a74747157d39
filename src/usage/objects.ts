import type { ReconciledObject } from '../controller/index.js';
import { CONTENT_TYPE, getIfExists, isNotFound, type Discovery, type KubeClient } from '../kube/index.js';
import type { ResourceSelector, UsedObject } from './types.js';

/** Reads and writes the objects Usages name, whatever their kind, through discovery. */
export class UsageObjects {
  constructor(
    private readonly client: KubeClient,
    private readonly discovery: Discovery,
  ) {}

  /** Whether the kind is namespaced; throws KindNotServedError when the API server does not serve it. */
  async namespaced(apiVersion: string, kind: string): Promise<boolean> {
    return (await this.discovery.resolve(apiVersion, kind)).namespaced;
  }

  async get(target: UsedObject, signal?: AbortSignal): Promise<ReconciledObject | undefined> {
    const path = await this.discovery.path(target.apiVersion, target.kind, target.name, target.namespace);
    return getIfExists<ReconciledObject>(this.client, path, signal);
  }

  /**
   * Objects of a kind carrying every label of the selector, in `namespace` (every namespace when undefined and the
   * kind is namespaced), in the API server's order.
   */
  async list(
    of: { apiVersion: string; kind: string; selector: ResourceSelector },
    namespace: string | undefined,
    signal?: AbortSignal,
  ): Promise<ReconciledObject[]> {
    const info = await this.discovery.resolve(of.apiVersion, of.kind);
    const scope = info.namespaced && namespace ? `/namespaces/${namespace}` : '';
    const labelSelector = Object.entries(of.selector.matchLabels ?? {})
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
    const list = await this.client.request<{ items?: ReconciledObject[] }>(
      'GET',
      `${info.groupVersionPath}${scope}/${info.plural}`,
      { query: labelSelector ? { labelSelector } : {}, signal },
    );
    return list.items ?? [];
  }

  /** A JSON merge patch of the object, or of its status subresource (a `null` removes a key). */
  async mergePatch(
    target: UsedObject,
    patch: unknown,
    options: { status?: boolean; signal?: AbortSignal } = {},
  ): Promise<ReconciledObject> {
    return this.patch(target, { body: patch, contentType: CONTENT_TYPE.mergePatch, ...options });
  }

  /** A JSON patch (RFC 6902) of the object: the finalizer patches, whose tests guard against lost entries. */
  async jsonPatch(target: UsedObject, patch: unknown, signal?: AbortSignal): Promise<ReconciledObject> {
    return this.patch(target, { body: patch, contentType: CONTENT_TYPE.jsonPatch, signal });
  }

  /** Deletes the object with a propagation policy; an object already gone is no failure. */
  async delete(target: UsedObject, propagationPolicy: string, signal?: AbortSignal): Promise<void> {
    const path = await this.discovery.path(target.apiVersion, target.kind, target.name, target.namespace);
    try {
      await this.client.request('DELETE', path, {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy },
        signal,
      });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private async patch(
    target: UsedObject,
    options: { body: unknown; contentType: string; status?: boolean; signal?: AbortSignal },
  ): Promise<ReconciledObject> {
    const path = await this.discovery.path(target.apiVersion, target.kind, target.name, target.namespace);
    const { body, contentType, signal } = options;
    return this.client.request<ReconciledObject>('PATCH', options.status ? `${path}/status` : path, {
      body,
      contentType,
      signal,
    });
  }
}

/** The reference of an object as a UsedObject. */
export function refOf(object: ReconciledObject): UsedObject {
  const { name, namespace } = object.metadata;
  return { apiVersion: object.apiVersion, kind: object.kind, name, ...(namespace ? { namespace } : {}) };
}
