import type { KubeObject } from '../../../src/kube/index.js';
import type { ListerWatcher, ListResult, WatchCallbacks, WatchHandle } from '../../../src/watch/index.js';

/**
 * A scripted lister-watcher for the informer's supervision logic (unit tier). Tests set what the next list
 * returns and drive the open watch by hand; the real server paths are covered by test/integration/watch.test.ts.
 */
export class FakeListerWatcher implements ListerWatcher {
  listResult: ListResult<KubeObject> = { items: [], resourceVersion: '1' };
  listError: Error | undefined = undefined;
  lists = 0;
  watches: { resourceVersion: string; callbacks: WatchCallbacks; stopped: boolean }[] = [];

  list(): Promise<ListResult<KubeObject>> {
    this.lists++;
    if (this.listError !== undefined) {
      const error = this.listError;
      this.listError = undefined;
      return Promise.reject(error);
    }
    return Promise.resolve({ items: [...this.listResult.items], resourceVersion: this.listResult.resourceVersion });
  }

  watch(resourceVersion: string, callbacks: WatchCallbacks): Promise<WatchHandle> {
    const entry = { resourceVersion, callbacks, stopped: false };
    this.watches.push(entry);
    return Promise.resolve({
      stop: () => {
        if (entry.stopped) return;
        entry.stopped = true;
        const abort = new Error('aborted');
        abort.name = 'AbortError';
        callbacks.onDone(abort);
      },
    });
  }

  get current(): { resourceVersion: string; callbacks: WatchCallbacks; stopped: boolean } {
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
