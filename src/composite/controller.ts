import { Subject } from 'rxjs';
import { distinctKinds, kindKey, type ApiKind } from '../apis/index.js';
import { errorMessage, systemClock, waitAtMost, type Clock } from '../base/index.js';
import { OwnWrites, TokenBucketBreaker, type BreakerSettings, type Transition } from '../circuitbreaker/index.js';
import {
  ConnectionSecrets,
  ControllerShell,
  describe,
  effectivePollInterval,
  restartDelayMs,
  type ControllerContext,
  type ControllerSettings,
  type KeyRequest,
  type PollIntervalFlags,
  type Xr,
  type XrType,
} from '../controller/index.js';
import type { FunctionRunner } from '../functions/index.js';
import type { KubeObject } from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import { objectKey, type ObjectStore } from '../watch/index.js';
import { adoptMachinery } from './adoptMachinery.js';
import type { ComposedCache } from './composedCache.js';
import { CompositeEventPipeline } from './eventPipeline.js';
import { NamespaceWeights } from './queueWeights.js';
import { CompositeReconciler } from './reconciler.js';
import { RequiredKinds } from './requiredKinds.js';
import type { XrdDefaults } from './selection.js';
import { stuckSummary } from './stuck.js';
import { machineryOf } from './xr.js';

/**
 * How long a starting controller waits at most for the caches of the kinds its XRs compose. Most first lists are in
 * well before; a longer one (300,000 ConfigMaps at 100,000 XRs) must not hold a changed XR that long, and reconciles
 * no longer need it in (watchComposedFor).
 */
const WARM_START_LIMIT_MS = 5_000;

export interface CompositeControllerSettings extends PollIntervalFlags, ControllerSettings {
  realtime: boolean;
  /**
   * --fair-queue: serve XRs round-robin by namespace, weighted by the compositor.crossplane.io/queue-weight label of
   * each Namespace (read from a Namespace informer). False or absent: one FIFO queue, as Crossplane.
   */
  fairQueue?: boolean;
  /** --max-concurrent-applies: composed resources one XR applies at once (default 8). */
  maxConcurrentApplies?: number;
  /** --max-composed-resources: resourceRefs one XR may list (default 1000, 0 no limit). */
  maxComposedResources?: number;
  /** --enable-composed-resource-ordering (alpha): order creation and deletion by the declared graph. */
  ordering?: boolean;
  breaker: Partial<BreakerSettings>;
}

export interface CompositeControllerOptions extends ControllerContext {
  /** composite/<plural>.<group> */
  name: string;
  xrType: XrType & { group: string };
  xrd: () => XrdDefaults;
  /** The XRD changed since this controller started; it is about to be restarted. */
  stale?: () => boolean;
  runner: FunctionRunner;
  settings: CompositeControllerSettings;
  /** --shard-index/--shard-count: whether this replica owns an XR; undefined owns every XR. */
  owns?: (xr: KubeObject) => boolean;
  /** Reconcile times, the stuck-XR gauge and the bound on the warm start; the system clock unless given. */
  clock?: Clock;
}

const COMPOSITION = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'Composition' };
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };

/**
 * One composite controller: the event pipeline (XR, composed and revision watches through the per-XR breaker),
 * the work queue and the reconciler for one XR kind. Started and stopped by the XRD controller.
 */
export class CompositeController implements Lifecycle {
  private readonly ownWrites = new OwnWrites();
  private readonly clock: Clock;
  private readonly breaker: TokenBucketBreaker;
  private readonly shell: ControllerShell;
  /** What the event pipeline asks to reconcile: the shell's one stream that is not a kind's informer. */
  private readonly keys = new Subject<KeyRequest>();
  private readonly pipeline: CompositeEventPipeline;
  private readonly kindsByXr = new Map<string, readonly ApiKind[]>();
  /** Per composed kind (by kindKey): the kind and how many XRs compose it. */
  private readonly xrsByKind = new Map<string, { kind: ApiKind; xrs: number }>();
  /** The informer caches of the kinds XRs require, on the same registry as the event pipeline's watches. */
  private readonly required: RequiredKinds;
  /** Connection Secrets of composed resources and legacy XRs, from the engine's shared informer of them. */
  private readonly secrets: ConnectionSecrets;
  /** The claim kind's informer (the claim controller's, shared), read for claim-targeted events. */
  private readonly claims: RequiredKinds;
  private reconciler: CompositeReconciler | undefined;
  private untrackStuck: (() => void) | undefined;
  /** Settled XRs of the first list and their delays, until start() has warmed the caches. */
  private spreadAtStart: [string, number][] | undefined = [];
  /** Aborts background work of this controller (the one-time machinery adoption) when it stops. */
  private readonly stopping = new AbortController();

  constructor(private readonly options: CompositeControllerOptions) {
    this.clock = options.clock ?? systemClock;
    this.required = new RequiredKinds({ informers: options.informers, clock: this.clock });
    this.secrets = new ConnectionSecrets(options);
    this.claims = new RequiredKinds({ informers: options.informers, clock: this.clock });
    const { name, metrics, logger, settings } = options;
    this.breaker = new TokenBucketBreaker({
      ...settings.breaker,
      controller: name,
      metrics,
      onTransition: (transition) => {
        this.onBreakerTransition(transition);
      },
    });
    this.shell = new ControllerShell({
      ...options,
      watches: [
        { kind: COMPOSITION, mapping: 'none' },
        // Not waited for: weights only reorder turns, and an unsynced cache means weight 1 for a few moments.
        ...(settings.fairQueue ? [{ kind: NAMESPACE, mapping: 'none', waitForSync: false } as const] : []),
        { keys$: this.keys },
      ],
      fairness: settings.fairQueue ? this.fairness() : undefined,
      reconcile: (key, signal) => {
        if (!this.reconciler) throw new Error('the composite controller is not started');
        // One line per reconcile (docs/operating.md#logs); with shards, it shows which replica reconciled which XR.
        logger.debug({ controller: name, xr: key }, 'reconcile');
        return this.reconciler.reconcile(key, signal);
      },
      errors: { keyField: 'xr' },
      ready: () => this.ready(),
    });
    this.pipeline = new CompositeEventPipeline({
      xr: options.xrType,
      informers: options.informers,
      enqueue: (key) => {
        this.keys.next(key);
      },
      enqueueAfter: (key, delayMs) => {
        // While starting, the spread of settled XRs waits for the start to finish: it counts from readiness.
        if (this.spreadAtStart) this.spreadAtStart.push([key, delayMs]);
        else this.keys.next({ key, afterMs: delayMs });
      },
      initialDelayMs: (object) =>
        restartDelayMs(object, effectivePollInterval((object as Xr).metadata.annotations, settings).ms),
      breaker: this.breaker,
      ownWrites: this.ownWrites,
      realtime: settings.realtime,
      owns: options.owns,
      logger,
    });
  }

  get name(): string {
    return this.options.name;
  }

  /** Turns per namespace from its label; until the Namespace informer has synced, every namespace weighs 1. */
  private fairness(): { weightOf: (namespace: string) => number } {
    const weights = new NamespaceWeights({
      namespace: (name) => this.shell.store(NAMESPACE)?.get(name),
      logger: this.options.logger.child({ controller: this.options.name }),
    });
    return { weightOf: (namespace) => weights.weightOf(namespace) };
  }

  /** Keys queued, reconciling, waiting: for diagnostics and tests. */
  stats(): ReturnType<ControllerShell['stats']> {
    return this.shell.stats();
  }

  async start(signal?: AbortSignal): Promise<void> {
    const { options } = this;
    await this.shell.start(signal);
    this.adoptMachineryInBackground();
    const xrs = this.pipeline.xrInformer.store;
    // Each replica reports its own shard's XRs, so the series of all replicas add up instead of counting N times.
    const owns = options.owns ?? ((): boolean => true);
    this.untrackStuck = options.metrics.composite.track(options.name, () =>
      stuckSummary(xrs.list().filter(owns) as Xr[], this.clock.now(), 0),
    );
  }

  async stop(deadline: AbortSignal): Promise<void> {
    this.stopping.abort();
    this.untrackStuck?.();
    this.untrackStuck = undefined;
    await this.shell.stop(deadline);
    await this.pipeline.stop();
    await this.required.stop();
    await this.secrets.stop();
    await this.claims.stop();
  }

  /**
   * With the Compositions synced, before the first reconcile: the XR and revision watches, warm caches of the
   * composed kinds in use, the reconciler, and the spread of the settled XRs of the first list.
   */
  private async ready(): Promise<void> {
    const { options } = this;
    await this.pipeline.start();
    await this.watchComposedInUse();
    this.reconciler = new CompositeReconciler({
      controller: options.name,
      xrType: options.xrType,
      xrd: options.xrd,
      stale: options.stale,
      xrs: this.pipeline.xrInformer.store,
      compositions: this.shell.lease(COMPOSITION).informer.store,
      revisions: this.pipeline.revisionInformer.store,
      composed: this.composedCache(),
      client: options.client,
      discovery: options.discovery,
      runner: options.runner,
      required: this.required,
      secrets: this.secrets,
      claims: this.claims,
      events: options.events,
      clock: this.clock,
      breaker: this.breaker,
      ownWrites: this.ownWrites,
      timing: options.settings,
      maxConcurrentApplies: options.settings.maxConcurrentApplies,
      maxComposedResources: options.settings.maxComposedResources,
      ordering: options.settings.ordering === true,
      logger: options.logger.child({ controller: options.name }),
    });
    for (const [key, afterMs] of this.spreadAtStart ?? []) this.keys.next({ key, afterMs });
    this.spreadAtStart = undefined;
  }

  /**
   * Makes compositor's own managers co-own the machinery and the legacy status fields that earlier releases applied
   * under Crossplane's XR manager (see adoptMachinery.ts). In the background: reconciles do not wait for it, and it writes only XRs that need it.
   * With shards, every replica adopts only its own XRs.
   */
  private adoptMachineryInBackground(): void {
    const { options } = this;
    adoptMachinery({
      client: options.client,
      discovery: options.discovery,
      xrType: options.xrType,
      ownWrites: this.ownWrites,
      owns: options.owns,
      signal: this.stopping.signal,
    }).then(
      (adopted) => {
        if (adopted > 0) {
          options.logger.info(
            { controller: options.name, writes: adopted },
            'compositor now co-owns XR machinery and status fields that earlier releases applied under the XR field manager',
          );
        }
      },
      (err: unknown) => {
        if (this.stopping.signal.aborted) return;
        options.logger.warn(
          { controller: options.name, err: errorMessage(err) },
          'cannot adopt XR machinery from earlier releases; a rollback to Crossplane may strip composition refs',
        );
      },
    );
  }

  /**
   * Starts the watches of the kinds the cached XRs compose, as their next reconciles would, and waits (boundedly) for
   * them to sync. After a restart the first reconciles then find warm caches instead of each waiting for a list of
   * every composed resource; the initial lists trigger no reconcile.
   */
  private async watchComposedInUse(): Promise<void> {
    const { realtime } = this.options.settings;
    if (!realtime) return;
    const owns = this.options.owns ?? ((): boolean => true);
    for (const xr of this.pipeline.xrInformer.store.list() as Xr[]) {
      if (!owns(xr)) continue;
      const refs = machineryOf(xr, this.options.xrType.legacy).resourceRefs ?? [];
      const kinds = distinctKinds(refs);
      if (kinds.length > 0) this.setKinds(objectKey(xr), kinds);
    }
    const watches = [...this.xrsByKind.values()].map(async ({ kind }) => {
      await this.pipeline.watchComposed(kind.apiVersion, kind.kind).catch((err: unknown) => {
        this.options.logger.warn({ kind: kindKey(kind), err: errorMessage(err) }, 'cannot watch a composed kind yet');
      });
    });
    await waitAtMost(this.clock, Promise.all(watches), WARM_START_LIMIT_MS);
  }

  private composedCache(): ComposedCache {
    return {
      store: (apiVersion, kind): ObjectStore | undefined => this.pipeline.composedStore(apiVersion, kind),
      takeLiveReads: (xrKey) => this.pipeline.takeLiveReads(xrKey),
      readBeforeSync: (apiVersion, kind, xrKey) => {
        this.pipeline.readBeforeSync(apiVersion, kind, xrKey);
      },
      watch: (apiVersion, kind, xrKey) => this.pipeline.watchComposedFor(apiVersion, kind, xrKey),
      setKinds: (xrKey, kinds, required = []) => {
        this.pipeline.setRequired(xrKey, required);
        this.setKinds(xrKey, kinds);
      },
    };
  }

  /**
   * Reference-counts composed and required kinds over XRs; the last XR to stop composing or requiring a kind stops
   * its watch and gives up its required-resource cache.
   */
  private setKinds(xrKey: string, kinds: readonly ApiKind[]): void {
    const before = new Set((this.kindsByXr.get(xrKey) ?? []).map(kindKey));
    const after = new Set(kinds.map(kindKey));
    if (kinds.length === 0) this.kindsByXr.delete(xrKey);
    else this.kindsByXr.set(xrKey, kinds);
    for (const kind of kinds) {
      const key = kindKey(kind);
      if (!before.has(key)) this.xrsByKind.set(key, { kind, xrs: (this.xrsByKind.get(key)?.xrs ?? 0) + 1 });
    }
    for (const key of before) {
      const entry = this.xrsByKind.get(key);
      if (after.has(key) || !entry) continue;
      if (entry.xrs > 1) {
        entry.xrs -= 1;
        continue;
      }
      this.xrsByKind.delete(key);
      this.pipeline.unwatchComposed(entry.kind.apiVersion, entry.kind.kind).catch((err: unknown) => {
        this.options.logger.warn({ kind: key, err: errorMessage(err) }, 'cannot stop watching a composed kind');
      });
      this.required.release(entry.kind).catch((err: unknown) => {
        this.options.logger.warn({ kind: key, err: errorMessage(err) }, 'cannot stop watching a required kind');
      });
    }
  }

  /** Open: a Warning event, and one reconcile to report Responsive False. Closed: a Normal event. */
  private onBreakerTransition(transition: Transition): void {
    const xr = this.pipeline.xrInformer.store.get(transition.key);
    if (transition.to === 'open') this.shell.request(transition.key);
    if (!xr) return;
    if (transition.to === 'open') {
      this.options.events.event(xr, {
        type: 'Warning',
        reason: 'CircuitBreakerOpen',
        message: `Too many watch events from ${transition.triggeredBy ?? 'unknown source'}; allowing events periodically`,
      });
    } else {
      this.options.events.event(xr, {
        type: 'Normal',
        reason: 'CircuitBreakerClosed',
        message: `Watch events for ${describe(xr)} are let through again`,
      });
    }
  }
}
