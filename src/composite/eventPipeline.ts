import {
  EMPTY,
  firstValueFrom,
  from,
  map,
  merge,
  mergeAll,
  mergeMap,
  Subject,
  race,
  takeUntil,
  timer,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { Logger } from 'pino';
import { kindKey, type ApiKind } from '../apis/index.js';
import { errorMessage } from '../base/index.js';
import { KindNotServedError, type KubeObject } from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import { ComposedKinds, type ComposedWatch } from './composedKinds.js';
import { isRequired, type RequiredWatch } from './requiredResources.js';
import { sameType, type RevisionObject } from './selection.js';
import { failedOn, isHealthy, pipelineFunctions, sameForXrs } from './eventConcerns.js';
import {
  circuitBreaker,
  type Breaker,
  type OwnWrites,
  type WatchCause,
  type XrEvent,
} from '../circuitbreaker/index.js';
import {
  COMPOSITION_INDEX,
  COMPOSITION_REVISION_INDEX,
  NO_COMPOSITION_YET,
  composedRefKey,
  compositionIndex,
  compositionRevisionIndex,
  controllerOwnerKeys,
  objectKey,
  RESOURCE_REFS_INDEX,
  resourceRefsIndex,
  type Informer,
  type InformerLease,
  type InformerRegistry,
  type ObjectStore,
  type WatchEvent,
  type XrKind,
} from '../watch/index.js';

/**
 * How long a reconcile waits at most for the first list of a composed kind it is about to apply. Usually the list is
 * in long before; after a restart with 100,000 XRs the first list of 300,000 ConfigMaps is not, and a reconcile that
 * waited for it would hold a changed XR for as long (see watchComposedFor).
 */
export const COMPOSED_SYNC_WAIT_MS = 1_000;

export const COMPOSITION_REVISION = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'CompositionRevision' };
const COMPOSITION_NAME_LABEL = 'crossplane.io/composition-name';
const FUNCTION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function' };

export interface CompositeEventPipelineOptions {
  xr: XrKind & { apiVersion: string };
  informers: InformerRegistry;
  /** Where the XR keys go: the composite controller's work queue. */
  enqueue: (key: string) => void;
  breaker: Breaker;
  ownWrites: OwnWrites;
  /** --enable-realtime-compositions: when false, composed resources are not watched at all. */
  realtime: boolean;
  /**
   * For XRs in the first list after start: a delay to enqueue them after instead of at once (settled XRs are
   * spread out so a restart does not re-run every pipeline), or undefined to enqueue now.
   */
  initialDelayMs?: (object: KubeObject) => number | undefined;
  enqueueAfter?: (key: string, delayMs: number) => void;
  /**
   * --shard-index/--shard-count: whether this replica owns an XR. Events of other shards' XRs are dropped before the
   * breaker, so breaker state, queue and reconciles are per shard. Undefined (unsharded) owns every XR.
   */
  owns?: (xr: KubeObject) => boolean;
  logger: Logger;
  /** Circuit breaker windows and the wait of watchComposedFor; tests pass virtual time. */
  scheduler?: SchedulerLike;
  /** How long watchComposedFor waits at most for a composed kind's first list (default COMPOSED_SYNC_WAIT_MS). */
  composedSyncWaitMs?: number;
}

/**
 * The event side of one composite controller (docs/architecture.md#from-a-watch-event-to-an-apply): merges the XR
 * stream, the stream of each composed kind (realtime only) and the CompositionRevision stream, maps every event to
 * the XR keys it concerns, passes them through the per-XR circuit breaker and hands the survivors to the queue.
 */
export class CompositeEventPipeline implements Lifecycle {
  private readonly composedStreams = new Subject<Observable<XrEvent>>();
  private readonly composed = new ComposedKinds();
  /** Required resources per kind ("apiVersion/kind"), per XR key: who to tell when one changes. */
  private readonly required = new Map<string, Map<string, RequiredWatch[]>>();
  private xrLease: InformerLease | undefined;
  private revisionLease: InformerLease | undefined;
  /** Functions: one becoming Healthy requeues the XRs whose pipeline names it, instead of leaving them to backoff. */
  private functionLease: InformerLease | undefined;
  private subscription: Subscription | undefined;

  constructor(private readonly options: CompositeEventPipelineOptions) {}

  /** The XR cache, with the indexes this pipeline maps events through. */
  get xrInformer(): Informer {
    if (!this.xrLease) throw new Error('the event pipeline is not started');
    return this.xrLease.informer;
  }

  /** The CompositionRevision cache. */
  get revisionInformer(): Informer {
    if (!this.revisionLease) throw new Error('the event pipeline is not started');
    return this.revisionLease.informer;
  }

  /** The cache of a composed kind once it is watched and synced; undefined otherwise. */
  composedStore(apiVersion: string, kind: string): ObjectStore | undefined {
    return this.composed.store({ apiVersion, kind });
  }

  /**
   * The composed kinds ("apiVersion/kind") this XR's reconcile reads from the API server this once, since it was
   * enqueued when their caches synced (see composedSynced); forgotten as they are taken.
   */
  takeLiveReads(xrKey: string): ReadonlySet<string> {
    return this.composed.takeLiveReads(xrKey);
  }

  /** Starts watching XRs and revisions; resolves when both caches are synced. */
  async start(): Promise<void> {
    const { informers, xr } = this.options;
    this.xrLease = await informers.acquire(xr.apiVersion, xr.kind);
    const store = this.xrLease.informer.store;
    store.addIndex(RESOURCE_REFS_INDEX, resourceRefsIndex);
    store.addIndex(COMPOSITION_REVISION_INDEX, compositionRevisionIndex);
    store.addIndex(COMPOSITION_INDEX, compositionIndex);
    this.revisionLease = await informers.acquire(COMPOSITION_REVISION.apiVersion, COMPOSITION_REVISION.kind);

    const xrInformer = this.xrLease.informer;
    const xrEvents = xrInformer.events$.pipe(
      mergeMap((event) =>
        this.safely('XR', event, () => {
          if (!this.owned(event.object)) return [];
          // A deleted XR's reconcile reads nothing: it would never take its live reads.
          if (event.type === 'delete') this.composed.forgetXr(objectKey(event.object));
          const initial = event.type === 'add' && event.initial === true;
          if (initial && this.deferred(event.object)) return [];
          return [toXrEvent(objectKey(event.object), event, true)];
        }),
      ),
    );
    const revisionEvents = this.revisionLease.informer.events$.pipe(
      mergeMap((event) => this.safely('CompositionRevision', event, () => this.revisionToXrs(event))),
    );
    this.functionLease = await informers.acquire(FUNCTION.apiVersion, FUNCTION.kind).catch((err: unknown) => {
      if (err instanceof KindNotServedError) return undefined;
      throw err;
    });
    const functionEvents =
      this.functionLease?.informer.events$.pipe(
        mergeMap((event) => this.safely('Function', event, () => this.functionToXrs(event))),
      ) ?? EMPTY;
    this.subscription = merge(xrEvents, revisionEvents, functionEvents, this.composedStreams.pipe(mergeAll()))
      .pipe(
        circuitBreaker({
          breaker: this.options.breaker,
          ownWrites: this.options.ownWrites,
          scheduler: this.options.scheduler,
        }),
      )
      .subscribe((key) => {
        this.options.enqueue(key);
      });
    await Promise.all([this.xrLease.informer.waitForSync(), this.revisionLease.informer.waitForSync()]);
  }

  /**
   * Watches a composed kind (idempotent) and resolves once its cache is synced, however long its first list takes: the
   * warm start and tests use it; reconciles use watchComposedFor. With realtime off it does nothing, and composed
   * changes are caught by the poll interval instead.
   */
  async watchComposed(apiVersion: string, kind: string): Promise<void> {
    if (!this.options.realtime) return;
    await (
      await this.composedWatch(apiVersion, kind)
    )?.synced;
  }

  /**
   * Watches a composed kind (idempotent) for an XR about to apply it, waiting for its first list at most
   * composedSyncWaitMs. Resolving once the cache is synced means every change after the XR's reads reaches it through
   * the watch. A list that takes longer (a restart with 300,000 ConfigMaps) no longer holds the reconcile: the XR is
   * noted and enqueued once more when the cache has synced, since a change between its reads and the first list
   * arrives with the list, which enqueues nothing. With realtime off it does nothing.
   */
  async watchComposedFor(apiVersion: string, kind: string, xrKey: string): Promise<void> {
    if (!this.options.realtime) return;
    if (!this.composed.isSynced({ apiVersion, kind })) {
      const watch = await this.composedWatch(apiVersion, kind);
      if (!watch) return;
      const wait = this.options.composedSyncWaitMs ?? COMPOSED_SYNC_WAIT_MS;
      const synced = await firstValueFrom(
        race(from(watch.synced).pipe(map(() => true)), timer(wait, this.options.scheduler).pipe(map(() => false))),
      );
      if (!synced) this.composed.noteBeforeSync({ apiVersion, kind }, xrKey);
    }
  }

  /**
   * Notes that an XR read a composed kind from the API server because its cache has not synced: the XR is enqueued
   * once more when it has. A read just before the cache syncs would otherwise miss a change made between the read
   * and the first list, which enqueues nothing. Nothing is noted for a synced kind (a read of takeLiveReads) or with
   * realtime off.
   */
  readBeforeSync(apiVersion: string, kind: string, xrKey: string): void {
    if (!this.options.realtime || this.composed.isSynced({ apiVersion, kind })) return;
    this.composed.noteBeforeSync({ apiVersion, kind }, xrKey);
  }

  /** Stops watching a composed kind no XR of this controller composes any more. */
  async unwatchComposed(apiVersion: string, kind: string): Promise<void> {
    const watch = await this.composed.remove({ apiVersion, kind });
    if (!watch) return;
    watch.stop$.next();
    await watch.lease.release();
  }

  /** Replaces the required resources an XR read in its last pipeline run (none forgets the XR). */
  setRequired(xrKey: string, watches: readonly RequiredWatch[]): void {
    for (const [gvk, byXr] of this.required) {
      byXr.delete(xrKey);
      if (byXr.size === 0) this.required.delete(gvk);
    }
    for (const watch of watches) {
      const gvk = kindKey(watch);
      const byXr = this.required.get(gvk) ?? new Map<string, RequiredWatch[]>();
      this.required.set(gvk, byXr);
      byXr.set(xrKey, [...(byXr.get(xrKey) ?? []), watch]);
    }
  }

  /** The composed kinds watched right now, as "apiVersion/kind". */
  composedKinds(): string[] {
    return this.composed.kinds();
  }

  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    const watches = await this.composed.clear();
    await Promise.all(watches.map((watch) => watch.lease.release()));
    await this.xrLease?.release();
    await this.revisionLease?.release();
    await this.functionLease?.release();
  }

  /** The watch of a composed kind, started if it was not. */
  private composedWatch(apiVersion: string, kind: string): Promise<ComposedWatch | undefined> {
    return this.composed.watch({ apiVersion, kind }, () => this.startComposed(apiVersion, kind));
  }

  private async startComposed(apiVersion: string, kind: string): Promise<ComposedWatch | undefined> {
    let lease: InformerLease;
    try {
      lease = await this.options.informers.acquire(apiVersion, kind);
    } catch (err) {
      // Not served yet (a CRD on its way): forget it so the next reconcile that composes it tries again.
      this.composed.forgetFailed({ apiVersion, kind });
      throw err;
    }
    const stop$ = new Subject<void>();
    const informer = lease.informer;
    this.composedStreams.next(
      informer.events$.pipe(
        mergeMap((event) => this.safely(kind, event, () => this.composedToXrs(event))),
        takeUntil(stop$),
      ),
    );
    // Taken in whoever waits for it, and however long: watchComposedFor waits for the first list only so long.
    const synced = informer
      .waitForSync()
      .then(() => this.composedSynced({ apiVersion, kind }, informer))
      .catch((err: unknown) => {
        this.options.logger.warn({ kind, err: errorMessage(err) }, 'cannot take in the first list of a composed kind');
      });
    return { lease, stop$, synced };
  }

  /**
   * A composed kind's cache has synced: it serves reads from now on, and the XRs that read or applied the kind before
   * then go once more, reading it from the API server that one time (liveReads).
   */
  private async composedSynced(kind: ApiKind, informer: Informer): Promise<void> {
    for (const key of await this.composed.tookFirstList(kind, informer)) this.options.enqueue(key);
  }

  /**
   * XRs a composed resource belongs to: its controller owner reference, every XR that lists it, and every XR whose
   * pipeline required it.
   */
  private composedToXrs(event: WatchEvent): XrEvent[] {
    const { object } = event;
    const keys = new Set(controllerOwnerKeys(object, this.options.xr));
    const ref = {
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: object.metadata.name,
      namespace: object.metadata.namespace,
    };
    for (const xr of this.xrInformer.store.byIndex(RESOURCE_REFS_INDEX, composedRefKey(ref))) keys.add(objectKey(xr));
    for (const [key, watches] of this.required.get(kindKey(object)) ?? []) {
      if (watches.some((w) => isRequired(w, object))) keys.add(key);
    }
    // The first list of a composed kind (or its replay to this pipeline) shows what exists: its XRs are enqueued by
    // their own events, so charging each of them once per composed resource would trip every large XR's breaker.
    const initial = event.type === 'add' && event.initial === true;
    const nested = object.apiVersion === this.options.xr.apiVersion && object.kind === this.options.xr.kind;
    return [...keys]
      .filter((key) => this.ownedKey(key))
      .map((key) => ({ ...toXrEvent(key, event, false, initial ? 'resync' : undefined), echoMatters: nested }));
  }

  /** A new or changed revision concerns the XRs using it and, for automatic updates, those of its Composition. */
  private revisionToXrs(event: WatchEvent): XrEvent[] {
    // The revisions that exist (the first list, or the replay to a pipeline joining the shared informer late) are
    // no change: the XRs using them come with their own events, spread over their poll interval when settled.
    if (event.type === 'add' && event.initial === true) return [];
    // The ValidPipeline condition written just after a revision is created (or any other status write) changes
    // nothing an XR reads: without this check it would run every XR of the Composition a second time.
    if (event.type === 'update' && !event.afterGap && sameForXrs(event.oldObject, event.object)) return [];
    const store = this.xrInformer.store;
    const revision = event.object;
    const xrs = store.byIndex(COMPOSITION_REVISION_INDEX, revision.metadata.name);
    const labels = (revision.metadata.labels ?? {}) as Record<string, string>;
    const composition = labels[COMPOSITION_NAME_LABEL];
    if (composition !== undefined) xrs.push(...store.byIndex(COMPOSITION_INDEX, composition));
    // An XR selecting its Composition right now may have picked the previous revision, and its cached copy does not
    // name the Composition until its write comes back: without it, it would stay on that revision until its poll.
    if (sameType((revision as RevisionObject).spec?.compositeTypeRef, this.options.xr))
      xrs.push(...store.byIndex(COMPOSITION_INDEX, NO_COMPOSITION_YET));
    return [...new Set(xrs.filter((xr) => this.owned(xr)).map(objectKey))].map((key) => toXrEvent(key, event, false));
  }

  /**
   * A Function that became Healthy concerns the XRs whose composition revision's pipeline calls it, and those whose
   * Synced condition names it: an XR that never got past its pipeline has not stored its revision yet.
   */
  private functionToXrs(event: WatchEvent): XrEvent[] {
    if (event.type !== 'update' || !isHealthy(event.object) || isHealthy(event.oldObject)) return [];
    const name = event.object.metadata.name;
    const store = this.xrInformer.store;
    const xrs = store.list().filter((xr) => failedOn(xr, name));
    for (const revision of this.revisionInformer.store.list()) {
      if (pipelineFunctions(revision).includes(name)) {
        xrs.push(...store.byIndex(COMPOSITION_REVISION_INDEX, revision.metadata.name));
      }
    }
    return [...new Set(xrs.filter((xr) => this.owned(xr)).map(objectKey))].map((key) => toXrEvent(key, event, false));
  }

  private owned(xr: KubeObject): boolean {
    return this.options.owns?.(xr) ?? true;
  }

  /**
   * An XR key from a composed or revision event, judged by the cached XR's uid. An XR no longer cached is left to
   * its owner, which sees the XR's own delete event.
   */
  private ownedKey(key: string): boolean {
    if (!this.options.owns) return true;
    const xr = this.xrInformer.store.get(key);
    return xr !== undefined && this.options.owns(xr);
  }

  /** Enqueues an XR of the first list later when initialDelayMs says so; true when it did. */
  private deferred(object: KubeObject): boolean {
    const { initialDelayMs, enqueueAfter } = this.options;
    const delayMs = initialDelayMs?.(object);
    if (delayMs === undefined || delayMs <= 0 || !enqueueAfter) return false;
    enqueueAfter(objectKey(object), delayMs);
    return true;
  }

  /** A mapping that throws is logged and yields nothing; it must never end the controller's event stream. */
  private safely(source: string, event: WatchEvent, map: () => XrEvent[]): XrEvent[] {
    try {
      return map();
    } catch (err) {
      this.options.logger.error(
        { source, object: objectKey(event.object), err: errorMessage(err) },
        'cannot map a watch event to XRs; event ignored',
      );
      return [];
    }
  }
}

function toXrEvent(xrKey: string, event: WatchEvent, isXr: boolean, cause: WatchCause = event.type): XrEvent {
  return { xrKey, cause, object: event.object, isXr, afterGap: event.type === 'update' && event.afterGap === true };
}
