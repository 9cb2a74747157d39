import { backoffDelay, systemClock, type Backoff, type Clock } from '../base/index.js';
import type { OwnWrites } from '../circuitbreaker/index.js';
import {
  ApiError,
  CONTENT_TYPE,
  FIELD_MANAGERS,
  isNotFound,
  removeFinalizerPatch,
  serverSideApply,
  type KubeClient,
  type ResourceInfo,
} from '../kube/index.js';
import type { ManagedResource } from './types.js';

export const MANAGED_FINALIZER = 'finalizer.managedresource.crossplane.io';
/** The field manager of every write compositor makes to a managed resource. */
export const MANAGED_FIELD_MANAGER = FIELD_MANAGERS.managed;

/** Retries of a critical annotation write: client-go's DefaultBackoff (10 ms, x5, 4 steps), capped at 1 s. */
const CRITICAL_RETRY: Backoff = { baseMs: 10, capMs: 1_000, factor: 5 };
const CRITICAL_RETRY_STEPS = 4;

/**
 * Every write the managed reconciler makes to an MR, each recorded as its own so its watch event (the echo)
 * triggers no reconcile. Which write carries a resourceVersion precondition is part of the contract:
 * `update` (a PUT of the cached object) and a finalizer change fail with 409 on a stale cache; annotation patches
 * and the status apply do not, they set only keys compositor owns.
 */
export class ManagedWriter {
  constructor(
    private readonly client: KubeClient,
    private readonly resource: ResourceInfo,
    private readonly ownWrites: OwnWrites,
    /** The pause between retries of critical annotations. */
    private readonly clock: Clock = systemClock,
  ) {}

  path(mr: ManagedResource): string {
    const { groupVersionPath, plural, namespaced } = this.resource;
    const scope = namespaced ? `/namespaces/${mr.metadata.namespace ?? 'default'}` : '';
    return `${groupVersionPath}${scope}/${plural}/${mr.metadata.name}`;
  }

  /** The MR as the API server has it now, bypassing the cache; undefined when it is gone. */
  async read<T extends ManagedResource>(mr: T, signal: AbortSignal): Promise<T | undefined> {
    try {
      return await this.client.request<T>('GET', this.path(mr), { signal });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * Replaces the MR (metadata and spec) with a plain PUT carrying its resourceVersion: it fails with 409 Conflict
   * when the MR changed since it was read, which guarantees the caller acted on the latest version.
   */
  update<T extends ManagedResource>(mr: T, signal: AbortSignal): Promise<T> {
    const { status: _status, ...body } = mr;
    return this.ownWrites.track(mr, () =>
      this.client.request<T>('PUT', this.path(mr), { body, query: { fieldManager: MANAGED_FIELD_MANAGER }, signal }),
    );
  }

  /**
   * Sets annotations (null removes one) and, when given, the whole finalizer list. A finalizer change carries the
   * resourceVersion, so it cannot drop another controller's finalizer added meanwhile.
   */
  patchMetadata<T extends ManagedResource>(
    mr: T,
    change: { annotations: Record<string, string | null>; finalizers?: string[] },
    signal: AbortSignal,
  ): Promise<T> {
    const metadata: Record<string, unknown> = { annotations: change.annotations };
    if (change.finalizers) {
      metadata.finalizers = change.finalizers;
      metadata.resourceVersion = mr.metadata.resourceVersion;
    }
    return this.ownWrites.track(mr, () =>
      this.client.request<T>('PATCH', this.path(mr), {
        body: { metadata },
        contentType: CONTENT_TYPE.mergePatch,
        query: { fieldManager: MANAGED_FIELD_MANAGER },
        signal,
      }),
    );
  }

  /**
   * Annotations that must reach the API server (the create protocol's succeeded/failed, the external name): on
   * failure the write is retried a few times before giving up, as crossplane-runtime's critical annotation updater.
   */
  async patchCriticalAnnotations<T extends ManagedResource>(
    mr: T,
    annotations: Record<string, string>,
    signal: AbortSignal,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.patchMetadata(mr, { annotations }, signal);
      } catch (err) {
        if (attempt >= CRITICAL_RETRY_STEPS || isNotFound(err) || signal.aborted) throw err;
        await this.clock.sleep(backoffDelay(CRITICAL_RETRY, attempt), signal).catch(() => undefined);
      }
    }
  }

  /** Removes the finalizer; a list that moved meanwhile is reported as a conflict, an MR already gone is fine. */
  async removeFinalizer(mr: ManagedResource, signal: AbortSignal): Promise<void> {
    const patch = removeFinalizerPatch(mr.metadata.finalizers, MANAGED_FINALIZER);
    if (!patch) return;
    await this.ownWrites
      .track(mr, () =>
        this.client.request<ManagedResource>('PATCH', this.path(mr), {
          body: patch,
          contentType: CONTENT_TYPE.jsonPatch,
          signal,
        }),
      )
      .catch((err: unknown) => {
        if (isNotFound(err)) return mr;
        if (err instanceof ApiError && err.status === 422) throw new ApiError(409, 'Conflict', err.message);
        throw err;
      });
  }

  /** Server-side applies the whole status (compositor owns every status field of an MR); returns the MR written. */
  writeStatus<T extends ManagedResource>(mr: T, status: Record<string, unknown>, signal: AbortSignal): Promise<T> {
    const { namespace } = mr.metadata;
    const body = {
      apiVersion: mr.apiVersion,
      kind: mr.kind,
      metadata: { name: mr.metadata.name, ...(namespace ? { namespace } : {}) },
      status,
    };
    const options = {
      fieldManager: MANAGED_FIELD_MANAGER,
      subresource: 'status',
      echoes: this.ownWrites,
      signal,
    } as const;
    return serverSideApply<T>(this.client, this.path(mr), body, options).catch((err: unknown) => {
      // Deleted meanwhile (its finalizer removed by someone else): there is nothing left to report on.
      if (isNotFound(err)) return mr;
      throw err;
    });
  }
}

/** The finalizer list with compositor's managed-resource finalizer added (once). */
export function withManagedFinalizer(finalizers: readonly string[] | undefined): string[] {
  const list = [...(finalizers ?? [])];
  if (!list.includes(MANAGED_FINALIZER)) list.push(MANAGED_FINALIZER);
  return list;
}
