// In-memory informers for unit tests: a real ObjectStore per kind and a Subject of watch events the test drives.
// Nothing watches anything: `add`, `update`, `delete` and `resync` change the store and emit the event, as an
// informer would on a watch event; a subscriber gets the cache replayed first, as from a real informer.
import { Subject, type Observable } from 'rxjs';
import type { KubeObject } from '../../../src/kube/index.js';
import {
  ObjectStore,
  type Informer,
  type InformerLease,
  type InformerRegistry,
  type WatchEvent,
  withReplay,
} from '../../../src/watch/index.js';

export class FakeInformer<T extends KubeObject = KubeObject> {
  readonly store = new ObjectStore<T>();
  private readonly subject = new Subject<WatchEvent<T>>();
  private synced = false;
  private markSynced: () => void = () => undefined;
  private readonly syncedPromise = new Promise<void>((resolve) => (this.markSynced = resolve));
  stopped = false;

  constructor(synced: boolean) {
    if (synced) this.sync();
  }

  get events$(): Observable<WatchEvent<T>> {
    return withReplay(() => this.store.list(), this.subject.asObservable());
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  waitForSync(): Promise<void> {
    return this.syncedPromise;
  }

  /** The first list is in: waitForSync resolves and later adds are no longer part of it. */
  sync(): void {
    this.synced = true;
    this.markSynced();
  }

  /** Before `sync`, an add is part of the first list (`initial`), as an informer's first list is. */
  add(object: T): void {
    this.store.set(object);
    this.subject.next(this.synced ? { type: 'add', object } : { type: 'add', object, initial: true });
  }

  update(object: T): void {
    const oldObject = this.store.set(object) ?? object;
    this.subject.next({ type: 'update', object, oldObject });
  }

  delete(object: T): void {
    this.store.delete(keyOf(object));
    this.subject.next({ type: 'delete', object });
  }

  resync(object: T): void {
    this.subject.next({ type: 'resync', object });
  }

  /** Stores an object without an event, as if it had been listed before anyone subscribed. */
  seed(object: T): void {
    this.store.set(object);
  }
}

/** An InformerRegistry of fake informers, one per kind, created on first use; records acquires and releases. */
export class FakeInformers {
  readonly acquired: string[] = [];
  readonly released: string[] = [];
  /** Kinds whose acquire fails, as a kind that is not served yet. */
  readonly unserved = new Set<string>();
  private readonly informers = new Map<string, FakeInformer>();

  /** The informer of a kind; a new one is synced unless `synced` says otherwise. */
  informer<T extends KubeObject = KubeObject>(apiVersion: string, kind: string, synced = true): FakeInformer<T> {
    const gvk = `${apiVersion}/${kind}`;
    let informer = this.informers.get(gvk);
    if (!informer) {
      informer = new FakeInformer(synced);
      this.informers.set(gvk, informer);
    }
    return informer as unknown as FakeInformer<T>;
  }

  /** Delivers every change `server` makes to the informer of the object's kind, as the watches would. */
  follow(server: {
    watch(watcher: (change: { type: 'add' | 'update' | 'delete'; object: KubeObject }) => void): void;
  }): void {
    server.watch(({ type, object }) => {
      const informer = this.informer(object.apiVersion, object.kind);
      if (type === 'add') informer.add(object);
      else if (type === 'update') informer.update(object);
      else informer.delete(object);
    });
  }

  /** How many leases of a kind are held now. */
  held(apiVersion: string, kind: string): number {
    const gvk = `${apiVersion}/${kind}`;
    return this.acquired.filter((k) => k === gvk).length - this.released.filter((k) => k === gvk).length;
  }

  readonly registry = {
    acquire: <T extends KubeObject>(apiVersion: string, kind: string): Promise<InformerLease<T>> => {
      const gvk = `${apiVersion}/${kind}`;
      if (this.unserved.has(gvk)) return Promise.reject(new Error(`kind ${kind} of ${apiVersion} is not served`));
      this.acquired.push(gvk);
      const informer = this.informer<T>(apiVersion, kind);
      let released = false;
      return Promise.resolve({
        informer: informer as unknown as Informer<T>,
        resource: { groupVersionPath: `/apis/${apiVersion}`, plural: `${kind.toLowerCase()}s`, namespaced: true },
        release: () => {
          if (!released) this.released.push(gvk);
          released = true;
          return Promise.resolve();
        },
      });
    },
  } as unknown as InformerRegistry;
}

function keyOf(object: KubeObject): string {
  const { name, namespace } = object.metadata;
  return namespace ? `${namespace}/${name}` : name;
}
