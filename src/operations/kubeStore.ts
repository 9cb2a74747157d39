// The OpsStore of a running process: the API server through compositor's raw-JSON client. The three ops kinds are
// cluster-scoped, so their paths are fixed; what an Operation applies goes through discovery.
import {
  CONTENT_TYPE,
  getIfExists,
  isConflict,
  isNotFound,
  serverSideApply,
  type Discovery,
  type KubeClient,
} from '../kube/index.js';
import type { OwnWrites } from '../circuitbreaker/index.js';
import { PACKAGE_LABEL } from '../functions/index.js';
import type { ActiveRevisionLookup } from './capabilities.js';
import type { AppliedObject, OpsKind, OpsObject, OpsObjectOf, OpsStore } from './store.js';
import { OPS_API_VERSION, type Operation } from './types.js';

const PLURALS: Record<OpsKind, string> = {
  Operation: 'operations',
  CronOperation: 'cronoperations',
  WatchOperation: 'watchoperations',
};

function pathOf(kind: OpsKind, name?: string): string {
  const base = `/apis/${OPS_API_VERSION}/${PLURALS[kind]}`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

function selectorOf(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

export interface KubeOpsStoreOptions {
  /**
   * Runs each apply of what an Operation returns and records what was written: the engine's OwnWrites, so that a
   * WatchOperation does not start an Operation for the echo of an Operation's own write, even when the API server
   * delivers the echo before the apply's response (the watch holds events about an object while a write is in flight).
   */
  ownWrites?: Pick<OwnWrites, 'track'>;
}

export class KubeOpsStore implements OpsStore {
  constructor(
    private readonly client: KubeClient,
    private readonly discovery: Discovery,
    private readonly options: KubeOpsStoreOptions = {},
  ) {}

  get<K extends OpsKind>(kind: K, name: string, signal: AbortSignal): Promise<OpsObjectOf<K> | undefined> {
    return getIfExists<OpsObjectOf<K>>(this.client, pathOf(kind, name), signal);
  }

  async listOperations(label: string, owner: string, signal: AbortSignal): Promise<Operation[]> {
    const list = await this.client.request<{ items?: Operation[] }>('GET', pathOf('Operation'), {
      query: { labelSelector: selectorOf({ [label]: owner }) },
      signal,
    });
    // A list's items carry no apiVersion and kind.
    return (list.items ?? []).map((op) => ({ ...op, apiVersion: OPS_API_VERSION, kind: 'Operation' }));
  }

  createOperation(op: Operation, signal: AbortSignal): Promise<Operation> {
    return this.client.request<Operation>('POST', pathOf('Operation'), { body: op, signal });
  }

  async deleteOperation(op: Operation, signal: AbortSignal): Promise<void> {
    const uid = op.metadata.uid;
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', ...(uid ? { preconditions: { uid } } : {}) };
    await this.client
      .request('DELETE', pathOf('Operation', op.metadata.name), { body, signal })
      .catch((err: unknown) => {
        // Gone already, or a new Operation of that name that is not this one to delete.
        if (!isNotFound(err) && !(uid !== undefined && isConflict(err))) throw err;
      });
  }

  updateStatus<T extends OpsObject>(object: T, signal: AbortSignal): Promise<T> {
    return this.client.request<T>('PUT', `${pathOf(object.kind, object.metadata.name)}/status`, {
      body: object,
      signal,
    });
  }

  patchMetadata<T extends OpsObject>(
    object: T,
    patch: { annotations?: Record<string, string | null>; finalizers?: string[] },
    signal: AbortSignal,
  ): Promise<T> {
    // A resourceVersion in a merge patch is a precondition: the API server answers 409 when it is not current.
    const metadata = { resourceVersion: object.metadata.resourceVersion, ...patch };
    return this.client.request<T>('PATCH', pathOf(object.kind, object.metadata.name), {
      body: { metadata },
      contentType: CONTENT_TYPE.mergePatch,
      signal,
    });
  }

  async apply(object: AppliedObject, fieldManager: string, signal: AbortSignal): Promise<void> {
    const write = (): Promise<AppliedObject> =>
      serverSideApply(this.client, this.discovery, object, { fieldManager, signal });
    await (this.options.ownWrites ? this.options.ownWrites.track(object, write) : write());
  }

  async getSecret(namespace: string, name: string, signal: AbortSignal): Promise<Record<string, string> | undefined> {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`;
    const secret = await getIfExists<{ data?: Record<string, string> }>(this.client, path, signal);
    return secret ? (secret.data ?? {}) : undefined;
  }
}

/** The FunctionRevision fields the capability check reads. */
interface FunctionRevision {
  metadata: { name: string };
  spec?: { desiredState?: string };
  status?: { capabilities?: string[] };
}

/**
 * Finds a Function's active FunctionRevision through its `pkg.crossplane.io/package` label, as upstream's
 * RevisionCapabilityChecker does, with the capabilities its package declared.
 */
export function kubeActiveRevision(client: KubeClient): ActiveRevisionLookup {
  return async (functionName, signal) => {
    const list = await client.request<{ items?: FunctionRevision[] }>(
      'GET',
      '/apis/pkg.crossplane.io/v1/functionrevisions',
      {
        query: { labelSelector: `${PACKAGE_LABEL}=${functionName}` },
        signal,
      },
    );
    const active = (list.items ?? []).find((r) => r.spec?.desiredState === 'Active');
    const capabilities = active?.status?.capabilities ?? [];
    // No capabilities listed: the package's metadata could not be read (compositor's package controller says why in
    // the revision's PackageMetadata condition; a package that declares none lists "composition", as upstream's), so
    // nothing is known to refuse, as with no revision.
    return active && capabilities.length > 0 ? { name: active.metadata.name, capabilities } : undefined;
  };
}
