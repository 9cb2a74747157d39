import { kindKey, type ApiKind } from '../apis/index.js';
import { errorMessage, waitAtMost, type Clock } from '../base/index.js';
import {
  NAMESPACE_INDEX,
  namespaceIndex,
  type InformerLease,
  type InformerRegistry,
  type ObjectStore,
} from '../watch/index.js';

/**
 * How long the first lookup of a required kind waits for its informer's first list. Usually it is in long before;
 * a kind with 300,000 objects after a restart is not, and a reconcile that waited for it would hold its XR that long.
 */
export const REQUIRED_SYNC_WAIT_MS = 5_000;

/** Informer caches that answer required-resource lookups; the composite controller's is RequiredKinds. */
export interface RequiredCache {
  /**
   * `read` applied to the kind's cache once it has synced, in the same turn as the check, so a cache stopped
   * meanwhile is never read. Undefined when the kind has no synced cache yet: the caller asks the API server.
   * Rejects when the kind cannot be watched.
   */
  read<T>(kind: ApiKind, read: (store: ObjectStore) => T): Promise<T | undefined>;
}

export interface RequiredKindsOptions {
  informers: Pick<InformerRegistry, 'acquire'>;
  /** The bound on the wait for a kind's first list. */
  clock: Clock;
  /** Default REQUIRED_SYNC_WAIT_MS. */
  syncWaitMs?: number;
}

interface Entry {
  lease: Promise<InformerLease>;
  /** The one bounded wait for the first list, shared by every lookup that comes before it ends. */
  firstWait: Promise<void>;
}

/**
 * The caches required resources are served from, as Crossplane serves them from its cached client: one informer per
 * required kind, started by the first lookup through the shared InformerRegistry, so the realtime watch of a required
 * kind (the event pipeline's) is the same informer and the same cache. Only the first lookups of a kind wait for its
 * first list, and only so long; until it is in, lookups go to the API server. A kind's lease is held until release
 * (no XR of the controller requires it any more) or stop.
 *
 * @example
 * const required = new RequiredKinds({ informers, clock });
 * const cm = await required.read({ apiVersion: 'v1', kind: 'ConfigMap' }, (store) => store.get('default/settings'));
 */
export class RequiredKinds implements RequiredCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: RequiredKindsOptions) {}

  async read<T>(kind: ApiKind, read: (store: ObjectStore) => T): Promise<T | undefined> {
    const entry = this.entry(kind);
    const lease = await entry.lease;
    await entry.firstWait;
    const { informer } = lease;
    if (!informer.hasSynced || informer.isStopped()) return undefined;
    return read(informer.store);
  }

  /** Gives up the kind's informer lease (the informer stops with its last lease). */
  async release(kind: ApiKind): Promise<void> {
    const key = kindKey(kind);
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    const lease = await entry.lease.catch(() => undefined);
    await lease?.release();
  }

  /** Gives up every lease. */
  async stop(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(entries.map(async (entry) => (await entry.lease.catch(() => undefined))?.release()));
  }

  private entry(kind: ApiKind): Entry {
    const key = kindKey(kind);
    const known = this.entries.get(key);
    if (known) return known;
    const lease = this.acquire(kind);
    const entry: Entry = {
      lease,
      firstWait: lease.then(
        ({ informer }) =>
          waitAtMost(this.options.clock, informer.waitForSync(), this.options.syncWaitMs ?? REQUIRED_SYNC_WAIT_MS),
        () => undefined,
      ),
    };
    this.entries.set(key, entry);
    // A kind that cannot be watched (not served yet) is forgotten, so the next lookup tries again.
    lease.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry;
  }

  private async acquire(kind: ApiKind): Promise<InformerLease> {
    try {
      const lease = await this.options.informers.acquire(kind.apiVersion, kind.kind);
      // Label lookups in one namespace read only that namespace's objects.
      lease.informer.store.addIndex(NAMESPACE_INDEX, namespaceIndex);
      return lease;
    } catch (err) {
      throw new Error(`cannot watch required ${kind.kind} ${kind.apiVersion}: ${errorMessage(err)}`, { cause: err });
    }
  }
}
