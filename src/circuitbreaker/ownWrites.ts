import type { WatchedObject } from './watchedObject.js';

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
  private readonly versions = new Map<string, string[]>();
  /** Writes in progress by object identity (kind, namespace, name: a create has no uid yet). */
  private readonly inFlight = new Map<string, { count: number; settled: Promise<void>; settle: () => void }>();
  private readonly maxObjects: number;
  private readonly versionsPerObject: number;

  constructor(options: OwnWritesOptions = {}) {
    this.maxObjects = options.maxObjects ?? 50_000;
    this.versionsPerObject = options.versionsPerObject ?? 4;
  }

  /** Call after every successful create, update, patch or apply, with the object the API server returned. */
  record(written: WatchedObject): void {
    const uid = written.metadata?.uid;
    const version = written.metadata?.resourceVersion;
    if (uid === undefined || version === undefined) return;
    const known = this.versions.get(uid) ?? [];
    // Delete and set again so the Map's insertion order is least-recently-written first.
    this.versions.delete(uid);
    known.push(version);
    if (known.length > this.versionsPerObject) known.shift();
    this.versions.set(uid, known);
    if (this.versions.size > this.maxObjects) {
      const oldest = this.versions.keys().next();
      if (oldest.done !== true) this.versions.delete(oldest.value);
    }
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

  /** True when `object` is exactly the result of one of our writes. */
  isEcho(object: WatchedObject): boolean {
    const uid = object.metadata?.uid;
    const version = object.metadata?.resourceVersion;
    if (uid === undefined || version === undefined) return false;
    return this.versions.get(uid)?.includes(version) === true;
  }

  /** Drops what is known about a deleted object. */
  forget(object: WatchedObject): void {
    const uid = object.metadata?.uid;
    if (uid !== undefined) this.versions.delete(uid);
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
