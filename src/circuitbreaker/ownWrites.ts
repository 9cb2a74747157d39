import { LruMap, systemClock, type Clock } from '../base/index.js';
import type { WatchedObject } from './watchedObject.js';

/** How long `echoed` waits at most: `ms` on `clock` (the system clock unless given), or until `signal` aborts. */
export interface EchoBound {
  ms: number;
  clock?: Clock;
  signal?: AbortSignal;
}

export interface OwnWritesOptions {
  /** Objects remembered at most; the least recently written is forgotten first. */
  maxObjects?: number;
  /** Written objects kept to answer reads from a cache behind them (see remember); the oldest is forgotten first. */
  maxAhead?: number;
  /** Resource versions remembered per object, for several writes landing before their first echo arrives. */
  versionsPerObject?: number;
  /** Echoes of forgotten objects still recognised when judged again; the oldest is forgotten first. */
  recentEchoes?: number;
}

/**
 * The resource versions compositor's own writes produced, so the watch events they cause (their echoes) can be
 * recognised: an event whose object has the uid and resourceVersion a write of ours returned shows exactly what
 * we wrote, so it costs no breaker token and triggers no reconcile. Without this an XR applying 200 composed
 * resources would trip its own breaker (upstream #7108).
 *
 * Memory is bounded: echoes arrive within moments of the write, so forgetting the oldest entries past the bound
 * only ever costs a token for an echo that never came or came very late.
 */
export class OwnWrites {
  /**
   * By uid, the resource versions our writes returned, oldest first, and whether each one's echo has come; the
   * least recently written object is forgotten first.
   */
  private readonly versions: LruMap<string, { version: string; echoed: boolean }[]>;
  /** Who waits for the echo of a write, by `uid@resourceVersion` (see echoed). */
  private readonly waiters = new Map<string, (() => void)[]>();
  /** Writes in progress by object identity (kind, namespace, name: a create has no uid yet). */
  private readonly inFlight = new Map<string, { count: number; settled: Promise<void>; settle: () => void }>();
  private readonly versionsPerObject: number;
  /**
   * What our last write of some objects returned, by API version, kind, namespace and name, with the versions a cache
   * that has not caught up with it may still show: the one that write replaced (none for a creation), and those our
   * earlier writes replaced while the cache was behind them too.
   */
  private readonly ahead: LruMap<string, AheadWrite>;
  /** `uid@resourceVersion` of the latest echoes of objects forgotten once settled (see settled). */
  private readonly recentEchoes: LruMap<string, true>;

  constructor(options: OwnWritesOptions = {}) {
    this.ahead = new LruMap({ max: options.maxAhead ?? 10_000 });
    this.versions = new LruMap({
      max: options.maxObjects ?? 50_000,
      onEvict: (uid, known) => {
        this.released(uid, known);
      },
    });
    this.versionsPerObject = options.versionsPerObject ?? 4;
    this.recentEchoes = new LruMap({ max: options.recentEchoes ?? 4_096 });
  }

  /** Call after every successful create, update, patch or apply, with the object the API server returned. */
  record(written: WatchedObject): void {
    const uid = written.metadata?.uid;
    const version = written.metadata?.resourceVersion;
    if (uid === undefined || version === undefined) return;
    const known = this.versions.peek(uid) ?? [];
    known.push({ version, echoed: false });
    if (known.length > this.versionsPerObject) this.release(uid, known.shift()?.version);
    // Set again, so this object is now the most recently written.
    this.versions.set(uid, known);
  }

  /**
   * Settles once the watch has delivered the echo of every write in `written` (objects our writes returned), so the
   * caches show them; a write forgotten before its echo came (evicted, superseded, deleted) counts as delivered.
   * The wait must be bounded, since an echo a relist skipped never comes: by the caller (the queue bounds an
   * `expediteWhen` by its requeue delay), or with `bound`, after `bound.ms` on its clock or when its signal aborts.
   *
   * @example
   * await ownWrites.echoed([written], { ms: 5_000, signal });
   */
  echoed(written: readonly WatchedObject[], bound?: EchoBound): Promise<void> {
    const all = this.echoesOf(written);
    return bound === undefined ? all : atMost(all, bound);
  }

  private echoesOf(written: readonly WatchedObject[]): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const object of written) {
      const uid = object.metadata?.uid;
      const version = object.metadata?.resourceVersion;
      if (uid === undefined || version === undefined || this.writeOf(uid, version)?.echoed !== false) continue;
      const id = `${uid}@${version}`;
      const waiting = this.waiters.get(id) ?? [];
      this.waiters.set(id, waiting);
      waits.push(new Promise<void>((resolve) => waiting.push(resolve)));
    }
    return Promise.all(waits).then(() => undefined);
  }

  /**
   * Runs a write and records its result. The API server often delivers a write's watch event before its
   * response, so until the write settles, events about the object are held (see pending) rather than judged.
   */
  async track<T extends WatchedObject>(target: WatchedObject, write: () => Promise<T>): Promise<T> {
    const id = identity(target);
    let entry = this.inFlight.get(id);
    if (!entry) {
      let settle: () => void = () => undefined;
      const settled = new Promise<void>((resolve) => (settle = resolve));
      entry = { count: 0, settled, settle };
      this.inFlight.set(id, entry);
    }
    entry.count++;
    const current = entry;
    try {
      const written = await write();
      this.record(written);
      return written;
    } finally {
      current.count--;
      if (current.count === 0) {
        this.inFlight.delete(id);
        current.settle();
      }
    }
  }

  /** Settles when no write to `object` is in flight any more; undefined when none is. */
  pending(object: WatchedObject): Promise<void> | undefined {
    if (this.inFlight.size === 0) return undefined;
    return this.inFlight.get(identity(object))?.settled;
  }

  /** True when `object` is exactly the result of one of our writes; wakes whoever waits for that echo. */
  isEcho(object: WatchedObject): boolean {
    const uid = object.metadata?.uid;
    const version = object.metadata?.resourceVersion;
    if (uid === undefined || version === undefined) return false;
    const known = this.versions.peek(uid);
    const write = known?.find((candidate) => candidate.version === version);
    if (known === undefined || write === undefined) return this.recentEchoes.has(`${uid}@${version}`);
    write.echoed = true;
    this.caughtUp(object, version);
    if (this.waiters.size > 0) this.release(uid, version);
    if (known.every((candidate) => candidate.echoed)) this.settled(uid, version);
    return true;
  }

  /** The cache now holds the write that returned `version`: what it returned need not be kept to answer for it. */
  private caughtUp(object: WatchedObject, version: string): void {
    if (this.ahead.size === 0) return;
    const key = aheadKey(object);
    if (this.ahead.peek(key)?.written.metadata?.resourceVersion === version) this.ahead.delete(key);
  }

  /**
   * Every write of ours to an object has come back: nothing about it is left to recognise or wait for, and an
   * object no longer remembered reads as one whose last write's echo came (showsLastWrite, echoCame, echoesOf), so
   * it is forgotten. Kept, every object written once stayed until 50,000 newer ones pushed it out: 10 MiB of an
   * at-rest process's heap at 5,000 XRs of the platform benchmark, for nothing left to recognise. The echo itself
   * is kept a while longer in a small memory, since one watch event may be judged more than once (an event fanned
   * out to several XRs, an event held while a write was in flight and judged after).
   */
  private settled(uid: string, version: string): void {
    this.versions.delete(uid);
    this.recentEchoes.set(`${uid}@${version}`, true);
  }

  /**
   * Whether a cached copy of an object is at or past the last write of ours to it: its resourceVersion is the one
   * that write returned, or that write's echo has come (the watch feeding the cache delivered it, so the cache holds
   * it or what came after), or no write of ours to it is remembered (none in this process, or one forgotten long
   * ago). A copy of another version while the echo has not come may predate that write.
   */
  showsLastWrite(object: WatchedObject): boolean {
    const uid = object.metadata?.uid;
    if (uid === undefined) return true;
    const last = this.versions.peek(uid)?.at(-1);
    return last === undefined || last.echoed || last.version === object.metadata?.resourceVersion;
  }

  /**
   * Keeps what a write returned and the version it replaced (`replaced`, the resourceVersion of the copy the writer
   * read; undefined when it created the object), so that a read from a cache still behind the write is answered with
   * what was written (aheadOfCache) rather than with the copy from before, which would make the reader write the same
   * again or ask the API server.
   */
  remember(written: WatchedObject, replaced: string | undefined): void {
    const version = written.metadata?.resourceVersion;
    if (version === undefined) return;
    const key = aheadKey(written);
    const before = this.ahead.peek(key);
    // Written over our own earlier write the cache had not caught up with: it may still show what that one replaced.
    const chain = before?.written.metadata?.resourceVersion === replaced ? before?.replaced : undefined;
    this.ahead.set(key, { written, replaced: new Set([...(chain ?? []), replaced]) });
  }

  /**
   * The object as our last write returned it, when the cached copy is one that write replaced: none at all while the
   * echo of the write that created it has not come, or exactly a version it replaced. Any other copy (the write's
   * echo, a later change by someone else, a new object of the same name) is at least as new, and undefined is
   * returned: the cache answers.
   */
  aheadOfCache(
    ref: { apiVersion: string; kind: string; name: string; namespace?: string },
    cached: WatchedObject | undefined,
  ): WatchedObject | undefined {
    if (this.ahead.size === 0) return undefined;
    const key = aheadKey({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: ref });
    const entry = this.ahead.peek(key);
    if (entry === undefined) return undefined;
    if (!entry.replaced.has(cached?.metadata?.resourceVersion) || (cached === undefined && this.echoCame(entry))) {
      // The cache has caught up (or the object is gone since): it answers from now on.
      this.ahead.delete(key);
      return undefined;
    }
    return entry.written;
  }

  /**
   * Whether the echo of a remembered write has come: then a cache without the object has news (deleted since).
   * Also when that write is no longer remembered at all (forgotten, superseded): nothing then says the cache is behind.
   */
  private echoCame(entry: AheadWrite): boolean {
    const { uid, resourceVersion } = entry.written.metadata ?? {};
    return uid === undefined || resourceVersion === undefined || this.writeOf(uid, resourceVersion)?.echoed !== false;
  }

  /** Stops answering for an object (aheadOfCache): the writer deleted it. */
  letGo(object: WatchedObject): void {
    if (this.ahead.size > 0) this.ahead.delete(aheadKey(object));
  }

  /** Drops what is known about a deleted object. */
  forget(object: WatchedObject): void {
    this.letGo(object);
    const uid = object.metadata?.uid;
    if (uid !== undefined) this.forgetUid(uid);
  }

  private writeOf(uid: string, version: string): { version: string; echoed: boolean } | undefined {
    return this.versions.peek(uid)?.find((known) => known.version === version);
  }

  private forgetUid(uid: string): void {
    const known = this.versions.peek(uid);
    this.versions.delete(uid);
    this.released(uid, known ?? []);
  }

  /** Wakes whoever waits for the echoes of a forgotten object's writes: they count as delivered. */
  private released(uid: string, known: readonly { version: string }[]): void {
    if (this.waiters.size > 0) for (const { version } of known) this.release(uid, version);
  }

  private release(uid: string, version: string | undefined): void {
    const id = `${uid}@${version}`;
    const waiting = this.waiters.get(id);
    if (waiting === undefined) return;
    this.waiters.delete(id);
    for (const wake of waiting) wake();
  }

  /** Objects currently remembered. */
  get size(): number {
    return this.versions.size;
  }

  /** Written objects currently kept to answer for a cache behind them (aheadOfCache); informational only. */
  get aheadSize(): number {
    return this.ahead.size;
  }
}

/** What a write returned, and the versions of the object a cache still behind that write may show. */
interface AheadWrite {
  written: WatchedObject;
  replaced: Set<string | undefined>;
}

/** An object's API version, kind, namespace and name: kinds of one name in two groups do not collide. */
function aheadKey(object: WatchedObject): string {
  const { apiVersion = '', kind = '', metadata = {} } = object;
  return `${apiVersion}/${kind}/${metadata.namespace ?? ''}/${metadata.name ?? ''}`;
}

function identity(object: WatchedObject): string {
  const { kind = '', metadata = {} } = object;
  return `${kind}/${metadata.namespace ?? ''}/${metadata.name ?? ''}`;
}

/** `work`, or whichever of the bound's time and signal comes first; leaves no timer or listener behind. */
function atMost(work: Promise<void>, { ms, clock = systemClock, signal }: EchoBound): Promise<void> {
  if (signal?.aborted === true) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      timer.cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimer(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    void work.then(done);
  });
}
