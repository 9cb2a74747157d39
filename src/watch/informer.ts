import { Subject, type Observable } from 'rxjs';
import type { Logger } from 'pino';
import { backoffDelay, errorMessage, monotonicClock, type Backoff, type Clock, type Timer } from '../base/index.js';
import type { KubeObject } from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import { objectKey, resourceVersionOf, type WatchEvent } from './events.js';
import type { ListerWatcher, RawEventType, WatchHandle } from './listerWatcher.js';
import { withReplay } from './replay.js';
import { ObjectStore } from './store.js';
import { trimForCache } from './trim.js';
import { SHORT_WATCH_MS, SilenceWatchdog, silenceLimitMs, watchTimeoutSeconds } from './watchDeadline.js';

/** Relists after failures: 500 ms doubling to 30 s, half of each delay random so informers spread out. */
export const INFORMER_BACKOFF: Backoff = { baseMs: 500, capMs: 30_000, jitter: 0.5 };

export interface InformerOptions<T extends KubeObject> {
  /** "apiVersion/kind", for logs. */
  name: string;
  listerWatcher: ListerWatcher<T>;
  logger: Logger;
  /** --sync-interval: every cached object is re-delivered as a `resync` event this often; 0 disables. */
  syncIntervalMs: number;
  /** Relists after failures; 500 ms doubling to 30 s with equal jitter by default. */
  backoff?: Backoff;
  /** The silence deadline, how long a watch lasted, backoff and resync; the monotonic clock unless given. */
  clock?: Clock;
  /** The jitter of backoff and of each watch's timeoutSeconds, so informers spread out; Math.random unless given. */
  random?: () => number;
  /**
   * A watch that delivers nothing for this long is aborted and rewatched. Default: its own timeoutSeconds plus
   * WATCH_GRACE_MS, the earliest moment silence proves the connection dead (see watchDeadline.ts).
   */
  silenceTimeoutMs?: number;
  /** False keeps metadata.managedFields in the cache (trim.ts); true unless given. */
  trimCache?: boolean;
}

/**
 * Why one watch ended, which decides whether the informer rewatches, relists, or backs off. A close or a 410 is
 * healthy when the watch delivered something or lasted past SHORT_WATCH_MS: idle watches end without a single event.
 */
type WatchEnd =
  | { kind: 'closed'; healthy: boolean }
  | { kind: 'silent' }
  | { kind: 'suspect' }
  | { kind: 'gone'; healthy: boolean }
  | { kind: 'failed'; error: unknown };

/**
 * A list-then-watch cache of one kind, supervised: a 410 Gone relists at once; any other failure (an error status,
 * a dropped connection) relists and rewatches after capped, jittered backoff; a clean close, or a watch silent past
 * its deadline (a connection that died without a word), rewatches from the last resourceVersion. Events go out on
 * one hot Observable; a subscriber that throws does not end it (RxJS reports the error, see logSubscriberErrors).
 */
export class Informer<T extends KubeObject = KubeObject> implements Lifecycle {
  readonly store = new ObjectStore<T>();
  private readonly subject = new Subject<WatchEvent<T>>();
  private readonly abort = new AbortController();
  private readonly clock: Clock;
  private readonly random: () => number;
  private resourceVersion: string | undefined;
  private loop: Promise<void> | undefined;
  private resyncTimer: Timer | undefined;
  private syncedResolve: () => void = () => undefined;
  private readonly syncedPromise = new Promise<void>((resolve) => (this.syncedResolve = resolve));
  private synced = false;
  /** Ends the watch in flight, if any (see rewatch). */
  private endWatch: ((end: WatchEnd) => void) | undefined;
  /** How many times the informer listed, for tests and diagnostics. */
  relists = 0;

  constructor(private readonly options: InformerOptions<T>) {
    this.clock = options.clock ?? monotonicClock;
    this.random = options.random ?? Math.random;
  }

  /**
   * Every change, for as long as the informer runs. A subscriber gets the cache replayed first, as `initial` adds
   * (see withReplay), so one that joins a shared informer late misses nothing and needs no list of its own.
   */
  get events$(): Observable<WatchEvent<T>> {
    return withReplay(() => this.store.list(), this.subject.asObservable());
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  /** A method, not a getter, so the compiler re-reads it after every await. */
  isStopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Resolves once the first list is in the cache (or at once when the informer is stopped before that). */
  waitForSync(): Promise<void> {
    return this.syncedPromise;
  }

  /**
   * Starts listing and watching; resolves as `waitForSync` does. The watch runs until `stop`, whatever happens to
   * the returned promise, so a caller that hands the informer out before it syncs need not wait for it.
   */
  start(): Promise<void> {
    if (this.loop || this.isStopped()) return this.syncedPromise;
    this.loop = this.run();
    if (this.options.syncIntervalMs > 0) {
      this.resyncTimer = this.clock.setInterval(() => {
        this.resync();
      }, this.options.syncIntervalMs);
    }
    return this.syncedPromise;
  }

  /** Stops the watch, frees the cache and completes the event stream. Safe to call more than once. */
  async stop(): Promise<void> {
    if (this.isStopped()) return;
    this.abort.abort();
    this.resyncTimer?.cancel();
    this.syncedResolve();
    await this.loop;
    this.store.clear();
    this.subject.complete();
  }

  /**
   * Ends the current watch and opens a new one from the last resourceVersion, at once: the client found a connection
   * to the API server dead, and this watch's own connection most likely went the same way. Costs one watch request
   * when it had not; a 410 then turns into a relist as usual.
   */
  rewatch(): void {
    this.endWatch?.({ kind: 'suspect' });
  }

  private resync(): void {
    for (const object of this.store.list()) this.emit({ type: 'resync', object });
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.isStopped()) {
      try {
        if (this.resourceVersion === undefined) await this.relist();
        const end = await this.watchOnce(this.resourceVersion ?? '');
        if (this.isStopped()) return;
        failures = await this.afterWatch(end, failures);
      } catch (err) {
        if (this.isStopped()) return;
        failures++;
        const delayMs = this.delay(failures);
        this.options.logger.warn(
          { informer: this.options.name, err: errorMessage(err), retryInMs: delayMs },
          'watch failed: relisting after backoff',
        );
        this.resourceVersion = undefined;
        await this.clock.sleep(delayMs, this.abort.signal).catch(() => undefined);
      }
    }
  }

  /** What follows one watch's end; returns the failures in a row so far, throws to relist after backoff. */
  private async afterWatch(end: WatchEnd, failures: number): Promise<number> {
    if (end.kind === 'gone') {
      this.options.logger.info({ informer: this.options.name }, 'watch expired (410 Gone): relisting');
      this.resourceVersion = undefined;
      // A server that answers every watch right after a list with 410 (a CRD's storage being torn down) would
      // otherwise be listed in a tight loop, each list the whole collection.
      return this.backOffUnless(end.healthy, failures);
    }
    if (end.kind === 'failed') throw end.error;
    if (end.kind === 'silent' || end.kind === 'suspect') {
      // Possibly a half-open connection: rewatch from where we were; a 410 then turns into a relist.
      const why = end.kind === 'silent' ? 'watch silent past its timeout' : 'a connection to the API server died';
      this.options.logger.info({ informer: this.options.name }, `${why}: rewatching`);
      return failures;
    }
    // A server that closes watches at once would otherwise be hammered in a tight loop.
    return this.backOffUnless(end.healthy, failures);
  }

  /** After a healthy watch, the failures in a row start again; after the second unhealthy one in a row, back off. */
  private async backOffUnless(healthy: boolean, failures: number): Promise<number> {
    const next = healthy ? 0 : failures + 1;
    if (next > 1) await this.clock.sleep(this.delay(next - 1), this.abort.signal);
    return next;
  }

  /** The delay before the relist after `failures` failures in a row (1 or more). */
  private delay(failures: number): number {
    return backoffDelay(this.options.backoff ?? INFORMER_BACKOFF, failures - 1, () => this.random());
  }

  /** Replaces the cache with a fresh list, emitting the difference as add, update and delete events. */
  private async relist(): Promise<void> {
    const { items, resourceVersion } = await this.options.listerWatcher.list(this.abort.signal);
    if (this.isStopped()) return;
    this.relists++;
    const seen = new Set<string>();
    for (const listed of items) {
      const object = trimForCache(listed, this.options.trimCache ?? true);
      const key = objectKey(object);
      seen.add(key);
      const old = this.store.set(object);
      if (!old) this.emit(this.synced ? { type: 'add', object } : { type: 'add', object, initial: true });
      else if (resourceVersionOf(old) !== resourceVersionOf(object))
        this.emit({ type: 'update', object, oldObject: old, afterGap: true });
    }
    for (const key of this.store.keys()) {
      if (seen.has(key)) continue;
      const old = this.store.delete(key);
      if (old) this.emit({ type: 'delete', object: old });
    }
    this.resourceVersion = resourceVersion;
    if (!this.synced) {
      this.synced = true;
      this.syncedResolve();
    }
  }

  /**
   * One watch, until the server ends it, it fails, its silence deadline passes or the informer stops. Resolves
   * without waiting for the transport to confirm an abort: a dead connection may never confirm anything.
   */
  private watchOnce(resourceVersion: string): Promise<WatchEnd> {
    const timeoutSeconds = watchTimeoutSeconds(() => this.random());
    const silenceMs = this.options.silenceTimeoutMs ?? silenceLimitMs(timeoutSeconds);
    return new Promise<WatchEnd>((resolve) => {
      const openedAt = this.clock.now();
      let sawEvents = false;
      const healthy = (): boolean => sawEvents || this.clock.now() - openedAt >= SHORT_WATCH_MS;
      let handle: WatchHandle | undefined;
      let end: WatchEnd | undefined;
      const signal = this.abort.signal;
      const finish = (result: WatchEnd): void => {
        if (end) return;
        end = result;
        if (this.endWatch === finish) this.endWatch = undefined;
        watchdog.stop();
        signal.removeEventListener('abort', onStop);
        handle?.stop();
        resolve(result);
      };
      const onStop = (): void => {
        finish({ kind: 'closed', healthy: true });
      };
      const watchdog = new SilenceWatchdog(silenceMs, this.clock, () => {
        finish({ kind: 'silent' });
      });
      if (signal.aborted) {
        onStop();
        return;
      }
      signal.addEventListener('abort', onStop, { once: true });
      this.endWatch = finish;
      watchdog.start();
      this.options.listerWatcher
        .watch(
          resourceVersion,
          {
            onEvent: (type, object) => {
              if (end) return;
              watchdog.activity();
              if (type === 'ERROR') {
                finish(classify(object, healthy()));
                return;
              }
              sawEvents = true;
              this.apply(type, object);
            },
            onDone: (err: unknown) => {
              finish(err === null ? { kind: 'closed', healthy: healthy() } : classify(err, healthy()));
            },
          },
          { timeoutSeconds },
        )
        .then(
          (opened) => {
            // The watch may have ended (deadline passed while connecting, informer stopped) before it opened.
            if (end) {
              opened.stop();
              return;
            }
            handle = opened;
            watchdog.activity();
          },
          (err: unknown) => {
            finish({ kind: 'failed', error: err });
          },
        );
    });
  }

  /** Applies one raw watch event (not an ERROR) to the cache. */
  private apply(type: Exclude<RawEventType, 'ERROR'>, raw: unknown): void {
    const object = trimForCache(raw as T, this.options.trimCache ?? true);
    const rv = resourceVersionOf(object);
    if (rv !== undefined) this.resourceVersion = rv;
    if (type === 'BOOKMARK') return;
    if (type === 'DELETED') {
      this.store.delete(objectKey(object));
      this.emit({ type: 'delete', object });
      return;
    }
    const old = this.store.set(object);
    this.emit(old ? { type: 'update', object, oldObject: old } : { type: 'add', object });
  }

  private emit(event: WatchEvent<T>): void {
    this.subject.next(event);
  }
}

/** A 410 (as an HTTP status or a Status object in an ERROR event) means the resourceVersion is gone: relist. */
function classify(err: unknown, healthy: boolean): WatchEnd {
  if (err instanceof Error && err.name === 'TimeoutError') return { kind: 'silent' };
  const status = err as { statusCode?: number; code?: number } | null;
  if (status?.statusCode === 410 || status?.code === 410) return { kind: 'gone', healthy };
  return { kind: 'failed', error: err };
}
