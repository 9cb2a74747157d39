import type { KubeObject } from '../../../src/kube/index.js';
import type { ListerWatcher, ListResult, WatchCallbacks, WatchHandle, WatchOptions } from '../../../src/watch/index.js';

interface FakeWatch {
  resourceVersion: string;
  callbacks: WatchCallbacks;
  options: WatchOptions | undefined;
  stopped: boolean;
  /** Resolves watch() when the watch was opened with `connecting` set: the response headers arrive. */
  open(): void;
}

/**
 * A scripted lister-watcher for the informer's supervision logic (unit tier). Tests set what the next list
 * returns and drive the open watch by hand; the real server paths are covered by test/integration/watch.test.ts.
 */
export class FakeListerWatcher implements ListerWatcher {
  listResult: ListResult<KubeObject> = { items: [], resourceVersion: '1' };
  listError: Error | undefined = undefined;
  lists = 0;
  watches: FakeWatch[] = [];
  /** While set, watch() does not resolve until the test calls open() on it, as a request awaiting its headers. */
  connecting = false;

  list(): Promise<ListResult<KubeObject>> {
    this.lists++;
    if (this.listError !== undefined) {
      const error = this.listError;
      this.listError = undefined;
      return Promise.reject(error);
    }
    return Promise.resolve({ items: [...this.listResult.items], resourceVersion: this.listResult.resourceVersion });
  }

  watch(resourceVersion: string, callbacks: WatchCallbacks, options?: WatchOptions): Promise<WatchHandle> {
    const handle: WatchHandle = {
      stop: () => {
        if (entry.stopped) return;
        entry.stopped = true;
        const abort = new Error('aborted');
        abort.name = 'AbortError';
        callbacks.onDone(abort);
      },
    };
    let open: () => void = () => undefined;
    const opened = new Promise<WatchHandle>((resolve) => {
      open = () => {
        resolve(handle);
      };
    });
    const entry: FakeWatch = { resourceVersion, callbacks, options, stopped: false, open };
    this.watches.push(entry);
    if (!this.connecting) open();
    return opened;
  }

  get current(): FakeWatch {
    const last = this.watches.at(-1);
    if (!last) throw new Error('no watch was opened');
    return last;
  }
}

export function configMap(name: string, resourceVersion: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion }, data };
}

/** Lets pending promise callbacks run; the informer's loop is async but never waits on a real timer here. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
