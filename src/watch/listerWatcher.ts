import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient, KubeObject, ResourceInfo } from '../kube/index.js';
import { watchTimeoutSeconds } from './watchDeadline.js';

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
  pageSize?: number;
}

/**
 * Lists with pagination and watches through compositor's raw-JSON client: both share its connection pool, whose
 * health check (src/kube/connectionHealth.ts) notices a silently dead connection within seconds and fails the watch,
 * which the informer then resumes from its resourceVersion.
 */
export class KubeListerWatcher<T extends KubeObject = KubeObject> implements ListerWatcher<T> {
  private readonly path: string;

  constructor(
    private readonly client: KubeClient,
    // Kept for callers that still pass it: the client carries the kubeconfig.
    _kubeConfig: KubeConfig | undefined,
    private readonly options: KubeListerWatcherOptions,
  ) {
    this.path = `${options.resource.groupVersionPath}/${options.resource.plural}`;
  }

  async list(signal: AbortSignal): Promise<ListResult<T>> {
    const items: T[] = [];
    let continueToken: string | undefined;
    let resourceVersion: string;
    do {
      const page = await this.client.request<{
        items?: T[];
        metadata: { resourceVersion: string; continue?: string };
      }>('GET', this.path, { query: { limit: this.options.pageSize ?? 500, continue: continueToken }, signal });
      // Items of built-in kinds arrive without apiVersion and kind; watch events carry them, so add them here
      // and the cache holds one shape whatever delivered the object.
      for (const item of page.items ?? [])
        items.push({ ...item, apiVersion: this.options.apiVersion, kind: this.options.kind });
      continueToken = page.metadata.continue || undefined;
      resourceVersion = page.metadata.resourceVersion;
    } while (continueToken !== undefined);
    return { items, resourceVersion };
  }

  watch(resourceVersion: string, callbacks: WatchCallbacks, options: WatchOptions = {}): Promise<WatchHandle> {
    const timeoutSeconds = options.timeoutSeconds ?? watchTimeoutSeconds(Math.random);
    const controller = new AbortController();
    // Not awaited: the handle goes back at once, so the informer can abort a watch whose headers never come.
    this.client
      .watch(
        this.path,
        { resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
        {
          onEvent: (event) => {
            callbacks.onEvent(event.type as RawEventType, event.object);
          },
          onDone: (err) => {
            callbacks.onDone(err);
          },
        },
        controller.signal,
      )
      .catch((err: unknown) => {
        if (!controller.signal.aborted) callbacks.onDone(err);
      });
    return Promise.resolve({
      stop: () => {
        controller.abort();
      },
    });
  }
}
