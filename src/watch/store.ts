import type { KubeObject } from '../kube/index.js';
import { objectKey } from './events.js';

/** Values under which an object is indexed; an object may appear under several values, or none. */
export type IndexFunction<T extends KubeObject = KubeObject> = (object: T) => readonly string[];

/**
 * The informer's in-memory cache: objects by key, plus named secondary indexes kept in step with every change, so
 * a lookup such as "which XRs reference this composed object" costs a map read, never a LIST.
 */
export class ObjectStore<T extends KubeObject = KubeObject> {
  private readonly objects = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunction<T>>();
  /** index name -> value -> object keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  get size(): number {
    return this.objects.size;
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  keys(): string[] {
    return [...this.objects.keys()];
  }

  /** Adds an index; adding the same name again keeps the first function, since shared informers share indexes. */
  addIndex(name: string, indexFunction: IndexFunction<T>): void {
    if (this.indexers.has(name)) return;
    this.indexers.set(name, indexFunction);
    const index = new Map<string, Set<string>>();
    this.indices.set(name, index);
    for (const [key, object] of this.objects) addTo(index, indexFunction(object), key);
  }

  hasIndex(name: string): boolean {
    return this.indexers.has(name);
  }

  /** Objects indexed under `value` by index `name`. */
  byIndex(name: string, value: string): T[] {
    const index = this.indices.get(name);
    if (!index) throw new Error(`no index named ${name}`);
    const keys = index.get(value);
    if (!keys) return [];
    return [...keys].flatMap((key) => {
      const object = this.objects.get(key);
      return object ? [object] : [];
    });
  }

  /** Stores an object and returns the one it replaced. */
  set(object: T): T | undefined {
    const key = objectKey(object);
    const old = this.objects.get(key);
    if (old) this.unindex(key, old);
    this.objects.set(key, object);
    for (const [name, indexFunction] of this.indexers) addTo(this.index(name), indexFunction(object), key);
    return old;
  }

  delete(key: string): T | undefined {
    const old = this.objects.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.objects.delete(key);
    return old;
  }

  clear(): void {
    this.objects.clear();
    for (const index of this.indices.values()) index.clear();
  }

  private unindex(key: string, object: T): void {
    for (const [name, indexFunction] of this.indexers) {
      const index = this.index(name);
      for (const value of indexFunction(object)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }

  private index(name: string): Map<string, Set<string>> {
    const index = this.indices.get(name);
    if (!index) throw new Error(`no index named ${name}`);
    return index;
  }
}

function addTo(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    let keys = index.get(value);
    if (!keys) {
      keys = new Set();
      index.set(value, keys);
    }
    keys.add(key);
  }
}
