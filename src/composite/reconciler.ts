import type { Logger } from 'pino';
import {
  dateOf,
  deeperThan,
  errorMessage,
  MAX_NESTING_DEPTH,
  NestingDepthError,
  systemClock,
  type Clock,
} from '../base/index.js';
import { responsiveCondition, type Breaker, type OwnWrites } from '../circuitbreaker/index.js';
import {
  boundedCopy,
  describe,
  effectivePollInterval,
  INVALID_POLL_INTERVAL_REASON,
  isBeingDeleted,
  isPaused,
  markPaused,
  pendingReconcileRequest,
  PollIntervalWarnings,
  RECONCILE_SUCCESS,
  reconcileError,
  reconcileRequestHandledEvent,
  reportFailure,
  StatusDraft,
  unreadyMessage,
  unsyncedMessage,
  withJitter,
  type EffectivePollInterval,
  type FailureReport,
  type PollIntervalFlags,
  type ConnectionSecretReader,
  type Xr,
  type XrType,
} from '../controller/index.js';
import { DEFAULT_MAX_COMPOSED_RESOURCES, PipelineFatalError, type FunctionRunner } from '../functions/index.js';
import { isConflict, type Discovery, type EventSink, type KubeClient } from '../kube/index.js';
import type { ReconcileResult } from '../queue/index.js';
import type { ObjectStore } from '../watch/index.js';
import { controllerOf } from './composed.js';
import type { ComposedCache } from './composedCache.js';
import { ComposedClient } from './composedClient.js';
import { CachedCompositionSelector } from './compositionSelector.js';
import { Composer, type Composed, type CompositeSteps } from './compose.js';
import { FunctionPipeline } from './functionPipeline.js';
import { teardownStep } from './ordered.js';
import type { RequiredCache } from './requiredKinds.js';
import { waitingMessage } from './ordering/index.js';
import { ApiResultPublisher, composedResourceEvents } from './resultPublisher.js';
import { RevisionPendingError, SelectionError, type XrdDefaults } from './selection.js';
import { machineryOf } from './xr.js';
import { ApiXrWriter } from './xrWriter.js';

const DELETING = { type: 'Ready', status: 'False', reason: 'Deleting' } as const;

/** How often an XR being deleted looks again at composed resources still on their way out. */
const DELETION_RECHECK_MS = 2_000;
/** How soon an XR whose Composition has no revision yet tries again (the revision event usually comes first). */
const REVISION_PENDING_RECHECK_MS = 1_000;
/** How soon to look again when the controller waits for its restart on an XRD change. */
const STALE_RECHECK_MS = 1_000;
/** How soon an XR that wrote composed resources looks at them again. */
const OBSERVE_WRITES_AFTER_MS = 250;

export interface CompositeReconcilerOptions {
  controller: string;
  xrType: XrType;
  xrd: () => XrdDefaults;
  /**
   * True when the XRD moved to a new generation this controller was not started for (say, another referenceable
   * version): nothing is composed with the old type; the restarted controller reconciles the XR.
   */
  stale?: () => boolean;
  xrs: ObjectStore<Xr>;
  compositions: ObjectStore;
  revisions: ObjectStore;
  composed: ComposedCache;
  client: KubeClient;
  discovery: Discovery;
  /** The function runner stack without the requirements loop, which is per XR (its namespace). */
  runner: FunctionRunner;
  /** The informer caches required resources are served from; without it they are read from the API server. */
  required?: RequiredCache;
  /** The connection Secret cache; without it connection Secrets are read from the API server. */
  secrets?: ConnectionSecretReader;
  /** The caches claims are read from for claim-targeted events; without them, from the API server. */
  claims?: RequiredCache;
  events: EventSink;
  breaker: Breaker;
  ownWrites: OwnWrites;
  timing: PollIntervalFlags & { realtime: boolean };
  /**
   * --max-concurrent-applies: composed resources applied (or deleted) at once per XR, all through `client` and so
   * under its global rate limit. 1 applies them one after another, as Crossplane does. Default 8.
   */
  maxConcurrentApplies?: number;
  /**
   * --max-composed-resources: resourceRefs an XR may list before anything is read for them (each one is a read, from
   * a cache or the API server). Functions are held to it by the runner stack (functions/limits.ts). Default 1000; 0
   * means no limit.
   */
  maxComposedResources?: number;
  /**
   * --enable-composed-resource-ordering (alpha): the pipeline's dependencies decide what is created, deleted and
   * referenced when, and an XR being deleted is torn down in order from its resourceRefs (docs/ordering.md).
   */
  ordering?: boolean;
  logger: Logger;
  /** Transition and publishing times; the system clock unless given. */
  clock?: Pick<Clock, 'now'>;
  random?: () => number;
  /** Replaces steps of the reconcile (tests); each one left out is built from the options above. */
  steps?: Partial<CompositeSteps>;
}

/**
 * The composite reconciler (docs/architecture.md#the-reconcile-order-of-an-xr), one XR key at a time: Responsive,
 * paused, deletion, then a compose pass (compose.ts: selection, the function pipeline, garbage collection,
 * resourceRefs, server-side apply of composed resources), readiness, status (written only when it changed) and the
 * requeue decision. It reads from informer caches and writes only what differs.
 *
 * @example
 * const reconciler = new CompositeReconciler({ controller, xrType, xrd, xrs, compositions, revisions, composed,
 *   client, discovery, runner, events, breaker, ownWrites, timing, logger });
 * const result = await reconciler.reconcile('default/my-app', signal);
 */
export class CompositeReconciler {
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly steps: CompositeSteps;
  private readonly composer: Composer;
  /** Invalid poll-interval values already warned about, per XR uid: one Warning event per distinct value. */
  private readonly pollIntervalWarnings = new PollIntervalWarnings();

  constructor(private readonly options: CompositeReconcilerOptions) {
    const clock = options.clock ?? systemClock;
    this.now = () => dateOf(clock);
    this.random = options.random ?? Math.random;
    this.steps = defaultSteps(options, this.now, this.random);
    const { xrType, composed, discovery, events } = options;
    const maxComposedResources = options.maxComposedResources ?? DEFAULT_MAX_COMPOSED_RESOURCES;
    this.composer = new Composer({
      steps: this.steps,
      xrType,
      composed,
      discovery,
      events,
      maxComposedResources,
      ordering: options.ordering === true,
    });
  }

  readonly reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult> => {
    const cached = this.options.xrs.get(key);
    if (!cached) {
      this.options.breaker.reset(key);
      this.options.composed.setKinds(key, []);
      return {};
    }
    if (this.options.stale?.() === true) return { requeueAfterMs: STALE_RECHECK_MS };
    // Measured before anything walks it recursively, starting with the clone. Pausing and deletion still go ahead.
    const deep = deeperThan(cached);
    if (deep !== undefined && !isBeingDeleted(cached) && !isPaused(cached)) {
      return this.refuseNesting(cached, deep, signal);
    }
    const xr = deep === undefined ? structuredClone(cached) : boundedCopy(cached);
    const status = new StatusDraft(xr.status ?? {}, xr.metadata.generation, this.now);
    status.setCondition(responsiveCondition(this.options.breaker.state(key)));
    const poll = effectivePollInterval(xr.metadata.annotations, this.options.timing);
    status.set('effectivePollInterval', poll.text);
    this.warnInvalidPollInterval(xr, poll);

    if (isPaused(xr)) {
      markPaused({
        status,
        event: (input) => {
          this.options.events.event(xr, input);
        },
      });
      await this.steps.writer.writeStatus(xr, status, signal);
      return {};
    }
    if (isBeingDeleted(xr)) return this.delete(key, xr, status, signal);

    try {
      const composed = await this.composer.compose(key, xr, status, signal);
      return await this.finish(xr, status, composed, { pollMs: poll.ms, signal });
    } catch (err) {
      return this.fail(xr, status, err, signal);
    }
  };

  /** Synced, Ready and the reconcile request on the status, written when it changed; then when to look again. */
  private async finish(
    xr: Xr,
    status: StatusDraft,
    composed: Composed,
    { pollMs, signal }: { pollMs: number; signal: AbortSignal },
  ): Promise<ReconcileResult> {
    // The machinery apply may have moved the generation: the conditions say they observed the one written.
    status.observeGeneration(xr.metadata.generation);
    // A contradiction between the graph and desired state is reported as unsynced, as upstream's prototype does.
    const unsynced = [...composed.unsynced, ...composed.deadlocked.map((h) => h.resource)];
    if (unsynced.length > 0) {
      status.setCondition(reconcileError(unsyncedMessage(unsynced)));
    } else {
      status.setCondition(RECONCILE_SUCCESS);
    }
    const ready =
      composed.readyOverride === undefined ? composed.unready.length === 0 : composed.readyOverride === 'READY_TRUE';
    if (ready) status.setCondition({ type: 'Ready', status: 'True', reason: 'Available' });
    else {
      const message = composed.readyOverride === undefined ? notReadyMessage(composed) : undefined;
      status.setCondition({ type: 'Ready', status: 'False', reason: 'Creating', ...(message ? { message } : {}) });
    }
    composedResourceEvents(composed.unsynced, composed.unready).forEach((event) => {
      this.options.events.event(xr, event);
    });
    const token = pendingReconcileRequest(xr.metadata.annotations, xr.status?.lastHandledReconcileAt);
    if (token !== undefined) {
      status.set('lastHandledReconcileAt', token);
      this.options.events.event(xr, reconcileRequestHandledEvent(token));
    }
    const statusWritten = await this.steps.writer.writeStatus(xr, status, signal);
    // compositor's own writes come back as echoes that trigger nothing, so after a write the XR looks once more to
    // observe what it wrote: readiness and ToCompositeFieldPath patches are computed from observed state. It looks
    // as soon as the caches show those writes (realtime: without it composed kinds are not watched, so no echo
    // comes), at the latest after OBSERVE_WRITES_AFTER_MS. Unless the compose pass settled: it looked already, at
    // what the writes returned, and found nothing more to do.
    if (composed.wrote && !composed.settled) {
      if (!this.options.timing.realtime) return { requeueAfterMs: OBSERVE_WRITES_AFTER_MS };
      const written = statusWritten ? [...composed.written, statusWritten] : composed.written;
      return { requeueAfterMs: OBSERVE_WRITES_AFTER_MS, expediteWhen: this.options.ownWrites.echoed(written) };
    }
    return { requeueAfterMs: this.requeueAfter(composed.ttlMs, pollMs) };
  }

  /** Realtime: the shortest function TTL (changes arrive as events). Polling: the effective poll interval. */
  private requeueAfter(ttlMs: number | undefined, pollMs: number): number | undefined {
    if (this.options.timing.realtime) return ttlMs === undefined ? undefined : withJitter(ttlMs, this.random);
    return withJitter(pollMs, this.random);
  }

  /**
   * A failed compose pass: Synced False with the message (prefixed "cannot compose resources:" after selection), a
   * Warning event, the status written, and the error thrown so the queue backs off. A pending revision is no
   * failure, and a conflict is rethrown untouched: the queue retries it at once, without an event.
   */
  private async fail(xr: Xr, status: StatusDraft, err: unknown, signal: AbortSignal): Promise<ReconcileResult> {
    const { writer, publisher } = this.steps;
    if (err instanceof RevisionPendingError) {
      status.setCondition(reconcileError(err.message));
      await writer.writeStatus(xr, status, signal);
      return { requeueAfterMs: REVISION_PENDING_RECHECK_MS };
    }
    if (isConflict(err)) throw err;
    // As upstream wraps it: everything after selection failed while composing resources.
    const message =
      err instanceof SelectionError ? errorMessage(err) : `cannot compose resources: ${errorMessage(err)}`;
    const reason = err instanceof SelectionError ? err.reason : 'ComposeResources';
    if (err instanceof PipelineFatalError) {
      await publisher.emitEvents(xr, err.partial.events, signal);
      publisher.setConditions(status, err.partial.conditions);
    }
    await reportFailure(this.report(xr, status, signal), { reason, message });
    throw err;
  }

  private report(xr: Xr, status: StatusDraft, signal: AbortSignal): FailureReport {
    return {
      status,
      event: (input) => {
        this.options.events.event(xr, input);
      },
      writeStatus: () => this.steps.writer.writeStatus(xr, status, signal),
      onWriteError: (writeErr) => {
        this.options.logger.warn({ xr: describe(xr), err: errorMessage(writeErr) }, 'cannot write XR status');
      },
    };
  }

  /**
   * An XR nested deeper than the engine walks (the API server accepts about 10,000 levels): nothing is composed,
   * applied or deleted; a Warning and Synced False say where, as for any failed compose pass. Its status is written
   * from what is stored, unless the status is itself the deep part: then the event alone reports it.
   */
  private async refuseNesting(xr: Xr, path: string, signal: AbortSignal): Promise<ReconcileResult> {
    const err = new NestingDepthError(`composite resource ${describe(xr)}`, path, MAX_NESTING_DEPTH);
    const failure = { reason: 'ComposeResources', message: `cannot compose resources: ${err.message}` };
    if (deeperThan(xr.status) !== undefined) {
      this.options.events.event(xr, { type: 'Warning', ...failure });
      throw err;
    }
    const status = new StatusDraft(xr.status ?? {}, xr.metadata.generation, this.now);
    await reportFailure(this.report(xr, status, signal), failure);
    throw err;
  }

  /**
   * Ready False Deleting; deletes the composed resources this XR controls and looks again until none is left, then
   * removes the finalizer and forgets the XR.
   */
  private async delete(key: string, xr: Xr, status: StatusDraft, signal: AbortSignal): Promise<ReconcileResult> {
    const { resources, writer } = this.steps;
    status.setCondition(DELETING);
    const refs = machineryOf(xr, this.options.xrType.legacy).resourceRefs ?? [];
    const observed = await resources.observe(xr, refs);
    const ours = [...observed].filter(([, object]) => controllerOf(object)?.uid === xr.metadata.uid);
    if (this.options.ordering === true) {
      const step = teardownStep(refs, ours);
      step.events.forEach((event) => {
        this.options.events.event(xr, event);
      });
      if (step.message !== undefined) status.setCondition({ ...DELETING, message: step.message });
      if (step.refused !== undefined) status.setCondition(reconcileError(step.refused));
      await resources.delete(xr, step.doomed, signal);
    } else {
      await resources.delete(
        xr,
        ours.filter(([, object]) => !object.metadata.deletionTimestamp),
        signal,
      );
    }
    if (ours.length > 0) {
      await writer.writeStatus(xr, status, signal);
      return { requeueAfterMs: DELETION_RECHECK_MS };
    }
    await writer.removeFinalizer(xr, signal);
    this.options.composed.setKinds(key, []);
    this.options.breaker.reset(key);
    if (xr.metadata.uid) this.pollIntervalWarnings.forget(xr.metadata.uid);
    return {};
  }

  private warnInvalidPollInterval(xr: Xr, poll: EffectivePollInterval): void {
    const message = this.pollIntervalWarnings.check(xr.metadata.uid ?? xr.metadata.name, poll, this.options.timing);
    if (message !== undefined) {
      this.options.events.event(xr, { type: 'Warning', reason: INVALID_POLL_INTERVAL_REASON, message });
    }
  }
}

/**
 * Ready's message when not Ready: the unready resources, then, with ordering, what waits on what ("Unready
 * resources: cluster; app waits on release; release waits on cluster"). A resource waiting is not listed twice.
 */
function notReadyMessage(composed: Composed): string {
  if (composed.waiting.length === 0) return unreadyMessage(composed.unready);
  const waiting = new Set(composed.waiting.map((h) => h.resource));
  const unready = composed.unready.filter((name) => !waiting.has(name));
  const lines = waitingMessage(composed.waiting);
  return unready.length === 0 ? lines : `${unreadyMessage(unready)}; ${lines}`;
}

/** The steps of a running controller, each talking to the API server through the options' client; or the given. */
function defaultSteps(options: CompositeReconcilerOptions, now: () => Date, random: () => number): CompositeSteps {
  const { client, discovery, ownWrites, xrType, events, logger, steps = {} } = options;
  const writer = steps.writer ?? new ApiXrWriter({ client, discovery, ownWrites, xrType });
  return {
    writer,
    selector:
      steps.selector ??
      new CachedCompositionSelector({
        xrType,
        xrd: options.xrd,
        compositions: options.compositions,
        revisions: options.revisions,
        events,
        writer,
        random,
      }),
    pipeline:
      steps.pipeline ??
      new FunctionPipeline({
        client,
        discovery,
        runner: options.runner,
        ordering: options.ordering === true,
        required: options.required,
        secrets: options.secrets,
      }),
    resources:
      steps.resources ??
      new ComposedClient({
        client,
        discovery,
        ownWrites,
        xrType,
        composed: options.composed,
        events,
        logger,
        maxConcurrentApplies: options.maxConcurrentApplies,
      }),
    publisher:
      steps.publisher ??
      new ApiResultPublisher({
        client,
        discovery,
        events,
        logger,
        xrType,
        connectionSecretKeys: () => options.xrd().connectionSecretKeys,
        now,
        secrets: options.secrets,
        claims: options.claims,
      }),
  };
}
