import type { KubeConfig } from '@kubernetes/client-node';
// From its own module, not the package root, which loads client-node's generated API clients (kube/slimClientNode.ts).
import { Watch } from '@kubernetes/client-node/dist/watch.js';
import { withUserAgent, type KubeClient, type KubeObject, type ResourceInfo } from '../kube/index.js';
import { silenceLimitMs, WATCH_TIMEOUT_SECONDS, watchTimeoutSeconds } from './watchDeadline.js';

export interface ListResult<T extends KubeObject> {
  items: T[];
  resourceVersion: string;
}

/** The raw watch event types the API server sends. */
export type RawEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchCallbacks {
  onEvent(type: RawEventType, object: unknown): void;
  /** Called once when the stream ends: null for a clean close, otherwise the error. */
  onDone(err: unknown): void;
}

export interface WatchHandle {
  stop(): void;
}

export interface WatchOptions {
  /**
   * Asks the server to end the watch after this long. The informer chooses it, because its silence deadline is
   * derived from it; a lister-watcher given none picks one in WATCH_TIMEOUT_SECONDS.
   */
  timeoutSeconds?: number;
}

/**
 * The two API calls an informer makes. The informer owns all supervision (relist, backoff, watchdog); this layer
 * only talks to the server, so tests can wrap it to force server behaviour such as a stale resourceVersion.
 */
export interface ListerWatcher<T extends KubeObject = KubeObject> {
  list(signal: AbortSignal): Promise<ListResult<T>>;
  watch(resourceVersion: string, callbacks: WatchCallbacks, options?: WatchOptions): Promise<WatchHandle>;
}

export interface KubeListerWatcherOptions {
  apiVersion: string;
  kind: string;
  resource: ResourceInfo;
  /**
   * client-node's own inactivity timer. The informer's silence deadline is what normally ends a dead watch; this
   * is the backstop for a request that never got its response headers, which the informer cannot abort (client-node
   * hands out the abort handle only after the headers). Default: the silence limit of the longest watch timeout.
   */
  silenceTimeoutMs?: number;
  pageSize?: number;
  /** Lists and watches only the objects this field selector matches (for a Secret: `type=...`). */
  fieldSelector?: string;
}

/** Lists with pagination through compositor's raw-JSON client and watches through client-node's Watch. */
export class KubeListerWatcher<T extends KubeObject = KubeObject> implements ListerWatcher<T> {
  private readonly path: string;
  private readonly watcher: Watch;

  constructor(
    private readonly client: KubeClient,
    kubeConfig: KubeConfig,
    private readonly options: KubeListerWatcherOptions,
  ) {
    this.path = `${options.resource.groupVersionPath}/${options.resource.plural}`;
    this.watcher = new Watch(withUserAgent(kubeConfig));
    // client-node's inactivity timer (30 s, not configurable through its API) must not end a healthy idle watch
    // before the server does: an idle watch delivers nothing until its timeoutSeconds (see watchDeadline.ts).
    Object.assign(this.watcher, {
      requestTimeoutMs: options.silenceTimeoutMs ?? silenceLimitMs(WATCH_TIMEOUT_SECONDS.max),
    });
  }

  async list(signal: AbortSignal): Promise<ListResult<T>> {
    const items: T[] = [];
    let continueToken: string | undefined;
    let resourceVersion: string;
    do {
      const page = await this.client.request<{
        items?: T[];
        metadata: { resourceVersion: string; continue?: string };
      }>('GET', this.path, {
        query: {
          limit: this.options.pageSize ?? 500,
          continue: continueToken,
          fieldSelector: this.options.fieldSelector,
        },
        signal,
      });
      // Items of built-in kinds arrive without apiVersion and kind; watch events carry them, so add them here
      // and the cache holds one shape whatever delivered the object.
      for (const item of page.items ?? [])
        items.push({ ...item, apiVersion: this.options.apiVersion, kind: this.options.kind });
      continueToken = page.metadata.continue || undefined;
      resourceVersion = page.metadata.resourceVersion;
    } while (continueToken !== undefined);
    return { items, resourceVersion };
  }

  async watch(resourceVersion: string, callbacks: WatchCallbacks, options: WatchOptions = {}): Promise<WatchHandle> {
    const timeoutSeconds = options.timeoutSeconds ?? watchTimeoutSeconds(Math.random);
    const controller = await this.watcher.watch(
      this.path,
      {
        resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
        ...(this.options.fieldSelector === undefined ? {} : { fieldSelector: this.options.fieldSelector }),
      },
      (type, object) => {
        callbacks.onEvent(type as RawEventType, object);
      },
      (err: unknown) => {
        callbacks.onDone(err ?? null);
      },
    );
    return {
      stop: () => {
        controller.abort();
      },
    };
  }
}
