// Which XRs exist and which are Ready, kept by one list and then a watch. The benchmark learns the moment the last XR
// turns Ready (not up to a poll interval later), and the API server serves one watch instead of a list of every XR
// each interval: at 1,000 XRs those lists were a tenth of kube-apiserver's CPU while compositor converged, load the
// controller under test then competed with. One boolean is kept per XR, never the objects, so 100,000 XRs fit.
import { Watch } from '@kubernetes/client-node/dist/watch.js';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from '../../src/kube/index.js';
import { forEachPage, isReady, type ScaleXr } from './api.js';

/** Told of every item the tracker sees listed, added or modified, and whether it is Ready. */
export type ReadyListener = (object: ScaleXr, ready: boolean) => void;

export interface ReadyCounts {
  exist: number;
  ready: number;
}

/** A watch ends after this long at the latest (the server closes it); the tracker then watches on from where it was. */
const WATCH_TIMEOUT_SECONDS = 300;

export class ReadyWatch {
  private readonly readyByName = new Map<string, boolean>();
  private readyCount = 0;
  private resourceVersion = '';
  private stopped = false;
  /** The watch reported an error (410 Gone: its resourceVersion is too old): the next one starts from a new list. */
  private expired = false;
  private abort: (() => void) | undefined;
  private waiters = new Set<() => void>();
  /** Lists and watches started, and the last error a list or a watch ended with, for the progress lines. */
  private restarts = 0;
  private lastError = '';

  private constructor(
    private readonly client: KubeClient,
    private readonly watcher: Watch,
    private readonly path: string,
    private readonly listener: ReadyListener | undefined,
  ) {}

  /** Lists `path` (a collection of XRs, or of any kind with a Ready condition) and watches it until stop(). */
  static async start(
    client: KubeClient,
    kubeConfig: KubeConfig,
    path: string,
    listener?: ReadyListener,
  ): Promise<ReadyWatch> {
    const tracker = new ReadyWatch(client, new Watch(kubeConfig), path, listener);
    await tracker.relist();
    await tracker.watch();
    return tracker;
  }

  counts(): ReadyCounts {
    return { exist: this.readyByName.size, ready: this.readyCount };
  }

  /** One line on how the tracker has fared, when it had to list again. */
  trouble(): string {
    return this.restarts === 0 ? '' : `, listed again ${this.restarts} times (last error: ${this.lastError})`;
  }

  /**
   * Resolves with the time (Date.now()) at which `done` first held for the counts, or undefined at `deadline`.
   * `onWait` is called every `everyMs` while waiting, for progress.
   */
  async until(
    done: (counts: ReadyCounts) => boolean,
    options: { deadline: number; everyMs: number; onWait: (counts: ReadyCounts) => void },
  ): Promise<number | undefined> {
    let lastReport = Date.now();
    while (!done(this.counts())) {
      const now = Date.now();
      if (now >= options.deadline) return undefined;
      if (now - lastReport >= options.everyMs) {
        lastReport = now;
        options.onWait(this.counts());
      }
      await this.changeOrTimeout(Math.min(options.deadline - now, options.everyMs));
    }
    return Date.now();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.();
  }

  private changeOrTimeout(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
  }

  private changed(): void {
    for (const wake of [...this.waiters]) wake();
  }

  private set(name: string, ready: boolean): void {
    const before = this.readyByName.get(name);
    if (before === true) this.readyCount--;
    this.readyByName.set(name, ready);
    if (ready) this.readyCount++;
  }

  private seen(object: ScaleXr): void {
    const ready = isReady(object);
    this.set(object.metadata.name, ready);
    this.listener?.(object, ready);
  }

  private remove(name: string): void {
    if (this.readyByName.get(name) === true) this.readyCount--;
    this.readyByName.delete(name);
  }

  private async relist(): Promise<void> {
    this.readyByName.clear();
    this.readyCount = 0;
    this.resourceVersion = await forEachPage<ScaleXr>(this.client, this.path, (page) => {
      for (const xr of page) this.seen(xr);
    });
    this.changed();
  }

  private async watch(): Promise<void> {
    const controller = await this.watcher.watch(
      this.path,
      { resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: WATCH_TIMEOUT_SECONDS },
      (type: string, object: ScaleXr & { code?: number }) => {
        if (type === 'ERROR') {
          this.lastError = `watch error ${object.code ?? ''}`;
          this.expired = true;
          return;
        }
        if (object.metadata.resourceVersion) this.resourceVersion = object.metadata.resourceVersion;
        if (type === 'ADDED' || type === 'MODIFIED') this.seen(object);
        else if (type === 'DELETED') this.remove(object.metadata.name);
        else return;
        this.changed();
      },
      (err: unknown) => {
        this.abort = undefined;
        if (this.stopped) return;
        if (err) this.lastError = err instanceof Error ? err.message : JSON.stringify(err);
        void this.resume((err !== null && err !== undefined) || this.expired);
      },
    );
    this.abort = () => {
      controller.abort();
    };
    if (this.stopped) controller.abort();
  }

  /** After a watch ended: a clean close watches on; an error (a 410 Gone among them) lists again first. */
  private async resume(failed: boolean): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        if (failed || attempt > 0) {
          this.restarts++;
          this.expired = false;
          await this.relist();
        }
        await this.watch();
        return;
      } catch (err) {
        this.lastError = String(err);
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * 2 ** attempt)));
      }
    }
  }
}
