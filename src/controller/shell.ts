import { merge, type Subscription } from 'rxjs';
import type { Logger } from 'pino';
import { kindKey, type ApiKind } from '../apis/index.js';
import type { KubeObject } from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { ReconcileQueue } from '../queue/index.js';
import type { InformerLease, InformerRegistry, ObjectStore } from '../watch/index.js';
import { controllerQueue, type ControllerQueueOptions } from './reconcileQueue.js';
import { isKindWatch, keysOf, type KeyRequest, type KindWatch, type Watch } from './watches.js';

/** Everything a controller is: its name, what it watches and how events map to keys, and its reconcile. */
export interface ControllerShellOptions extends ControllerQueueOptions {
  /** Where the watched kinds' informers come from; a controller that watches no kind needs none. */
  informers?: Pick<InformerRegistry, 'acquire'>;
  /** Kinds (whose shared informers the shell holds) and other streams of keys; their keys go to one queue. */
  watches: readonly Watch[];
  /** Runs once the caches are synced, before the first reconcile: what builds on the caches (a reconciler). */
  ready?: () => Promise<void> | void;
}

/**
 * The one shell every controller runs in, as controller-runtime's: `start` takes a lease on each watched kind,
 * joins its events (a late joiner gets the cache replayed, see withReplay) and every other key stream to the one
 * queue, waits for the first lists, then starts the workers; `stop` ends all of that in reverse, within its
 * deadline. The queue is the controllerQueue: the process's reconcile limiter, quiet conflicts, one log per failure.
 *
 * @example
 * const shell = new ControllerShell({ name, informers, metrics, settings, logger, reconcile,
 *   watches: [watchKind<Usage>({ kind: USAGE, keys: (e) => (e.type === 'delete' ? [] : [objectKey(e.object)]) })],
 *   errors: { keyField: 'usage' } });
 * await shell.start(signal);
 * await shell.stop(AbortSignal.timeout(30_000));
 */
export class ControllerShell implements Lifecycle {
  private readonly queue: ReconcileQueue;
  private readonly leases = new Map<string, InformerLease>();
  private readonly logger: Logger;
  private subscription: Subscription | undefined;

  constructor(private readonly options: ControllerShellOptions) {
    this.logger = options.logger.child({ controller: options.name });
    this.queue = controllerQueue(options);
  }

  get name(): string {
    return this.options.name;
  }

  /** Holds the watched kinds, joins every key stream to the queue, and starts the workers once the caches synced. */
  async start(signal?: AbortSignal): Promise<void> {
    const kinds = this.options.watches.filter(isKindWatch);
    await this.acquire(kinds);
    const sources = this.options.watches.map((watch) =>
      isKindWatch(watch) ? keysOf(this.lease(watch.kind).informer.events$, watch, this.logger) : watch.keys$,
    );
    this.subscription = merge(...sources).subscribe((request) => {
      this.request(request);
    });
    const syncs = kinds.filter((w) => w.waitForSync !== false).map((w) => this.lease(w.kind).informer.waitForSync());
    await untilAborted(Promise.all(syncs), signal);
    await this.options.ready?.();
    await this.queue.start();
  }

  /** Stops taking work, waits for reconciles in flight until `deadline` aborts, then lets go of the informers. */
  async stop(deadline: AbortSignal): Promise<void> {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    await this.queue.stop(deadline);
    const leases = [...this.leases.values()];
    this.leases.clear();
    await Promise.all(leases.map((lease) => lease.release()));
  }

  /** The lease of a watched kind, once start has taken it. */
  lease<T extends KubeObject = KubeObject>(kind: ApiKind): InformerLease<T> {
    const lease = this.leases.get(kindKey(kind));
    if (!lease)
      throw new Error(`cannot read ${kindKey(kind)}: controller ${this.options.name} does not hold its informer`);
    return lease as unknown as InformerLease<T>;
  }

  /** The cache of a watched kind; undefined before start and after stop. */
  store<T extends KubeObject = KubeObject>(kind: ApiKind): ObjectStore<T> | undefined {
    return (this.leases.get(kindKey(kind)) as InformerLease<T> | undefined)?.informer.store;
  }

  /** Asks for a key now, or after a delay. */
  request(request: KeyRequest): void {
    if (typeof request === 'string') this.queue.add(request);
    else this.queue.addAfter(request.key, request.afterMs);
  }

  /** Keys queued, reconciling, waiting: for diagnostics and tests. */
  stats(): ReturnType<ReconcileQueue['stats']> {
    return this.queue.stats();
  }

  /** Takes a lease per kind; when one fails, lets go of those taken and rethrows. */
  private async acquire(kinds: readonly KindWatch[]): Promise<void> {
    try {
      for (const watch of kinds) {
        const { informers } = this.options;
        if (!informers)
          throw new Error(`cannot watch ${kindKey(watch.kind)}: controller ${this.options.name} has no informers`);
        const lease = await informers.acquire(watch.kind.apiVersion, watch.kind.kind);
        this.leases.set(kindKey(watch.kind), lease);
        for (const [name, index] of Object.entries(watch.indexes ?? {})) lease.informer.store.addIndex(name, index);
      }
    } catch (err) {
      const taken = [...this.leases.values()];
      this.leases.clear();
      await Promise.all(taken.map((lease) => lease.release()));
      throw err;
    }
  }
}

/** Waits for `work`, or until `signal` aborts, whichever comes first; the signal keeps no listener after. */
async function untilAborted(work: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) {
    await work;
    return;
  }
  let onAbort = (): void => undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
