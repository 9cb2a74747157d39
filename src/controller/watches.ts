import { catchError, EMPTY, from, mergeAll, mergeMap, type Observable } from 'rxjs';
import type { Logger } from 'pino';
import type { ApiKind } from '../apis/index.js';
import { errorMessage } from '../base/index.js';
import type { KubeObject } from '../kube/index.js';
import { objectKey, type IndexFunction, type WatchEvent } from '../watch/index.js';

/** A key to reconcile now, or after a delay (a settled object of the first list, spread over its poll interval). */
export type KeyRequest = string | { readonly key: string; readonly afterMs: number };

/** The keys of one event: now, or once something settles (the echo of a write still in flight). */
export type Keys = readonly KeyRequest[] | PromiseLike<readonly KeyRequest[]>;

/** A kind whose shared informer a controller holds while it runs. */
export interface KindWatch<T extends KubeObject = KubeObject> {
  readonly kind: ApiKind;
  /**
   * The keys one event concerns, now or once a promise settles; nothing for an event that concerns none. Default:
   * the object's own key. `'none'`: the controller only reads the cache. A mapping that throws is logged and skipped.
   */
  keys?(event: WatchEvent<T>): Keys;
  readonly mapping?: 'none';
  /** Whether the workers wait for this kind's first list (default true): its cache is what reconciles read. */
  readonly waitForSync?: boolean;
  /** Secondary indexes the controller's reads and mappings use, added before the first event. */
  readonly indexes?: Readonly<Record<string, IndexFunction>>;
}

/** Keys from anywhere else: the composite controller's event pipeline, a timer, a first pass. */
export interface StreamWatch {
  readonly keys$: Observable<KeyRequest>;
}

export type Watch = KindWatch | StreamWatch;

/** Declares the watch of one kind, typing its mapping's events; a list of watches then holds several kinds. */
export function watchKind<T extends KubeObject>(watch: KindWatch<T>): KindWatch {
  return watch;
}

export function isKindWatch(watch: Watch): watch is KindWatch {
  return 'kind' in watch;
}

/** The object's own cache key, for every event: the default mapping. */
export function ownKey(event: WatchEvent): string[] {
  return [objectKey(event.object)];
}

/** One informer's events as key requests; a mapping that fails loses its event, never the stream. */
export function keysOf(events$: Observable<WatchEvent>, watch: KindWatch, logger: Logger): Observable<KeyRequest> {
  if (watch.mapping === 'none') return EMPTY;
  const keys = watch.keys?.bind(watch) ?? ownKey;
  const failed = (event: WatchEvent, err: unknown): Observable<never> => {
    logger.error(
      { source: watch.kind.kind, object: objectKey(event.object), err: errorMessage(err) },
      'cannot map a watch event to keys; event ignored',
    );
    return EMPTY;
  };
  return events$.pipe(
    mergeMap((event) => {
      try {
        const requests = keys(event);
        // Keys known now go now, in order: a promise's only once it settles.
        const keys$ = isArray(requests) ? from(requests) : from(requests).pipe(mergeAll());
        return keys$.pipe(catchError((err: unknown) => failed(event, err)));
      } catch (err) {
        return failed(event, err);
      }
    }),
  );
}

function isArray(keys: Keys): keys is readonly KeyRequest[] {
  return Array.isArray(keys);
}
