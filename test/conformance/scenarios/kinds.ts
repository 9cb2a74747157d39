// Finds the API resource of an object from its apiVersion and kind, or from its kind alone (as a scenario's
// `kind: ClusterRole` or `kinds: [Deployment, Service]` names it), asking the API server's discovery again when a
// kind is not known yet (a CRD just created).
import type { KubeClient, KubeObject } from '../../../src/kube/index.js';

export interface KindInfo {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

interface ResourceList {
  groupVersion: string;
  resources: { name: string; kind: string; namespaced: boolean }[];
}

interface GroupList {
  groups: { preferredVersion: { groupVersion: string }; versions: { groupVersion: string }[] }[];
}

export class Kinds {
  /** By "apiVersion/kind", and by kind alone for the preferred version. */
  private byGvk = new Map<string, KindInfo>();
  private byKind = new Map<string, KindInfo>();

  constructor(private readonly client: KubeClient) {}

  async resolve(apiVersion: string, kind: string): Promise<KindInfo> {
    const key = `${apiVersion}/${kind}`;
    if (!this.byGvk.has(key)) await this.refresh();
    const info = this.byGvk.get(key);
    if (!info) throw new Error(`${kind}.${apiVersion} is not served by the API server`);
    return info;
  }

  async resolveKind(kind: string): Promise<KindInfo> {
    if (!this.byKind.has(kind)) await this.refresh();
    const info = this.byKind.get(kind);
    if (!info) throw new Error(`no API serves kind ${kind}`);
    return info;
  }

  /** The URL of a collection (name undefined) or of one object; namespaced objects default to "default". */
  async path(object: Pick<KubeObject, 'apiVersion' | 'kind'> & { metadata?: KubeObject['metadata'] }): Promise<string> {
    const info = await this.resolve(object.apiVersion, object.kind);
    return collectionPath(info, object.metadata?.namespace, object.metadata?.name);
  }

  private async refresh(): Promise<void> {
    const groups = await this.client.request<GroupList>('GET', '/apis');
    const lists = await Promise.all([
      this.client.request<ResourceList>('GET', '/api/v1'),
      ...groups.groups.flatMap((g) =>
        g.versions.map((v) => this.client.request<ResourceList>('GET', `/apis/${v.groupVersion}`)),
      ),
    ]);
    const preferred = new Set(['v1', ...groups.groups.map((g) => g.preferredVersion.groupVersion)]);
    const byGvk = new Map<string, KindInfo>();
    const byKind = new Map<string, KindInfo>();
    for (const list of lists) {
      for (const r of list.resources) {
        if (r.name.includes('/')) continue;
        const info = { apiVersion: list.groupVersion, kind: r.kind, plural: r.name, namespaced: r.namespaced };
        byGvk.set(`${list.groupVersion}/${r.kind}`, info);
        if (preferred.has(list.groupVersion)) byKind.set(r.kind, info);
      }
    }
    this.byGvk = byGvk;
    this.byKind = byKind;
  }
}

export function collectionPath(info: KindInfo, namespace?: string, name?: string): string {
  const base = info.apiVersion.includes('/') ? `/apis/${info.apiVersion}` : `/api/${info.apiVersion}`;
  const scope = info.namespaced ? `/namespaces/${namespace ?? 'default'}` : '';
  return `${base}${scope}/${info.plural}${name === undefined ? '' : `/${name}`}`;
}
