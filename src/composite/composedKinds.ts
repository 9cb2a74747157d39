import type { Subject } from 'rxjs';
import { kindKey, type ApiKind } from '../apis/index.js';
import type { Informer, InformerLease, ObjectStore } from '../watch/index.js';

/** The watch of one composed kind, as the event pipeline started it. */
export interface ComposedWatch {
  lease: InformerLease;
  stop$: Subject<void>;
  /**
   * Resolves once the first list is in and the tracker has taken it in (the cache serves reads, the XRs noted
   * before then are enqueued). Never rejects; never resolves for an informer stopped first.
   */
  synced: Promise<void>;
}

/**
 * Which composed kinds a composite controller watches and what its reconciler may read from their caches: the
 * watches (started once per kind), the kinds whose caches have synced, the XRs that read a kind before then, and the
 * kinds each of those XRs reads from the API server once more. It starts nothing itself; the event pipeline does.
 */
export class ComposedKinds {
  private readonly watches = new Map<string, Promise<ComposedWatch | undefined>>();
  /** Composed kinds whose caches are synced, for the reconciler to read from. */
  private readonly synced = new Map<string, Informer>();
  /**
   * Per composed kind whose cache has not synced yet: the XRs that read it from the API server, or applied it without
   * waiting for the first list. Each is enqueued once more when the cache has synced (see tookFirstList).
   */
  private readonly beforeSync = new Map<string, Set<string>>();
  /**
   * Per XR enqueued at a composed kind's sync: the kinds its next reconcile reads from the API server, not the cache
   * (takeLiveReads). What it applied may postdate the first list, and its watch event may not be in yet: read from the
   * cache, it would look missing or old and be applied again.
   */
  private readonly liveReads = new Map<string, Set<string>>();

  /** The watch of a kind; `start` starts it when there is none (a failed start is forgotten by forgetFailed). */
  watch(kind: ApiKind, start: () => Promise<ComposedWatch | undefined>): Promise<ComposedWatch | undefined> {
    const key = kindKey(kind);
    let watch = this.watches.get(key);
    if (!watch) {
      watch = start();
      this.watches.set(key, watch);
    }
    return watch;
  }

  /** Forgets a kind whose watch could not start (not served yet), so the next reconcile that composes it tries again. */
  forgetFailed(kind: ApiKind): void {
    this.watches.delete(kindKey(kind));
  }

  /** The cache of a composed kind once it is watched and synced; undefined otherwise. */
  store(kind: ApiKind): ObjectStore | undefined {
    const informer = this.synced.get(kindKey(kind));
    return informer && !informer.isStopped() ? informer.store : undefined;
  }

  isSynced(kind: ApiKind): boolean {
    return this.synced.has(kindKey(kind));
  }

  /** Notes an XR that read or applied a kind before its cache synced: it goes once more when the cache has. */
  noteBeforeSync(kind: ApiKind, xrKey: string): void {
    note(this.beforeSync, kindKey(kind), xrKey);
  }

  /**
   * A composed kind's informer has its first list: its cache serves reads from now on, unless the kind was unwatched
   * or watched anew meanwhile. Returns the XRs to enqueue once more, which read the kind from the API server that one
   * time (takeLiveReads).
   */
  async tookFirstList(kind: ApiKind, informer: Informer): Promise<string[]> {
    const key = kindKey(kind);
    const current = await this.watches.get(key);
    if (current?.lease.informer !== informer || informer.isStopped()) return [];
    this.synced.set(key, informer);
    const xrKeys = [...(this.beforeSync.get(key) ?? [])];
    this.beforeSync.delete(key);
    for (const xrKey of xrKeys) note(this.liveReads, xrKey, key);
    return xrKeys;
  }

  /** The composed kinds (by kindKey) the XR's reconcile reads from the API server this once; forgotten as taken. */
  takeLiveReads(xrKey: string): ReadonlySet<string> {
    const kinds = this.liveReads.get(xrKey) ?? new Set<string>();
    this.liveReads.delete(xrKey);
    return kinds;
  }

  /** A deleted XR's reconcile reads nothing: it would never take its live reads. */
  forgetXr(xrKey: string): void {
    this.liveReads.delete(xrKey);
  }

  /** Stops tracking a kind; returns its watch, for the caller to stop. */
  async remove(kind: ApiKind): Promise<ComposedWatch | undefined> {
    const key = kindKey(kind);
    const watch = await this.watches.get(key);
    this.watches.delete(key);
    this.synced.delete(key);
    this.beforeSync.delete(key);
    return watch;
  }

  /** The composed kinds watched right now, by kindKey. */
  kinds(): string[] {
    return [...this.watches.keys()];
  }

  /** Forgets everything; returns the watches that had started, for the caller to stop. */
  async clear(): Promise<ComposedWatch[]> {
    const watches = await Promise.allSettled(this.watches.values());
    this.watches.clear();
    this.synced.clear();
    this.beforeSync.clear();
    this.liveReads.clear();
    return watches.flatMap((watch) => (watch.status === 'fulfilled' && watch.value ? [watch.value] : []));
  }
}

/** Adds `value` to the set `notes` keeps under `key`. */
function note(notes: Map<string, Set<string>>, key: string, value: string): void {
  const values = notes.get(key) ?? new Set<string>();
  values.add(value);
  notes.set(key, values);
}
