import type { Condition, StatusDraft } from '../controller/index.js';
import {
  addFinalizerPatch,
  CONTENT_TYPE,
  isNotFound,
  removeFinalizerPatch,
  serverSideApply,
  type EventSink,
  type KubeClient,
} from '../kube/index.js';
import type { CompositeResourceDefinition } from './xrd.js';

/** Crossplane's field manager for what its definition controller writes. */
export const DEFINITION_FIELD_MANAGER = 'apiextensions.crossplane.io/definition';
export const XRD = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'CompositeResourceDefinition' };

/** An XRD as the controller reads it from its cache: the metadata and status fields its writes depend on. */
export type XrdObject = CompositeResourceDefinition & {
  metadata: CompositeResourceDefinition['metadata'] & {
    finalizers?: string[];
    deletionTimestamp?: string;
    resourceVersion?: string;
  };
  status?: Record<string, unknown> & { conditions?: Condition[] };
};

/** Every write the XRD controller makes to an XRD itself: finalizers, status and events. */
export class XrdWriter {
  constructor(
    private readonly client: KubeClient,
    private readonly events: EventSink,
  ) {}

  /**
   * Adds a finalizer with a guarded JSON patch rather than an apply: the XRD's two finalizers come and go at
   * different times, and a field manager that applied one list and then another would drop the first.
   */
  async addFinalizer(xrd: XrdObject, finalizer: string): Promise<void> {
    const patch = addFinalizerPatch(xrd.metadata.finalizers, finalizer, xrd.metadata.resourceVersion);
    if (patch) await this.patch(xrd.metadata.name, patch);
  }

  /** The XRD's finalizers for one reconcile's removals. */
  finalizers(xrd: XrdObject): FinalizerList {
    return new FinalizerList(xrd, (patch) => this.patch(xrd.metadata.name, patch));
  }

  async writeStatus(xrd: XrdObject, status: StatusDraft): Promise<void> {
    if (status.unchanged()) return;
    const path = `/apis/${XRD.apiVersion}/compositeresourcedefinitions/${xrd.metadata.name}`;
    const body = { ...XRD, metadata: { name: xrd.metadata.name }, status: status.toStatus() };
    await serverSideApply(this.client, path, body, { fieldManager: DEFINITION_FIELD_MANAGER, subresource: 'status' });
  }

  event(xrd: XrdObject, type: 'Normal' | 'Warning', reason: string, text: string): void {
    this.events.event(
      { apiVersion: XRD.apiVersion, kind: XRD.kind, metadata: xrd.metadata },
      { type, reason, message: text },
    );
  }

  private async patch(name: string, patch: unknown): Promise<void> {
    await this.client
      .request('PATCH', `/apis/${XRD.apiVersion}/compositeresourcedefinitions/${name}`, {
        body: patch,
        contentType: CONTENT_TYPE.jsonPatch,
        query: { fieldManager: DEFINITION_FIELD_MANAGER },
      })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }
}

/** An XRD's finalizers as this reconcile has left them, so a second removal tests the list after the first. */
export class FinalizerList {
  private current: string[];

  constructor(
    xrd: XrdObject,
    private readonly patch: (patch: unknown) => Promise<void>,
  ) {
    this.current = [...(xrd.metadata.finalizers ?? [])];
  }

  async remove(finalizer: string): Promise<void> {
    const patch = removeFinalizerPatch(this.current, finalizer);
    if (!patch) return;
    await this.patch(patch);
    this.current = this.current.filter((f) => f !== finalizer);
  }
}

/** Deletes every object of a collection not already going; returns how many still exist. */
export async function deleteAll(
  client: KubeClient,
  collection: string,
  pathOf: (namespace: string | undefined, name: string) => string,
): Promise<number> {
  const list = await client
    .request<{ items?: { metadata: { name: string; namespace?: string; deletionTimestamp?: string } }[] }>(
      'GET',
      collection,
    )
    .catch((err: unknown) => {
      if (isNotFound(err)) return { items: [] };
      throw err;
    });
  const items = list.items ?? [];
  for (const item of items.filter((i) => !i.metadata.deletionTimestamp)) {
    await client.request('DELETE', pathOf(item.metadata.namespace, item.metadata.name)).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
  return items.length;
}
