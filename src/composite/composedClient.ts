import type { Logger } from 'pino';
import { kindKey } from '../apis/index.js';
import {
  DELETION_ATTEMPT_ANNOTATION,
  describe,
  isApplied,
  isInUse,
  type Xr,
  type XrType,
} from '../controller/index.js';
import {
  ApiError,
  CONTENT_TYPE,
  getIfExists,
  isConflict,
  isNotFound,
  serverSideApply,
  type EventSink,
} from '../kube/index.js';
import type { ApplyDeps } from './apply.js';
import { controllerOf, RESOURCE_NAME_ANNOTATION, withoutManagedFields, type ComposedObject } from './composed.js';
import { appliesAs, composedFieldOwner, previousComposedFieldOwner, type ManagedFieldsEntry } from './fieldOwners.js';
import type { ComposedCache } from './composedCache.js';
import { mapLimited } from './limitedParallel.js';
import { controlConflict, observedOf } from './tenancy.js';
import { objectKey } from '../watch/index.js';
import type { ResourceRef } from './xr.js';

/** A lookup that reads every kind from its cache when synced. */
const NO_LIVE_READS: ReadonlySet<string> = new Set();

/** --max-concurrent-applies: composed resources one XR applies (or deletes) at once. */
export const DEFAULT_MAX_CONCURRENT_APPLIES = 8;

/** A desired composed resource, rendered: its composition resource name, the object, and its readiness. */
export interface DesiredResource {
  name: string;
  object: ComposedObject;
  ready: boolean;
}

/** What applying the desired composed resources did. */
export interface Applied {
  /** Resources the API server refused as invalid, in desired order: reported unsynced. */
  unsynced: string[];
  /** Whether any composed resource was written. */
  wrote: boolean;
  /** What those writes returned, for those whose echo is tracked: the next look waits for their echoes. */
  written: ComposedObject[];
  /** What each write returned, by resource name (what the next reconcile would observe). */
  returned: Map<string, ComposedObject>;
}

/** The composed resources of an XR as the reconciler reads, applies and deletes them. */
export interface ComposedResources {
  /** Composed resources listed in `refs` that exist and are not controlled by another object, by resource name. */
  observe(xr: Xr, refs: readonly ResourceRef[]): Promise<Map<string, ComposedObject>>;
  /** Applies each desired resource that differs from what is observed. */
  apply(
    xr: Xr,
    desired: readonly DesiredResource[],
    observed: ReadonlyMap<string, ComposedObject>,
    signal: AbortSignal,
  ): Promise<Applied>;
  /** Deletes observed resources the pipeline no longer desires; only those this XR controls. */
  collectGarbage(
    xr: Xr,
    observed: ReadonlyMap<string, ComposedObject>,
    desired: readonly { name: string }[],
    signal: AbortSignal,
  ): Promise<void>;
  /** Deletes composed resources (in the background, with a uid precondition); throws the first failure in their order. */
  delete(xr: Xr, doomed: readonly (readonly [string, ComposedObject])[], signal: AbortSignal): Promise<void>;
}

export interface ComposedClientOptions extends ApplyDeps {
  xrType: XrType;
  composed: Pick<ComposedCache, 'store' | 'readBeforeSync' | 'takeLiveReads'>;
  events: EventSink;
  logger: Logger;
  /**
   * --max-concurrent-applies: composed resources applied (or deleted) at once per XR, all through `client` and so
   * under its global rate limit. 1 applies them one after another, as Crossplane does. Default 8.
   */
  maxConcurrentApplies?: number;
}

/**
 * The ComposedResources of a running controller: reads from the informer caches (or the API server before a kind's
 * cache is synced), server-side applies under Crossplane's field owner for the XR (composedFieldOwner), then releases
 * what an earlier release applied under its own naming (releasePreviousOwner).
 */
export class ComposedClient implements ComposedResources {
  constructor(private readonly options: ComposedClientOptions) {}

  async observe(xr: Xr, refs: readonly ResourceRef[]): Promise<Map<string, ComposedObject>> {
    const observed = new Map<string, ComposedObject>();
    const live = this.options.composed.takeLiveReads(objectKey(xr));
    const found = await Promise.all(refs.filter((r) => r.name).map((ref) => this.get(xr, ref, { live })));
    for (const object of found) {
      if (!object) continue;
      // As upstream: another object's resource is treated as absent (not observed, never deleted, never applied).
      const controller = controllerOf(object);
      if (controller && controller.uid !== xr.metadata.uid) continue;
      const name = object.metadata.annotations?.[RESOURCE_NAME_ANNOTATION];
      if (name === undefined) {
        throw new Error(
          `encountered composed resource without required "${RESOURCE_NAME_ANNOTATION}" annotation: ${describe(object)}`,
        );
      }
      const seen = observed.get(name);
      observed.set(name, seen ? observedOf(xr, seen, object) : object);
    }
    return observed;
  }

  /**
   * --max-concurrent-applies at once (upstream applies them one after another). Resources in one desired state have
   * no ordering between them: a function that makes one wait for another's readiness leaves it out until then, so
   * ordering comes from successive passes. A resource that would land on an object another object controls, and one
   * the API server refuses as invalid, gets a Warning event and is reported unsynced while the others are still
   * applied (as upstream, where the API server refuses a second controller reference as invalid); any other failure
   * stops further applies and the first in desired order is thrown, once the applies in flight have settled.
   */
  async apply(
    xr: Xr,
    desired: readonly DesiredResource[],
    observed: ReadonlyMap<string, ComposedObject>,
    signal: AbortSignal,
  ): Promise<Applied> {
    const changed = desired.filter(({ name, object }) => !isApplied(object, observed.get(name)));
    const written: ComposedObject[] = [];
    const returned = new Map<string, ComposedObject>();
    const refused = await mapLimited(
      changed,
      this.limit,
      async ({ name, object }) => {
        const conflict = observed.has(name) ? undefined : await this.conflictOf(xr, name, object, signal);
        const replaced = observed.get(name)?.metadata.resourceVersion;
        const into = { signal, written, returned, replaced };
        const refusal = conflict ?? (await this.applyOne(xr, { name, object }, into));
        if (refusal === undefined) return false;
        this.options.events.event(xr, { type: 'Warning', reason: 'ComposeResources', message: refusal });
        return true;
      },
      { signal },
    );
    const unsynced = changed.filter((_, i) => refused[i]).map((d) => d.name);
    return { unsynced, wrote: returned.size > 0, written, returned };
  }

  /**
   * Why a desired resource that is not observed may not be applied: it may exist all the same (a function chose its
   * name, or it fell out of resourceRefs), and one another object controls is refused without a write (tenancy.ts).
   */
  private async conflictOf(
    xr: Xr,
    name: string,
    object: ComposedObject,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const { apiVersion, kind, metadata } = object;
    const ref = { apiVersion, kind, name: metadata.name, namespace: metadata.namespace };
    return controlConflict(xr, name, await this.get(xr, ref, { live: NO_LIVE_READS, signal }));
  }

  /** Applies one desired resource; what the API server refuses as invalid (422) comes back as the refusal. */
  private async applyOne(
    xr: Xr,
    { name, object }: Pick<DesiredResource, 'name' | 'object'>,
    into: {
      signal: AbortSignal;
      written: ComposedObject[];
      returned: Map<string, ComposedObject>;
      /** The resourceVersion of the observed copy this write replaces; undefined when there was none. */
      replaced: string | undefined;
    },
  ): Promise<string | undefined> {
    const { signal } = into;
    try {
      const trackEcho = !this.isOwnKind(object);
      const fieldManager = composedFieldOwner(xr);
      const { client, discovery, ownWrites } = this.options;
      const echoes = trackEcho ? ownWrites : undefined;
      const result = await serverSideApply<ComposedObject>(client, discovery, object, { fieldManager, echoes, signal });
      if (trackEcho) ownWrites.remember(withoutManagedFields(result), into.replaced);
      await this.releasePreviousOwner(xr, result, { signal, trackEcho });
      if (trackEcho) into.written.push(result);
      into.returned.set(name, result);
      return undefined;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 422) throw err;
      return `cannot apply composed resource "${name}": ${err.message}`;
    }
  }

  async collectGarbage(
    xr: Xr,
    observed: ReadonlyMap<string, ComposedObject>,
    desired: readonly { name: string }[],
    signal: AbortSignal,
  ): Promise<void> {
    const wanted = new Set(desired.map((d) => d.name));
    const doomed: [string, ComposedObject][] = [];
    let refusal: Error | undefined;
    for (const [name, object] of observed) {
      if (wanted.has(name)) continue;
      const controller = controllerOf(object);
      if (!controller) continue;
      if (controller.uid !== xr.metadata.uid) {
        refusal = new Error(
          `refusing to delete composed resource "${name}" that is controlled by ${controller.kind} "${controller.name}"`,
        );
        break;
      }
      if (!object.metadata.deletionTimestamp) doomed.push([name, object]);
    }
    // As a loop that stopped at the refusal: what comes before it is deleted, then the refusal fails the reconcile.
    await this.delete(xr, doomed, signal);
    if (refusal) throw refusal;
  }

  async delete(xr: Xr, doomed: readonly (readonly [string, ComposedObject])[], signal: AbortSignal): Promise<void> {
    await mapLimited(doomed, this.limit, ([name, object]) => this.deleteOne(xr, name, object, signal), { signal });
  }

  private get limit(): number {
    return this.options.maxConcurrentApplies ?? DEFAULT_MAX_CONCURRENT_APPLIES;
  }

  /**
   * A composed resource from its kind's cache, or from the API server when not synced. For a kind in `live` (its
   * first list came after this XR read or applied it) the cached copy serves only when it shows this controller's last
   * write to the object (OwnWrites); a missing or older copy may predate that write, and is read from the API server.
   * A namespaced XR reads only in its own namespace, whatever a ref says (refs are the XR's editor's to write), and
   * never a cluster-scoped kind, which it cannot compose: such a ref reads as absent. A cluster XR's refs carry their
   * namespace.
   */
  private async get(
    xr: Xr,
    ref: ResourceRef,
    { live, signal }: { live: ReadonlySet<string>; signal?: AbortSignal },
  ): Promise<ComposedObject | undefined> {
    const { discovery, client, xrType, composed } = this.options;
    const info = await discovery.resolve(ref.apiVersion, ref.kind);
    if (xrType.namespaced && !info.namespaced) return undefined;
    const namespace = xrType.namespaced ? xr.metadata.namespace : ref.namespace;
    const store = composed.store(ref.apiVersion, ref.kind);
    if (store) {
      const cached = store.get(info.namespaced && namespace ? `${namespace}/${ref.name}` : ref.name);
      // While the watch has not caught up with this controller's last write of the object, that write's result:
      // what the object is now, without an API read, and without writing the same again.
      const ahead = this.isOwnKind(ref)
        ? undefined
        : this.options.ownWrites.aheadOfCache({ ...ref, namespace }, cached);
      if (ahead !== undefined) return ahead as ComposedObject;
      if (!live.has(kindKey(ref)) || this.showsLastWrite(ref, cached)) return cached;
    }
    composed.readBeforeSync(ref.apiVersion, ref.kind, objectKey(xr));
    const path = await discovery.path(ref.apiVersion, ref.kind, ref.name, namespace);
    return getIfExists<ComposedObject>(client, path, signal);
  }

  /**
   * Whether a cached composed resource shows what this controller last wrote to it. Writes to an XR of this
   * controller's own kind are not tracked (applyOne), so such a copy never does.
   */
  private showsLastWrite(ref: ResourceRef, cached: ComposedObject | undefined): cached is ComposedObject {
    if (cached === undefined || this.isOwnKind(ref)) return false;
    return this.options.ownWrites.showsLastWrite(cached);
  }

  private async deleteOne(xr: Xr, name: string, object: ComposedObject, signal: AbortSignal): Promise<void> {
    const { client, discovery, ownWrites } = this.options;
    const path = await discovery.path(object.apiVersion, object.kind, object.metadata.name, object.metadata.namespace);
    // Whatever the outcome, what an earlier apply returned no longer says what the object is.
    ownWrites.letGo(object);
    try {
      // Background, not Foreground: a foreground deletion only marks the object (deletionTimestamp and the
      // foregroundDeletion finalizer) and leaves its removal to kube-controller-manager's garbage collector, so an XR's
      // deletion would wait on another controller's health (forever on a control plane without one). The object's own
      // finalizers still hold it, a nested XR's included; its dependents are collected after it, as under Crossplane.
      await client.request('DELETE', path, {
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          propagationPolicy: 'Background',
          preconditions: { uid: object.metadata.uid },
        },
        signal,
      });
      this.options.logger.debug({ xr: describe(xr), composed: describe(object), name }, 'deleted composed resource');
    } catch (err) {
      // Gone already, or replaced by an object with another uid that is not ours to delete.
      if (isNotFound(err) || isConflict(err)) return;
      // In use (docs/usages.md): refused until its users are gone; the XR's deletion looks again meanwhile.
      if (err instanceof ApiError && err.status === 403 && isInUse(object)) {
        await this.recordDeletionAttempt(object, path, signal);
        return;
      }
      throw err;
    }
  }

  /**
   * Records the refused deletion on the object in use, as Crossplane's usage webhook does (an admission policy
   * cannot), so a Usage with replayDeletion deletes it again, in the background as here, once the Usage is gone.
   */
  private async recordDeletionAttempt(object: ComposedObject, path: string, signal: AbortSignal): Promise<void> {
    if (object.metadata.annotations?.[DELETION_ATTEMPT_ANNOTATION] !== undefined) return;
    await this.options.client.request('PATCH', path, {
      body: { metadata: { annotations: { [DELETION_ATTEMPT_ANNOTATION]: 'Background' } } },
      contentType: CONTENT_TYPE.mergePatch,
      signal,
    });
  }

  /**
   * Releases the fields an earlier compositor release applied to a composed resource under its own naming of the
   * XR's field owner, once the apply under Crossplane's naming has co-owned every field still desired: what only the
   * old name held (a field since removed from the Composition) is then removed, as it would have been without the
   * rename. The entry is seen in the apply's response, so resources written only by Crossplane or by this release
   * cost nothing.
   */
  private async releasePreviousOwner(
    xr: Xr,
    applied: ComposedObject,
    { signal, trackEcho }: { signal: AbortSignal; trackEcho: boolean },
  ): Promise<void> {
    const previous = previousComposedFieldOwner(xr.metadata.name, applied);
    if (previous === composedFieldOwner(xr)) return;
    const managedFields = (applied.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields;
    if (!appliesAs(managedFields, previous)) return;
    const { name, namespace } = applied.metadata;
    const empty: ComposedObject = {
      apiVersion: applied.apiVersion,
      kind: applied.kind,
      metadata: { name, ...(namespace ? { namespace } : {}) },
    };
    const { client, discovery, ownWrites } = this.options;
    const echoes = trackEcho ? ownWrites : undefined;
    await serverSideApply(client, discovery, empty, { fieldManager: previous, echoes, signal });
  }

  /** A composed resource of the kind this controller reconciles: an XR nested in another of its kind. */
  private isOwnKind(object: { apiVersion: string; kind: string }): boolean {
    const { xrType } = this.options;
    return object.apiVersion === xrType.apiVersion && object.kind === xrType.kind;
  }
}
