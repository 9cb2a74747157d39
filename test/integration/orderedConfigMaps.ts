import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { condition, get, mergePatch, type XrObject } from './engine.js';

// The ConfigMaps an XR composes, by composition resource name, for the ordered composition tests: what exists, and
// the levers the test functions read (a Ready annotation) or the tests hold deletions with (a finalizer).

/** The annotation a test sets on a composed ConfigMap to make test/functions/ordering-function.ts report it Ready. */
export const READY_ANNOTATION = 'ordering.compositor.test/ready';
/** The finalizer a test holds a composed ConfigMap's deletion with. */
export const HOLD = 'ordering.compositor.test/hold';

export type ConfigMap = KubeObject & {
  metadata: KubeObject['metadata'] & {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
};

export class ComposedConfigMaps {
  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
  ) {}

  /** The XR's composed ConfigMaps by composition resource name. */
  async of(xr: string): Promise<Map<string, ConfigMap>> {
    const list = await this.client.request<{ items: ConfigMap[] }>(
      'GET',
      `/api/v1/namespaces/${this.namespace}/configmaps`,
      { query: { labelSelector: `crossplane.io/composite=${xr}` } },
    );
    // List items carry no apiVersion and kind.
    return new Map(
      list.items.map((cm) => [
        cm.metadata.annotations?.['crossplane.io/composition-resource-name'] ?? '',
        { ...cm, apiVersion: 'v1', kind: 'ConfigMap' },
      ]),
    );
  }

  /** Fails, saying what exists, unless exactly `names` (sorted) are composed. */
  async exactly(xr: string, names: string[]): Promise<true> {
    const seen = [...(await this.of(xr)).keys()].sort();
    if (JSON.stringify(seen) !== JSON.stringify(names)) throw new Error(`composed: ${JSON.stringify(seen)}`);
    return true;
  }

  async markReady(xr: string, resource: string): Promise<void> {
    await mergePatch(this.client, await this.one(xr, resource), {
      metadata: { annotations: { [READY_ANNOTATION]: 'true' } },
    });
  }

  async hold(xr: string, resource: string): Promise<void> {
    await mergePatch(this.client, await this.one(xr, resource), { metadata: { finalizers: [HOLD] } });
  }

  /** Removes the finalizers of the resource, if it is still there. */
  async release(xr: string, resource: string): Promise<void> {
    const cm = (await this.of(xr)).get(resource);
    if (cm) await mergePatch(this.client, cm, { metadata: { finalizers: null } });
  }

  /** Each composed resource and whether it is being deleted, for a failure message. */
  async summary(xr: string): Promise<string> {
    const now = await this.of(xr);
    return JSON.stringify([...now].map(([n, cm]) => [n, cm.metadata.deletionTimestamp ?? 'live']));
  }

  private async one(xr: string, resource: string): Promise<ConfigMap> {
    const cm = (await this.of(xr)).get(resource);
    if (!cm) throw new Error(`no ${resource} composed for ${xr}`);
    return cm;
  }
}

/** Resolves when the XR's Ready condition ("<status> <reason>: <message>") contains `text`, else fails saying it. */
export async function readySays(client: KubeClient, xr: XrObject, text: string): Promise<true> {
  const ready = condition(await get<XrObject>(client, xr), 'Ready');
  const seen = `${ready?.status ?? ''} ${ready?.reason ?? ''}: ${ready?.message ?? ''}`;
  if (!seen.includes(text)) throw new Error(`Ready: ${seen}`);
  return true;
}
