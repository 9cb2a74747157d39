import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { groupOf, kindKey, type ApiKind } from '../apis/index.js';
import type { EngineMetrics } from '../metrics/index.js';
import type { Discovery, KubeClient, KubeObject, ResourceInfo } from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import { Informer } from './informer.js';
import { KubeListerWatcher, type ListerWatcher } from './listerWatcher.js';
import type { Clock } from '../base/index.js';

export interface InformerRegistryOptions {
  client: KubeClient;
  kubeConfig: KubeConfig;
  discovery: Discovery;
  logger: Logger;
  syncIntervalMs: number;
  /**
   * Restart a watch that delivers nothing for this long. Default: each watch's own timeoutSeconds (10-20 s) plus a
   * 3 s grace, so a silently dropped connection is replaced within ~23 s (see watchDeadline.ts), or at once when the
   * client finds its own connection dead (KubeClient.onConnectionLost).
   */
  watchSilenceTimeoutMs?: number;
  /** False keeps metadata.managedFields in every cache (a benchmark switch, see cli/environment.ts). */
  trimCache?: boolean;
  /** Every informer's clock; the monotonic clock unless given. */
  clock?: Clock;
  /** Wraps the lister-watcher of each kind, so tests can force server behaviour (a stale resourceVersion). */
  wrapListerWatcher?: (listerWatcher: ListerWatcher, gvk: { apiVersion: string; kind: string }) => ListerWatcher;
  /** engine_watches_started_total / engine_watches_stopped_total. */
  metrics?: Pick<EngineMetrics, 'watchesStarted' | 'watchesStopped'>;
}

/** The `type` label of the watch metrics: "Kind.group", or "Kind" for the core group. */
function watchType(apiVersion: string, kind: string): string {
  const group = groupOf(apiVersion);
  return group === '' ? kind : `${kind}.${group}`;
}

/** "apiVersion/kind", followed by "?fieldSelector=..." for an informer narrowed by one. */
function scopedKey(kind: ApiKind, scope: InformerScope): string {
  return scope.fieldSelector === undefined ? kindKey(kind) : `${kindKey(kind)}?fieldSelector=${scope.fieldSelector}`;
}

/** One reference to a shared informer; release() is idempotent. */
export interface InformerLease<T extends KubeObject = KubeObject> {
  readonly informer: Informer<T>;
  readonly resource: ResourceInfo;
  release(): Promise<void>;
}

/** Which objects of a kind an informer holds; every object unless a field selector narrows them. */
export interface InformerScope {
  /** Only the objects this field selector matches, as the API server filters them (a Secret's `type=...`). */
  fieldSelector?: string;
}

interface Entry {
  kind: ApiKind;
  refs: number;
  started: Promise<{ informer: Informer; resource: ResourceInfo }>;
}

/**
 * Shared informers per apiVersion/kind, reference-counted: the first acquire starts the watch, later ones reuse it,
 * and the last release stops it and frees its cache (upstream Crossplane never stops a composed kind's informer).
 */
export class InformerRegistry implements Lifecycle {
  private readonly entries = new Map<string, Entry>();
  private stopListening: (() => void) | undefined;

  constructor(private readonly options: InformerRegistryOptions) {}

  /** The kinds watched right now, as "apiVersion/kind" (followed by "?fieldSelector=..." for a narrowed informer). */
  watched(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * A lease on the informer of a kind, or with a field selector on one of only the objects it matches: a narrowed
   * informer is shared by those that ask for the same selector, never with the kind's full one.
   */
  async acquire<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    scope: InformerScope = {},
  ): Promise<InformerLease<T>> {
    const key = scopedKey({ apiVersion, kind }, scope);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { kind: { apiVersion, kind }, refs: 0, started: this.startInformer(apiVersion, kind, scope) };
      this.entries.set(key, entry);
    }
    entry.refs++;
    const current = entry;
    let started;
    try {
      started = await current.started;
    } catch (err) {
      // Nothing was started (the kind is not served): forget the entry so a later acquire tries again.
      current.refs--;
      if (this.entries.get(key) === current) this.entries.delete(key);
      throw err;
    }
    let released = false;
    return {
      informer: started.informer as unknown as Informer<T>,
      resource: started.resource,
      release: async () => {
        if (released) return;
        released = true;
        current.refs--;
        if (current.refs > 0 || this.entries.get(key) !== current) return;
        this.entries.delete(key);
        await this.stopInformer(started.informer, apiVersion, kind);
      },
    };
  }

  /** Nothing to start: an informer starts with the first lease of its kind. */
  start(): Promise<void> {
    return Promise.resolve();
  }

  /** Stops every informer, whatever its references (shutdown); they stop at once, so there is no deadline to keep. */
  async stop(): Promise<void> {
    this.stopListening?.();
    this.stopListening = undefined;
    const entries = [...this.entries];
    this.entries.clear();
    await Promise.all(
      entries.map(async ([, entry]) => {
        const started = await entry.started.catch(() => undefined);
        if (started) await this.stopInformer(started.informer, entry.kind.apiVersion, entry.kind.kind);
      }),
    );
  }

  private async startInformer(
    apiVersion: string,
    kind: string,
    scope: InformerScope,
  ): Promise<{ informer: Informer; resource: ResourceInfo }> {
    const { client, kubeConfig, discovery, logger } = this.options;
    this.listenForLostConnections();
    const resource = await discovery.resolve(apiVersion, kind);
    const base = new KubeListerWatcher(client, kubeConfig, {
      apiVersion,
      kind,
      resource,
      silenceTimeoutMs: this.options.watchSilenceTimeoutMs,
      fieldSelector: scope.fieldSelector,
    });
    const listerWatcher = this.options.wrapListerWatcher?.(base, { apiVersion, kind }) ?? base;
    const informer = new Informer({
      name: scopedKey({ apiVersion, kind }, scope),
      listerWatcher,
      // The informer names itself in each line (informer: its name); binding that here too would repeat the key.
      logger,
      syncIntervalMs: this.options.syncIntervalMs,
      clock: this.options.clock,
      trimCache: this.options.trimCache,
      silenceTimeoutMs: this.options.watchSilenceTimeoutMs,
    });
    // Not waited for: the lease is handed out before the first list, whose objects its holder then sees as adds.
    void informer.start();
    this.options.metrics?.watchesStarted.inc({ type: watchType(apiVersion, kind) });
    return { informer, resource };
  }

  /**
   * When the client finds its connection dead, every watch rewatches at once instead of waiting for its silence
   * deadline (up to its timeout + grace, ~23 s): the watches reach the same server over the same path.
   */
  private listenForLostConnections(): void {
    if (this.stopListening) return;
    // Partial: clients faked in tests may not have it; without it the watches keep their silence deadline alone.
    const client: Partial<Pick<KubeClient, 'onConnectionLost'>> = this.options.client;
    this.stopListening = client.onConnectionLost?.call(this.options.client, () => {
      for (const entry of this.entries.values()) {
        entry.started.then(
          ({ informer }) => {
            informer.rewatch();
          },
          () => undefined,
        );
      }
    });
  }

  private async stopInformer(informer: Informer, apiVersion: string, kind: string): Promise<void> {
    await informer.stop();
    this.options.metrics?.watchesStopped.inc({ type: watchType(apiVersion, kind) });
  }
}
