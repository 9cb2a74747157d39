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
  /** Resource versions remembered per object, for several writes landing before their first echo arrives. */
  versionsPerObject?: number;
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

  constructor(options: OwnWritesOptions = {}) {
    this.versions = new LruMap({
      max: options.maxObjects ?? 50_000,
      onEvict: (uid, known) => {
        this.released(uid, known);
      },
    });
    this.versionsPerObject = options.versionsPerObject ?? 4;
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
    const write = this.writeOf(uid, version);
    if (write === undefined) return false;
    write.echoed = true;
    if (this.waiters.size > 0) this.release(uid, version);
    return true;
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

  /** Drops what is known about a deleted object. */
  forget(object: WatchedObject): void {
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
