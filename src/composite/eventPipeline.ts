import {
  EMPTY,
  merge,
  mergeAll,
  mergeMap,
  Subject,
  takeUntil,
  type Observable,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { Logger } from 'pino';
import { errorMessage } from '../base/index.js';
import { KindNotServedError, type KubeObject } from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import { isRequired, type RequiredWatch } from './requiredResources.js';
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
  scheduler?: SchedulerLike;
}

interface ComposedWatch {
  lease: InformerLease;
  stop$: Subject<void>;
}

/**
 * The event side of one composite controller (docs/architecture.md#from-a-watch-event-to-an-apply): merges the XR
 * stream, the stream of each composed kind (realtime only) and the CompositionRevision stream, maps every event to
 * the XR keys it concerns, passes them through the per-XR circuit breaker and hands the survivors to the queue.
 */
export class CompositeEventPipeline implements Lifecycle {
  private readonly composedStreams = new Subject<Observable<XrEvent>>();
  private readonly composed = new Map<string, Promise<ComposedWatch | undefined>>();
  /** Composed kinds whose caches are synced, for the reconciler to read from. */
  private readonly synced = new Map<string, Informer>();
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
    const informer = this.synced.get(`${apiVersion}/${kind}`);
    return informer && !informer.isStopped() ? informer.store : undefined;
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
          const initial = event.type === 'add' && !xrInformer.hasSynced;
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
    // A shared XR informer may have synced before we subscribed; its objects then never arrive as events.
    if (xrInformer.hasSynced) {
      for (const object of store.list()) {
        if (this.owned(object) && !this.deferred(object)) this.options.enqueue(objectKey(object));
      }
    }
    await Promise.all([this.xrLease.informer.waitForSync(), this.revisionLease.informer.waitForSync()]);
  }

  /**
   * Watches a composed kind (idempotent) and resolves once its cache is synced. The reconciler calls it when an XR composes the kind; with realtime off
   * it does nothing, and composed changes are caught by the poll interval instead.
   */
  async watchComposed(apiVersion: string, kind: string): Promise<void> {
    if (!this.options.realtime) return;
    const gvk = `${apiVersion}/${kind}`;
    let watch = this.composed.get(gvk);
    if (!watch) {
      watch = this.startComposed(apiVersion, kind);
      this.composed.set(gvk, watch);
    }
    // Resolving only once the cache is synced means every change after this call reaches the XR.
    const informer = (await watch)?.lease.informer;
    if (!informer) return;
    await informer.waitForSync();
    if (this.composed.get(gvk) === watch) this.synced.set(gvk, informer);
  }

  /** Stops watching a composed kind no XR of this controller composes any more. */
  async unwatchComposed(apiVersion: string, kind: string): Promise<void> {
    const gvk = `${apiVersion}/${kind}`;
    const watch = await this.composed.get(gvk);
    this.composed.delete(gvk);
    this.synced.delete(gvk);
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
      const gvk = `${watch.apiVersion}/${watch.kind}`;
      const byXr = this.required.get(gvk) ?? new Map<string, RequiredWatch[]>();
      this.required.set(gvk, byXr);
      byXr.set(xrKey, [...(byXr.get(xrKey) ?? []), watch]);
    }
  }

  /** The composed kinds watched right now, as "apiVersion/kind". */
  composedKinds(): string[] {
    return [...this.composed.keys()];
  }

  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    const watches = await Promise.allSettled(this.composed.values());
    this.composed.clear();
    this.synced.clear();
    await Promise.all(
      watches.flatMap((watch) => (watch.status === 'fulfilled' && watch.value ? [watch.value.lease.release()] : [])),
    );
    await this.xrLease?.release();
    await this.revisionLease?.release();
    await this.functionLease?.release();
  }

  private async startComposed(apiVersion: string, kind: string): Promise<ComposedWatch | undefined> {
    let lease: InformerLease;
    try {
      lease = await this.options.informers.acquire(apiVersion, kind);
    } catch (err) {
      // Not served yet (a CRD on its way): forget it so the next reconcile that composes it tries again.
      this.composed.delete(`${apiVersion}/${kind}`);
      throw err;
    }
    const stop$ = new Subject<void>();
    const informer = lease.informer;
    this.composedStreams.next(
      informer.events$.pipe(
        mergeMap((event) => this.safely(kind, event, () => this.composedToXrs(event, informer.hasSynced))),
        takeUntil(stop$),
      ),
    );
    return { lease, stop$ };
  }

  /**
   * XRs a composed resource belongs to: its controller owner reference, every XR that lists it, and every XR whose
   * pipeline required it.
   */
  private composedToXrs(event: WatchEvent, synced: boolean): XrEvent[] {
    const { object } = event;
    const keys = new Set(controllerOwnerKeys(object, this.options.xr));
    const ref = {
      apiVersion: object.apiVersion,
      kind: object.kind,
      name: object.metadata.name,
      namespace: object.metadata.namespace,
    };
    for (const xr of this.xrInformer.store.byIndex(RESOURCE_REFS_INDEX, composedRefKey(ref))) keys.add(objectKey(xr));
    for (const [key, watches] of this.required.get(`${object.apiVersion}/${object.kind}`) ?? []) {
      if (watches.some((w) => isRequired(w, object))) keys.add(key);
    }
    // The first list of a composed kind replays what exists: its XRs are enqueued by their own events, so
    // charging each of them once per composed resource would trip the breaker of every large XR at start.
    const initial = event.type === 'add' && !synced;
    const nested = object.apiVersion === this.options.xr.apiVersion && object.kind === this.options.xr.kind;
    return [...keys]
      .filter((key) => this.ownedKey(key))
      .map((key) => ({ ...toXrEvent(key, event, false, initial ? 'resync' : undefined), echoMatters: nested }));
  }

  /** A new or changed revision concerns the XRs using it and, for automatic updates, those of its Composition. */
  private revisionToXrs(event: WatchEvent): XrEvent[] {
    const store = this.xrInformer.store;
    const revision = event.object;
    const xrs = store.byIndex(COMPOSITION_REVISION_INDEX, revision.metadata.name);
    const labels = (revision.metadata.labels ?? {}) as Record<string, string>;
    const composition = labels[COMPOSITION_NAME_LABEL];
    if (composition !== undefined) xrs.push(...store.byIndex(COMPOSITION_INDEX, composition));
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

function isHealthy(fn: KubeObject): boolean {
  const conditions = (fn.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions;
  return conditions?.some((c) => c.type === 'Healthy' && c.status === 'True') === true;
}

/** Whether an XR is Synced False naming the Function (as FunctionCallError words it: `function "<name>"`). */
function failedOn(xr: KubeObject, fn: string): boolean {
  const conditions = (xr.status as { conditions?: { type: string; status: string; message?: string }[] } | undefined)
    ?.conditions;
  const synced = conditions?.find((c) => c.type === 'Synced');
  return synced?.status === 'False' && (synced.message ?? '').toLowerCase().includes(`function "${fn}"`);
}

/** The Function names a composition revision's pipeline calls. */
function pipelineFunctions(revision: KubeObject): string[] {
  const pipeline = (revision.spec as { pipeline?: { functionRef?: { name?: string } }[] } | undefined)?.pipeline;
  return (pipeline ?? []).flatMap((step) => (step.functionRef?.name ? [step.functionRef.name] : []));
}

function toXrEvent(xrKey: string, event: WatchEvent, isXr: boolean, cause: WatchCause = event.type): XrEvent {
  return { xrKey, cause, object: event.object, isXr, afterGap: event.type === 'update' && event.afterGap === true };
}
