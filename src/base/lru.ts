export interface LruMapOptions<K, V> {
  /** Entries kept at most; setting one more forgets the least recently used. */
  max: number;
  /** Called with each entry forgotten to make room (not with those deleted or replaced). */
  onEvict?: (key: K, value: V) => void;
}

/**
 * A Map bounded to `max` entries that forgets the least recently used first, in O(1) per operation. Setting an
 * entry or reading it with `get` uses it; `peek` reads without using it, for caches ordered by when they were
 * written. Iteration runs from the least recently used.
 *
 * @example
 * const versions = new LruMap<string, string[]>({ max: 50_000 });
 * versions.set(uid, [resourceVersion]);
 */
export class LruMap<K, V> {
  // A Map iterates in insertion order: deleting and setting again moves an entry to the most recent end.
  private readonly entries = new Map<K, V>();

  constructor(private readonly options: LruMapOptions<K, V>) {
    if (!(options.max >= 0)) throw new RangeError(`max must be 0 or more, not ${options.max}`);
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** The value, leaving its place in the order unchanged. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Sets the value as the most recently used, then forgets the least recently used beyond `max`. */
  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    for (const [oldKey, oldValue] of this.entries) {
      if (this.entries.size <= this.options.max) break;
      this.entries.delete(oldKey);
      this.options.onEvict?.(oldKey, oldValue);
    }
    return this;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  /** Forgets entries from the least recently used on while `stale` holds, stopping at the first that is not. */
  deleteWhile(stale: (value: V, key: K) => boolean): void {
    for (const [key, value] of this.entries) {
      if (!stale(value, key)) return;
      this.entries.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  keys(): IterableIterator<K> {
    return this.entries.keys();
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries[Symbol.iterator]();
  }
}
