// A composite reconciler over in-memory fakes: the fake API server holds what the cluster holds, ObjectStores stand
// in for the informer caches, and `sync()` copies the server's objects into them, as the watches would.
import pino from 'pino';
import type { ApiKind } from '../../../src/apis/index.js';
import { OwnWrites, type Breaker } from '../../../src/circuitbreaker/index.js';
import {
  CompositeReconciler,
  type ComposedCache,
  type CompositeReconcilerOptions,
} from '../../../src/composite/index.js';
import type { Xr, XrType } from '../../../src/controller/index.js';
import type { JsonObject, RunFunctionResponse } from '../../../src/functions/index.js';
import { RecordingEventSink, type KubeObject } from '../../../src/kube/index.js';
import type { ReconcileResult } from '../../../src/queue/index.js';
import { ObjectStore } from '../../../src/watch/index.js';
import { CORE_KINDS, eventLines, FakeApiServer, FakeRunner, requestLines, type FakeKind } from '../fakes/index.js';

export const XR_API_VERSION = 'example.org/v1';
export const XR_TYPE: XrType = { apiVersion: XR_API_VERSION, kind: 'XApp', namespaced: true, legacy: false };
export const KINDS: FakeKind[] = [
  ...CORE_KINDS,
  { apiVersion: XR_API_VERSION, kind: 'XApp', plural: 'xapps', namespaced: true },
  { apiVersion: 'example.org/v1', kind: 'Cluster', plural: 'clusters', namespaced: false },
];
export const NOW = new Date('2026-03-01T12:00:00Z');
export const KEY = 'default/app';

/** The Composition "app" and its revision "app-1" (one step calling function "fn"), as the caches hold them. */
export function composition(): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: 'app', uid: 'uid-composition' },
    spec: {
      compositeTypeRef: { apiVersion: XR_API_VERSION, kind: 'XApp' },
      mode: 'Pipeline',
      pipeline: [{ step: 'compose', functionRef: { name: 'fn' } }],
    },
  };
}

export function revision(number = 1): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'CompositionRevision',
    metadata: {
      name: `app-${number}`,
      labels: { 'crossplane.io/composition-name': 'app' },
      ownerReferences: [{ uid: 'uid-composition', controller: true }],
    },
    spec: {
      revision: number,
      compositeTypeRef: { apiVersion: XR_API_VERSION, kind: 'XApp' },
      mode: 'Pipeline',
      pipeline: [{ step: 'compose', functionRef: { name: 'fn' } }],
    },
  };
}

/** A function response desiring one ConfigMap per entry of `data` (named by its key), each ready when said so. */
export function desiring(
  resources: Record<string, { data: Record<string, string>; ready?: boolean }>,
): RunFunctionResponse {
  const desired: Record<string, { resource: JsonObject; ready?: 'READY_TRUE' }> = {};
  for (const [name, { data, ready }] of Object.entries(resources)) {
    desired[name] = {
      resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, data },
      ...(ready === false ? {} : { ready: 'READY_TRUE' }),
    };
  }
  return { desired: { resources: desired } };
}

export interface WorldOptions {
  realtime?: boolean;
  breaker?: Breaker;
  reconciler?: Partial<CompositeReconcilerOptions>;
}

export class World {
  readonly server = new FakeApiServer(KINDS);
  readonly xrs = new ObjectStore<Xr>();
  readonly compositions = new ObjectStore();
  readonly revisions = new ObjectStore();
  /** The composed kinds' caches, synced once the reconciler asked to watch them (realtime). */
  readonly composedStores = new Map<string, ObjectStore>();
  /** Per XR key: the composed kinds its next reconcile reads from the server, as after a kind's late first list. */
  readonly liveReads = new Map<string, Set<string>>();
  /** What the reconciler last said each XR composes. */
  readonly kinds = new Map<string, readonly ApiKind[]>();
  readonly events = new RecordingEventSink();
  readonly ownWrites = new OwnWrites();
  readonly runner = new FakeRunner(() => desiring({ cm: { data: { a: '1' } } }));
  readonly reconciler: CompositeReconciler;
  private readonly realtime: boolean;

  constructor(options: WorldOptions = {}) {
    this.realtime = options.realtime ?? true;
    this.compositions.set(composition());
    this.revisions.set(revision());
    this.reconciler = new CompositeReconciler({
      controller: 'composite/xapps.example.org',
      xrType: XR_TYPE,
      xrd: () => ({}),
      xrs: this.xrs,
      compositions: this.compositions,
      revisions: this.revisions,
      composed: this.composedCache(),
      client: this.server.client,
      discovery: this.server.discovery,
      runner: this.runner,
      events: this.events,
      breaker: options.breaker ?? closedBreaker(),
      ownWrites: this.ownWrites,
      timing: { realtime: this.realtime, pollIntervalMs: 60_000, minPollIntervalMs: 1_000 },
      logger: pino({ level: 'silent' }),
      clock: { now: () => NOW.getTime() },
      random: () => 0.5,
      ...options.reconciler,
    });
  }

  /** Creates the XR "default/app" on the server and in the cache. */
  createXr(xr: Partial<Xr> = {}): Xr {
    const created = this.server.put<Xr>({
      apiVersion: XR_API_VERSION,
      kind: 'XApp',
      ...xr,
      metadata: { name: 'app', namespace: 'default', ...xr.metadata },
      spec: { crossplane: { compositionRef: { name: 'app' }, compositionRevisionRef: { name: 'app-1' } }, ...xr.spec },
    });
    this.xrs.set(created);
    return created;
  }

  /** The XR as the server holds it now. */
  xr(): Xr | undefined {
    return this.server.get<Xr>(XR_API_VERSION, 'XApp', 'app', 'default');
  }

  /** Copies the server's XRs and composed objects into the caches, as the informers would. */
  sync(): void {
    this.xrs.clear();
    for (const xr of this.server.list<Xr>(XR_API_VERSION, 'XApp')) this.xrs.set(xr);
    for (const [gvk, store] of this.composedStores) {
      const slash = gvk.lastIndexOf('/');
      store.clear();
      for (const object of this.server.list(gvk.slice(0, slash), gvk.slice(slash + 1))) store.set(object);
    }
  }

  /**
   * Reconciles and syncs the caches until a reconcile writes nothing (the first pass's writes move the XR's
   * generation, so the second writes the status for it), then returns that reconcile's result.
   */
  async converge(): Promise<ReconcileResult> {
    for (let pass = 0; pass < 5; pass++) {
      const result = await this.reconcile();
      this.sync();
      if (this.server.writes().length === 0) return result;
    }
    throw new Error('the XR did not converge in 5 reconciles');
  }

  /** Reconciles the XR, with the requests it makes counted from here. */
  async reconcile(key = KEY, signal: AbortSignal = new AbortController().signal): Promise<ReconcileResult> {
    this.server.requests.length = 0;
    this.events.events.length = 0;
    return this.reconciler.reconcile(key, signal);
  }

  /** The writes of the last reconcile, as "METHOD path [fieldManager]". */
  writes(): string[] {
    return requestLines(this.server.writes());
  }

  /** The events of the last reconcile, as "Type Reason: message". */
  eventLines(): string[] {
    return eventLines(this.events);
  }

  private composedCache(): ComposedCache {
    return {
      store: (apiVersion, kind) => this.composedStores.get(`${apiVersion}/${kind}`),
      // Stores are filled at once when watched (synced from the start): no read comes before a sync.
      readBeforeSync: () => undefined,
      takeLiveReads: (xrKey) => {
        const kinds = this.liveReads.get(xrKey) ?? new Set<string>();
        this.liveReads.delete(xrKey);
        return kinds;
      },
      watch: (apiVersion, kind) => {
        if (!this.realtime) return Promise.resolve();
        const gvk = `${apiVersion}/${kind}`;
        if (!this.composedStores.has(gvk)) {
          const store = new ObjectStore();
          for (const object of this.server.list(apiVersion, kind)) store.set(object);
          this.composedStores.set(gvk, store);
        }
        return Promise.resolve();
      },
      setKinds: (xrKey, kinds) => {
        if (kinds.length === 0) this.kinds.delete(xrKey);
        else this.kinds.set(xrKey, kinds);
      },
    };
  }
}

/** A breaker that stays closed and records resets. */
export function closedBreaker(state: { open: boolean; triggeredBy?: string } = { open: false }): Breaker & {
  resets: string[];
} {
  const resets: string[] = [];
  return {
    resets,
    record: () => 'Allowed',
    state: () => state,
    reset: (key) => {
      resets.push(key);
    },
    advance: () => [],
    nextDueAt: () => undefined,
  };
}
