import type { Logger } from 'pino';
import { responsiveCondition, type Breaker, type OwnWrites } from '../circuitbreaker/index.js';
import {
  digest,
  PipelineFatalError,
  RequirementsRunner,
  runPipeline,
  type FunctionRunner,
  type JsonObject,
  type PipelineCondition,
  type PipelineEvent,
  type PipelineOutput,
  type Resource,
  type State,
} from '../functions/index.js';
import {
  ApiError,
  CONTENT_TYPE,
  getIfExists,
  isConflict,
  isNotFound,
  publishConnectionSecret,
  removeFinalizerPatch,
  type Discovery,
  type EventSink,
  type KubeClient,
} from '../kube/index.js';
import type { ReconcileResult } from '../queue/index.js';
import type { ObjectStore } from '../watch/index.js';
import {
  ComposedResourceError,
  controllerOf,
  isApplied,
  renderComposed,
  RESOURCE_NAME_ANNOTATION,
  withAppliedDigest,
  type ComposedObject,
} from './composed.js';
import { composedConnectionDetails, defaultSecretRef, publishedData, xrSecretRef } from './connection.js';
import {
  appliesAs,
  composedFieldOwner,
  MACHINERY_FIELD_OWNER,
  previousComposedFieldOwner,
  sortedResourceRefs,
  XR_FIELD_OWNER,
  type ManagedFieldsEntry,
} from './fieldOwners.js';
import { RECONCILE_PAUSED, RECONCILIATION_PAUSED_EVENT, SYSTEM_CONDITION_TYPES, unreadyMessage } from './conditions.js';
import { mapLimited } from './limitedParallel.js';
import {
  effectivePollInterval,
  INVALID_POLL_INTERVAL_REASON,
  PollIntervalWarnings,
  withJitter,
  type EffectivePollInterval,
  type PollIntervalFlags,
} from './pollInterval.js';
import { pendingReconcileRequest, reconcileRequestHandledEvent } from './reconcileRequest.js';
import { apiResourceFetcher, type RequiredWatch } from './requiredResources.js';
import {
  RevisionPendingError,
  selectComposition,
  selectRevision,
  SelectionError,
  type CompositionObject,
  type RevisionObject,
  type XrdDefaults,
} from './selection.js';
import { StatusDraft } from './status.js';
import {
  COMPOSITE_FINALIZER,
  COMPOSITE_LABEL,
  claimOf,
  describe,
  isBeingDeleted,
  isPaused,
  machineryOf,
  type Machinery,
  type ResourceRef,
  type Xr,
} from './xr.js';

/** How often an XR being deleted looks again at composed resources still on their way out. */
const DELETION_RECHECK_MS = 2_000;
/** How soon an XR whose Composition has no revision yet tries again (the revision event usually comes first). */
const REVISION_PENDING_RECHECK_MS = 1_000;
/** How soon to look again when the controller waits for its restart on an XRD change. */
const STALE_RECHECK_MS = 1_000;
/** How soon an XR that wrote composed resources looks at them again. */
const OBSERVE_WRITES_AFTER_MS = 250;
/** --max-concurrent-applies: composed resources one XR applies (or deletes) at once. */
export const DEFAULT_MAX_CONCURRENT_APPLIES = 8;

export interface XrType {
  apiVersion: string;
  kind: string;
  namespaced: boolean;
  /** LegacyCluster: machinery directly under spec. */
  legacy: boolean;
}

export interface ComposedCache {
  /** The informer cache of a composed kind once it is synced (realtime only); undefined means "ask the server". */
  store(apiVersion: string, kind: string): ObjectStore | undefined;
  /** Makes sure a composed kind is watched (realtime only; resolves when its cache is synced). */
  watch(apiVersion: string, kind: string): Promise<void>;
  /**
   * Records which kinds an XR composes or requires and which required resources it read, so kinds no XR uses any
   * more stop being watched and a change to a required resource reaches the XRs that read it.
   */
  setKinds(xrKey: string, kinds: readonly string[], required?: readonly RequiredWatch[]): void;
}

export interface CompositeReconcilerOptions {
  controller: string;
  xrType: XrType;
  xrd: () => XrdDefaults;
  /**
   * True when the XRD moved to a new generation this controller was not started for (say, another referenceable
   * version): nothing is composed with the old type; the restarted controller reconciles the XR.
   */
  stale?: () => boolean;
  xrs: ObjectStore<Xr>;
  compositions: ObjectStore;
  revisions: ObjectStore;
  composed: ComposedCache;
  client: KubeClient;
  discovery: Discovery;
  /** The function runner stack without the requirements loop, which is per XR (its namespace). */
  runner: FunctionRunner;
  events: EventSink;
  breaker: Breaker;
  ownWrites: OwnWrites;
  timing: PollIntervalFlags & { realtime: boolean };
  /**
   * --max-concurrent-applies: composed resources applied (or deleted) at once per XR, all through `client` and so
   * under its global rate limit. 1 applies them one after another, as Crossplane does. Default 8.
   */
  maxConcurrentApplies?: number;
  logger: Logger;
  now?: () => Date;
  random?: () => number;
}

/** What one compose pass produced, for conditions and the requeue decision. */
interface Composed {
  ttlMs: number | undefined;
  unready: string[];
  unsynced: string[];
  /** Whether any composed resource was written. */
  wrote: boolean;
  /** What those writes returned, for those whose echo is tracked: the next look waits for their echoes. */
  written: ComposedObject[];
  readyOverride: 'READY_TRUE' | 'READY_FALSE' | undefined;
}

interface Selected {
  revision: RevisionObject;
  machinery: Machinery;
}

interface Pass {
  pollMs: number;
  signal: AbortSignal;
}

/**
 * The composite reconciler (docs/architecture.md#the-reconcile-order-of-an-xr), one XR key at a time: Responsive,
 * paused, deletion, composition and revision selection, the function pipeline, resourceRefs, server-side apply of
 * composed resources, garbage collection, readiness, status (written only when it changed) and the requeue
 * decision. It reads from informer caches and writes only what differs.
 */
export class CompositeReconciler {
  private readonly now: () => Date;
  private readonly random: () => number;
  /** Invalid poll-interval values already warned about, per XR uid: one Warning event per distinct value. */
  private readonly pollIntervalWarnings = new PollIntervalWarnings();

  constructor(private readonly options: CompositeReconcilerOptions) {
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
  }

  readonly reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult> => {
    const cached = this.options.xrs.get(key);
    if (!cached) {
      this.options.breaker.reset(key);
      this.options.composed.setKinds(key, []);
      return {};
    }
    if (this.options.stale?.() === true) return { requeueAfterMs: STALE_RECHECK_MS };
    const xr = structuredClone(cached);
    const status = new StatusDraft(xr.status ?? {}, xr.metadata.generation, this.now);
    status.setCondition(responsiveCondition(this.options.breaker.state(key)));
    const poll = effectivePollInterval(xr.metadata.annotations, this.options.timing);
    status.set('effectivePollInterval', poll.text);
    this.warnInvalidPollInterval(xr, poll);

    if (isPaused(xr)) {
      if (status.condition('Synced')?.reason !== RECONCILE_PAUSED.reason) {
        this.options.events.event(xr, RECONCILIATION_PAUSED_EVENT);
      }
      status.setCondition(RECONCILE_PAUSED);
      await this.writeStatus(xr, status, signal);
      return {};
    }
    if (isBeingDeleted(xr)) return this.delete(key, xr, status, signal);

    try {
      const composed = await this.compose(key, xr, status, signal);
      return await this.finish(xr, status, composed, { pollMs: poll.ms, signal });
    } catch (err) {
      return this.fail(xr, status, err, signal);
    }
  };

  /** Selects the Composition and revision; persists the choice early when the revision is still on its way. */
  private async select(xr: Xr, machinery: Machinery, signal: AbortSignal): Promise<Selected> {
    const { options } = this;
    const choice = selectComposition({
      machinery,
      xrd: options.xrd(),
      xrType: options.xrType,
      compositions: options.compositions.list(),
      random: this.random,
    });
    for (const e of choice.events) this.event(xr, 'Normal', e.reason, e.message);
    const composition = options.compositions.get(choice.compositionRef.name) as unknown as
      CompositionObject | undefined;
    let revision: RevisionObject;
    try {
      revision = selectRevision({
        machinery,
        compositionRef: choice.compositionRef,
        revisionSelector: choice.revisionSelector,
        composition,
        revisions: options.revisions.list(),
        xrType: options.xrType,
      });
    } catch (err) {
      // Persist the choice so the revision's arrival maps to this XR through the composition index.
      if (err instanceof RevisionPendingError) {
        await this.applyMachinery(xr, { ...machinery, compositionRef: choice.compositionRef }, signal);
      }
      throw err;
    }
    if (revision.metadata.name !== machinery.compositionRevisionRef?.name) {
      this.event(xr, 'Normal', 'SelectComposition', `Selected composition revision: ${revision.metadata.name}`);
    }
    const selected: Machinery = {
      ...machinery,
      compositionRef: choice.compositionRef,
      compositionRevisionRef: { name: revision.metadata.name },
    };
    if (choice.revisionSelector) selected.compositionRevisionSelector = choice.revisionSelector;
    return { revision, machinery: selected };
  }

  private async compose(key: string, xr: Xr, status: StatusDraft, signal: AbortSignal): Promise<Composed> {
    const { legacy } = this.options.xrType;
    const machinery = machineryOf(xr, legacy);
    const selected = await this.select(xr, machinery, signal);
    const secretRef = legacy ? defaultSecretRef(xr, selected.revision) : undefined;
    if (secretRef) selected.machinery.writeConnectionSecretToRef = secretRef;
    const observed = await this.observeComposed(xr, machinery.resourceRefs ?? []);
    const required: RequiredWatch[] = [];
    const out = await this.runPipeline(xr, selected.revision, observed, { signal, required });
    const desired = await this.renderDesired(xr, out.desired, observed);

    await this.collectGarbage(xr, observed, desired, signal);
    const refs = sortedResourceRefs(desired.map(({ object }) => this.refOf(object)));
    await this.applyMachinery(xr, { ...selected.machinery, resourceRefs: refs }, signal);
    await this.watchKinds(key, refs, required);
    const applied = await this.applyComposed(xr, desired, observed, signal);

    const composite = out.desired.composite;
    status.replaceFields((composite?.resource?.status ?? {}) as Record<string, unknown>);
    this.setPipelineConditions(status, out.conditions);
    await this.emitPipelineEvents(xr, out.events, signal);
    if (legacy) await this.publishConnectionDetails(xr, composite?.connectionDetails, { status, signal });
    const ready = composite?.ready;
    return {
      ttlMs: out.ttlMs,
      unready: desired.filter((d) => !d.ready).map((d) => d.name),
      unsynced: applied.unsynced,
      wrote: applied.wrote,
      written: applied.written,
      readyOverride: ready === 'READY_TRUE' || ready === 'READY_FALSE' ? ready : undefined,
    };
  }

  /**
   * Sets the pipeline's conditions (never the system types). A legacy XR lists those targeted at its claim in
   * status.claimConditionTypes, which the claim controller copies.
   */
  private setPipelineConditions(status: StatusDraft, conditions: readonly PipelineCondition[]): void {
    const forClaim = new Set((status.get('claimConditionTypes') as string[] | undefined) ?? []);
    const before = forClaim.size;
    for (const condition of conditions) {
      if (SYSTEM_CONDITION_TYPES.has(condition.type)) continue;
      const { target, ...rest } = condition;
      status.setCondition(rest);
      if (target === 'CompositeAndClaim' && this.options.xrType.legacy) forClaim.add(condition.type);
    }
    if (forClaim.size !== before) status.set('claimConditionTypes', [...forClaim].sort());
  }

  /** Records the pipeline's events on the XR, and those targeted at the claim on its claim too (plain message). */
  private async emitPipelineEvents(xr: Xr, events: readonly PipelineEvent[], signal: AbortSignal): Promise<void> {
    for (const event of events) this.event(xr, event.type, event.reason, event.message);
    const forClaim = events.filter((event) => event.target === 'CompositeAndClaim');
    const ref = claimOf(xr);
    if (forClaim.length === 0 || !ref) return;
    // The claim itself, for its uid: that is how `kubectl describe` finds an object's events.
    const { client, discovery, logger } = this.options;
    const path = await discovery.path(ref.apiVersion, ref.kind, ref.name, ref.namespace);
    const claim = await getIfExists<Xr>(client, path, signal).catch((err: unknown) => {
      logger.warn({ xr: describe(xr), err: failureMessage(err) }, 'cannot read the claim to record its events');
      return undefined;
    });
    if (!claim) return;
    for (const event of forClaim) {
      this.options.events.event(claim, { type: event.type, reason: event.reason, message: event.detail });
    }
  }

  /**
   * A legacy XR publishes the connection details the pipeline desires for it, filtered by the XRD's
   * connectionSecretKeys, to its spec.writeConnectionSecretToRef; written only when they change.
   */
  private async publishConnectionDetails(
    xr: Xr,
    details: Readonly<Record<string, Uint8Array>> | undefined,
    { status, signal }: { status: StatusDraft; signal: AbortSignal },
  ): Promise<void> {
    const ref = xrSecretRef(xr);
    if (!ref) return;
    const data = publishedData(details, this.options.xrd().connectionSecretKeys);
    const wrote = await publishConnectionSecret(this.options.client, { ...ref, owner: xr, data }, signal);
    if (!wrote) return;
    status.set('connectionDetails', { lastPublishedTime: this.now().toISOString() });
    this.event(xr, 'Normal', 'PublishConnectionSecret', 'Successfully published connection details');
  }

  /**
   * Records the kinds this XR composes or requires and makes sure each is watched before anything is applied, so
   * no change after this reconcile's reads goes unseen.
   */
  private async watchKinds(key: string, refs: readonly ResourceRef[], required: RequiredWatch[]): Promise<void> {
    const kinds = [...new Set([...refs, ...required].map((r) => `${r.apiVersion}/${r.kind}`))];
    this.options.composed.setKinds(key, kinds, required);
    await Promise.all(
      kinds.map((gvk) => {
        const slash = gvk.lastIndexOf('/');
        return this.options.composed.watch(gvk.slice(0, slash), gvk.slice(slash + 1));
      }),
    );
  }

  private async finish(xr: Xr, status: StatusDraft, composed: Composed, pass: Pass): Promise<ReconcileResult> {
    if (composed.unsynced.length > 0) {
      status.setCondition({
        type: 'Synced',
        status: 'False',
        reason: 'ReconcileError',
        message: `Unsynced resources: ${[...composed.unsynced].sort().join(', ')}`,
      });
    } else {
      status.setCondition({ type: 'Synced', status: 'True', reason: 'ReconcileSuccess' });
    }
    const ready =
      composed.readyOverride === undefined ? composed.unready.length === 0 : composed.readyOverride === 'READY_TRUE';
    if (ready) status.setCondition({ type: 'Ready', status: 'True', reason: 'Available' });
    else {
      const message = composed.readyOverride === undefined ? unreadyMessage(composed.unready) : undefined;
      status.setCondition({ type: 'Ready', status: 'False', reason: 'Creating', ...(message ? { message } : {}) });
    }
    const token = pendingReconcileRequest(xr.metadata.annotations, xr.status?.lastHandledReconcileAt);
    if (token !== undefined) {
      status.set('lastHandledReconcileAt', token);
      this.options.events.event(xr, reconcileRequestHandledEvent(token));
    }
    const statusWritten = await this.writeStatus(xr, status, pass.signal);
    // compositor's own writes come back as echoes that trigger nothing, so after a write the XR looks once more to
    // observe what it wrote: readiness and ToCompositeFieldPath patches are computed from observed state. It looks
    // as soon as the caches show those writes (realtime: without it composed kinds are not watched, so no echo
    // comes), at the latest after OBSERVE_WRITES_AFTER_MS.
    if (composed.wrote) {
      if (!this.options.timing.realtime) return { requeueAfterMs: OBSERVE_WRITES_AFTER_MS };
      const written = statusWritten ? [...composed.written, statusWritten] : composed.written;
      return { requeueAfterMs: OBSERVE_WRITES_AFTER_MS, expediteWhen: this.options.ownWrites.echoed(written) };
    }
    return { requeueAfterMs: this.requeueAfter(composed.ttlMs, pass.pollMs) };
  }

  /** Realtime: the shortest function TTL (changes arrive as events). Polling: the effective poll interval. */
  private requeueAfter(ttlMs: number | undefined, pollMs: number): number | undefined {
    if (this.options.timing.realtime) return ttlMs === undefined ? undefined : withJitter(ttlMs, this.random);
    return withJitter(pollMs, this.random);
  }

  private async fail(xr: Xr, status: StatusDraft, err: unknown, signal: AbortSignal): Promise<ReconcileResult> {
    if (err instanceof RevisionPendingError) {
      status.setCondition({ type: 'Synced', status: 'False', reason: 'ReconcileError', message: err.message });
      await this.writeStatus(xr, status, signal);
      return { requeueAfterMs: REVISION_PENDING_RECHECK_MS };
    }
    if (isConflict(err)) throw err;
    // As upstream wraps it: everything after selection failed while composing resources.
    const message =
      err instanceof SelectionError ? failureMessage(err) : `cannot compose resources: ${failureMessage(err)}`;
    const reason = err instanceof SelectionError ? err.reason : 'ComposeResources';
    if (err instanceof PipelineFatalError) {
      await this.emitPipelineEvents(xr, err.partial.events, signal);
      this.setPipelineConditions(status, err.partial.conditions);
    }
    this.event(xr, 'Warning', reason, message);
    status.setCondition({ type: 'Synced', status: 'False', reason: 'ReconcileError', message });
    try {
      await this.writeStatus(xr, status, signal);
    } catch (writeErr) {
      this.options.logger.warn({ xr: describe(xr), err: failureMessage(writeErr) }, 'cannot write XR status');
    }
    throw err;
  }

  private async delete(key: string, xr: Xr, status: StatusDraft, signal: AbortSignal): Promise<ReconcileResult> {
    status.setCondition({ type: 'Ready', status: 'False', reason: 'Deleting' });
    const refs = machineryOf(xr, this.options.xrType.legacy).resourceRefs ?? [];
    const observed = await this.observeComposed(xr, refs);
    const ours = [...observed].filter(([, object]) => controllerOf(object)?.uid === xr.metadata.uid);
    await this.deleteAll(
      xr,
      ours.filter(([, object]) => !object.metadata.deletionTimestamp),
      signal,
    );
    if (ours.length > 0) {
      await this.writeStatus(xr, status, signal);
      return { requeueAfterMs: DELETION_RECHECK_MS };
    }
    await this.removeFinalizer(xr, signal);
    this.options.composed.setKinds(key, []);
    this.options.breaker.reset(key);
    if (xr.metadata.uid) this.pollIntervalWarnings.forget(xr.metadata.uid);
    return {};
  }

  /** Composed resources listed in resourceRefs that exist and are not controlled by someone else, by name. */
  private async observeComposed(xr: Xr, refs: readonly ResourceRef[]): Promise<Map<string, ComposedObject>> {
    const observed = new Map<string, ComposedObject>();
    const found = await Promise.all(refs.filter((r) => r.name).map((ref) => this.getComposed(xr, ref)));
    for (const object of found) {
      if (!object) continue;
      const controller = controllerOf(object);
      if (controller && controller.uid !== xr.metadata.uid) continue;
      const name = object.metadata.annotations?.[RESOURCE_NAME_ANNOTATION];
      if (name === undefined) {
        throw new Error(
          `encountered composed resource without required "${RESOURCE_NAME_ANNOTATION}" annotation: ${describe(object)}`,
        );
      }
      observed.set(name, object);
    }
    return observed;
  }

  private async getComposed(xr: Xr, ref: ResourceRef): Promise<ComposedObject | undefined> {
    // A namespaced XR composes only in its own namespace; a cluster XR's refs carry theirs.
    const namespace = this.options.xrType.namespaced ? xr.metadata.namespace : ref.namespace;
    const store = this.options.composed.store(ref.apiVersion, ref.kind);
    if (store) {
      const info = await this.options.discovery.resolve(ref.apiVersion, ref.kind);
      return store.get(info.namespaced && namespace ? `${namespace}/${ref.name}` : ref.name);
    }
    const path = await this.options.discovery.path(ref.apiVersion, ref.kind, ref.name, namespace);
    return getIfExists<ComposedObject>(this.options.client, path);
  }

  private async runPipeline(
    xr: Xr,
    revision: RevisionObject,
    observed: ReadonlyMap<string, ComposedObject>,
    { signal, required }: { signal: AbortSignal; required: RequiredWatch[] },
  ): Promise<PipelineOutput> {
    const { client, discovery } = this.options;
    const resources = await Promise.all(
      [...observed].map(async ([name, object]): Promise<[string, Resource]> => {
        const connectionDetails = await composedConnectionDetails(client, object, signal);
        return [
          name,
          { resource: object as unknown as JsonObject, ...(connectionDetails ? { connectionDetails } : {}) },
        ];
      }),
    );
    const state: State = {
      composite: { resource: xr as unknown as JsonObject },
      resources: Object.fromEntries(resources),
    };
    const fetcher = apiResourceFetcher(client, discovery, {
      namespace: xr.metadata.namespace,
      signal,
      record: (watch) => required.push(watch),
    });
    return runPipeline(
      { steps: revision.spec?.pipeline ?? [], observed: state },
      {
        runner: new RequirementsRunner(this.options.runner, fetcher),
        getSecret: (namespace, name) => this.getSecret(namespace, name, signal),
        signal,
      },
    );
  }

  private async getSecret(
    namespace: string,
    name: string,
    signal: AbortSignal,
  ): Promise<Record<string, string> | undefined> {
    const path = `/api/v1/namespaces/${namespace}/secrets/${name}`;
    const secret = await getIfExists<{ data?: Record<string, string> }>(this.options.client, path, signal);
    return secret ? (secret.data ?? {}) : undefined;
  }

  /** Desired composed resources with rendered metadata and settled namespaces, in the pipeline's order. */
  private async renderDesired(
    xr: Xr,
    desired: State,
    observed: ReadonlyMap<string, ComposedObject>,
  ): Promise<{ name: string; object: ComposedObject; ready: boolean }[]> {
    const rendered = [];
    for (const [name, resource] of Object.entries(desired.resources ?? {})) {
      const object = renderComposed(resource.resource ?? {}, { xr, resourceName: name, observed: observed.get(name) });
      const info = await this.options.discovery.resolve(object.apiVersion, object.kind).catch((err: unknown) => {
        throw new ComposedResourceError(name, `cannot compose resource "${name}": ${failureMessage(err)}`);
      });
      if (this.options.xrType.namespaced) {
        if (!info.namespaced) {
          throw new ComposedResourceError(
            name,
            `cannot apply cluster scoped composed resource "${name}" (a ${object.kind} named ${object.metadata.name}) for a namespaced composite resource.`,
          );
        }
        const namespace = xr.metadata.namespace ?? '';
        if (object.metadata.namespace && object.metadata.namespace !== namespace) {
          this.event(
            xr,
            'Warning',
            'NamespaceOverridden',
            `cannot create composed resource "${name}" in namespace "${object.metadata.namespace}", using XR namespace "${namespace}" instead`,
          );
        }
        object.metadata.namespace = namespace;
      } else if (!info.namespaced) {
        delete object.metadata.namespace;
      }
      rendered.push({ name, object: withAppliedDigest(object), ready: resource.ready === 'READY_TRUE' });
    }
    return rendered;
  }

  private refOf(object: ComposedObject): ResourceRef {
    const ref: ResourceRef = { apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name };
    if (!this.options.xrType.namespaced && object.metadata.namespace) ref.namespace = object.metadata.namespace;
    return ref;
  }

  /** Deletes observed resources the pipeline no longer desires; only those this XR controls. */
  private async collectGarbage(
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
    await this.deleteAll(xr, doomed, signal);
    if (refusal) throw refusal;
  }

  /** Deletes composed resources, --max-concurrent-applies at once; throws the first failure in their order. */
  private async deleteAll(
    xr: Xr,
    doomed: readonly (readonly [string, ComposedObject])[],
    signal: AbortSignal,
  ): Promise<void> {
    await mapLimited(doomed, this.applyLimit, ([name, object]) => this.deleteComposed(xr, name, object, signal), {
      signal,
    });
  }

  private get applyLimit(): number {
    return this.options.maxConcurrentApplies ?? DEFAULT_MAX_CONCURRENT_APPLIES;
  }

  private async deleteComposed(xr: Xr, name: string, object: ComposedObject, signal: AbortSignal): Promise<void> {
    const { client, discovery } = this.options;
    const path = await discovery.path(object.apiVersion, object.kind, object.metadata.name, object.metadata.namespace);
    try {
      await client.request('DELETE', path, {
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          propagationPolicy: 'Foreground',
          preconditions: { uid: object.metadata.uid },
        },
        signal,
      });
      this.options.logger.debug({ xr: describe(xr), composed: describe(object), name }, 'deleted composed resource');
    } catch (err) {
      // Gone already, or replaced by an object with another uid that is not ours to delete.
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }

  /**
   * Applies each composed resource that differs from what is observed, --max-concurrent-applies at once (upstream
   * applies them one after another). Resources in one desired state have no ordering between them: a function that
   * makes one wait for another's readiness leaves it out until then, so ordering comes from successive passes.
   * A resource the API server refuses as invalid gets a Warning event and is reported unsynced (in desired order)
   * while the others are still applied; any other failure stops further applies and the first in desired order is
   * thrown, once the applies in flight have settled.
   */
  private async applyComposed(
    xr: Xr,
    desired: readonly { name: string; object: ComposedObject }[],
    observed: ReadonlyMap<string, ComposedObject>,
    signal: AbortSignal,
  ): Promise<{ unsynced: string[]; wrote: boolean; written: ComposedObject[] }> {
    const changed = desired.filter(({ name, object }) => !isApplied(object, observed.get(name)));
    const written: ComposedObject[] = [];
    const invalid = await mapLimited(
      changed,
      this.applyLimit,
      async ({ name, object }) => {
        try {
          const tracked = !this.isOwnKind(object);
          const result = await this.apply(object, composedFieldOwner(xr), signal, tracked);
          await this.releasePreviousOwner(xr, result, signal, tracked);
          if (tracked) written.push(result);
          return false;
        } catch (err) {
          if (!(err instanceof ApiError) || err.status !== 422) throw err;
          this.event(xr, 'Warning', 'ComposeResources', `cannot apply composed resource "${name}": ${err.message}`);
          return true;
        }
      },
      { signal },
    );
    const unsynced = changed.filter((_, i) => invalid[i]).map((d) => d.name);
    return { unsynced, wrote: changed.length > 0, written };
  }

  /**
   * Server-side applies an object. Its echo is recorded as this controller's own write (no reconcile) unless
   * `trackEcho` is false: a nested XR of this controller's own kind must reach its own reconcile through that event.
   */
  private async apply(
    object: ComposedObject,
    fieldManager: string,
    signal: AbortSignal,
    trackEcho = true,
  ): Promise<ComposedObject> {
    const { client, discovery, ownWrites } = this.options;
    const path = await discovery.path(object.apiVersion, object.kind, object.metadata.name, object.metadata.namespace);
    const write = (): Promise<ComposedObject> =>
      client.request<ComposedObject>('PATCH', path, {
        body: object,
        contentType: CONTENT_TYPE.apply,
        query: { fieldManager, force: true },
        signal,
      });
    return trackEcho ? ownWrites.track(object, write) : write();
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
    signal: AbortSignal,
    trackEcho: boolean,
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
    await this.apply(empty, previous, signal, trackEcho);
  }

  /** A composed resource of the kind this controller reconciles: an XR nested in another of its kind. */
  private isOwnKind(object: ComposedObject): boolean {
    return object.apiVersion === this.options.xrType.apiVersion && object.kind === this.options.xrType.kind;
  }

  /**
   * Server-side applies the XR fields compositor owns (finalizer, composite label, composition machinery,
   * resourceRefs) when any differs from what is stored, in one write. Always the whole set: fields left out of an
   * apply are released, and would be removed. The manager is compositor's own (never Crossplane's XR manager, whose
   * apply holds only resourceRefs), so neither engine's apply can release what the other set.
   */
  private async applyMachinery(xr: Xr, machinery: Machinery, signal: AbortSignal): Promise<void> {
    const current = machineryOf(xr, this.options.xrType.legacy);
    const owned = ownedMachinery(machinery);
    const label = xr.metadata.labels?.[COMPOSITE_LABEL] ?? xr.metadata.name;
    const same =
      (xr.metadata.finalizers ?? []).includes(COMPOSITE_FINALIZER) &&
      xr.metadata.labels?.[COMPOSITE_LABEL] === label &&
      digest(pick(current, owned)) === digest(owned);
    if (same) return;
    const spec = this.options.xrType.legacy ? owned : { crossplane: owned };
    const patch = {
      apiVersion: xr.apiVersion,
      kind: xr.kind,
      metadata: {
        name: xr.metadata.name,
        ...(xr.metadata.namespace ? { namespace: xr.metadata.namespace } : {}),
        finalizers: [COMPOSITE_FINALIZER],
        labels: { [COMPOSITE_LABEL]: label },
      },
      spec,
    };
    const written = await this.apply(patch, MACHINERY_FIELD_OWNER, signal);
    xr.metadata = { ...xr.metadata, ...(written.metadata as Xr['metadata']) };
    xr.spec = written.spec as Record<string, unknown>;
  }

  private async removeFinalizer(xr: Xr, signal: AbortSignal): Promise<void> {
    const patch = removeFinalizerPatch(xr.metadata.finalizers, COMPOSITE_FINALIZER);
    if (!patch) return;
    const path = await this.options.discovery.path(xr.apiVersion, xr.kind, xr.metadata.name, xr.metadata.namespace);
    // A list that moved meanwhile fails the patch's test; that is a conflict, retried at once.
    await this.options.ownWrites
      .track(xr, () =>
        this.options.client.request<Xr>('PATCH', path, {
          body: patch,
          contentType: CONTENT_TYPE.jsonPatch,
          signal,
        }),
      )
      .catch((err: unknown) => {
        if (isNotFound(err)) return xr;
        if (err instanceof ApiError && err.status === 422) throw new ApiError(409, 'Conflict', err.message);
        throw err;
      });
  }

  /** Server-side applies the status subresource when the draft differs from what is stored. */
  private async writeStatus(xr: Xr, status: StatusDraft, signal: AbortSignal): Promise<Xr | undefined> {
    if (status.unchanged()) return undefined;
    const { client, discovery } = this.options;
    const path = await discovery.path(xr.apiVersion, xr.kind, xr.metadata.name, xr.metadata.namespace);
    const body = {
      apiVersion: xr.apiVersion,
      kind: xr.kind,
      metadata: { name: xr.metadata.name, ...(xr.metadata.namespace ? { namespace: xr.metadata.namespace } : {}) },
      status: status.toStatus(),
    };
    return this.options.ownWrites.track(xr, () =>
      client.request<Xr>('PATCH', `${path}/status`, {
        body,
        contentType: CONTENT_TYPE.apply,
        query: { fieldManager: XR_FIELD_OWNER, force: true },
        signal,
      }),
    );
  }

  private warnInvalidPollInterval(xr: Xr, poll: EffectivePollInterval): void {
    const message = this.pollIntervalWarnings.check(xr.metadata.uid ?? xr.metadata.name, poll, this.options.timing);
    if (message !== undefined) this.event(xr, 'Warning', INVALID_POLL_INTERVAL_REASON, message);
  }

  private event(xr: Xr, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.options.events.event(xr, { type, reason, message });
  }
}

/** The machinery fields compositor sets (and so owns), leaving out those it has no value for. */
function ownedMachinery(machinery: Machinery): Machinery {
  const fields = [
    'compositionRef',
    'compositionRevisionRef',
    'compositionRevisionSelector',
    'resourceRefs',
    'writeConnectionSecretToRef',
  ] as const;
  const owned: Record<string, unknown> = {};
  for (const field of fields) if (machinery[field] !== undefined) owned[field] = machinery[field];
  return owned;
}

function pick(from: Machinery, like: Machinery): Machinery {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(like)) out[key] = (from as Record<string, unknown>)[key];
  return out;
}

/** The first line of an error, as conditions and events show it. */
export function failureMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
