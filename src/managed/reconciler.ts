import type { Logger } from 'pino';
import { dateOf, errorMessage, systemClock, type Clock } from '../base/index.js';
import {
  effectivePollInterval,
  INVALID_POLL_INTERVAL_REASON,
  isBeingDeleted,
  isPaused,
  isSettled,
  markPaused,
  pendingReconcileRequest,
  PollIntervalWarnings,
  RECONCILE_SUCCESS,
  reconcileError,
  reconcileRequestHandledEvent,
  StatusDraft,
  withJitter,
  type PollIntervalFlags,
} from '../controller/index.js';
import type { EventSink } from '../kube/index.js';
import type { ReconcileResult } from '../queue/index.js';
import type { ObjectStore } from '../watch/index.js';
import {
  CREATE_INCOMPLETE_MESSAGE,
  creationState,
  EXTERNAL_NAME_ANNOTATION,
  externalReconcileRecord,
  LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION,
  LAST_EXTERNAL_RECONCILE_VERSION_ANNOTATION,
  whenAbsent,
} from './annotations.js';
import type { ConnectionSecretPublisher } from './connectionSecret.js';
import { createExternal } from './createExternal.js';
import { externalObserveSkip, externalRecordDue, skipWindowMs } from './externalSkip.js';
import { resolveManagementPolicies, type ManagementPolicies } from './managementPolicies.js';
import { ManagedPass, type PassDeps } from './pass.js';
import type {
  ConnectionDetails,
  ExternalClient,
  ExternalConnector,
  ExternalObservation,
  ManagedResource,
} from './types.js';
import { MANAGED_FINALIZER, withManagedFinalizer, type ManagedWriter } from './writer.js';

/** While the external resource is being deleted, how often it is observed until it is gone. */
const DELETION_RECHECK_MS = 1_000;
/** Within the creation grace period, how often a "does not exist" is looked at again. */
const CONFIRM_CREATION_RECHECK_MS = 2_000;
/** How soon to look again when the cache is behind the API server (it catches up within moments). */
const STALE_CACHE_RECHECK_MS = 250;
/** The shortest requeue a provider's observeAgainInMs can ask for, so a provider cannot spin the queue. */
const MIN_REQUEUE_MS = 100;
const DEFAULT_CREATION_GRACE_PERIOD_MS = 30_000;

export interface ManagedTiming extends PollIntervalFlags {
  /** --sync-interval: with the poll interval, bounds how long an external reconcile may be skipped. */
  syncIntervalMs: number;
  /** After a successful Create, how long a "does not exist" from Observe is waited out; 30 s by default. */
  creationGracePeriodMs?: number;
  /**
   * Whether status.effectivePollInterval is written (default true): compositor's own MR CRDs declare it; a Crossplane
   * package's (provider-nop's) do not, and the API server refuses an apply of a field its schema does not declare.
   */
  writePollInterval?: boolean;
}

export interface ManagedReconcilerOptions<T extends ManagedResource> {
  connector: ExternalConnector<T>;
  /** The MR kind's informer cache. */
  store: ObjectStore<T>;
  writer: ManagedWriter;
  secrets: ConnectionSecretPublisher;
  events: EventSink;
  timing: ManagedTiming;
  logger: Logger;
  /** The create protocol's times, the skip rule's and the status's; the system clock unless given. */
  clock?: Pick<Clock, 'now'>;
  random?: () => number;
}

/**
 * crossplane-runtime's managed reconcile loop for any MR kind, given an ExternalConnector: Observe first; Create
 * when the external resource does not exist (behind the create-pending protocol), Update when it is not up to
 * date, Delete with the MR under deletionPolicy Delete (a finalizer holds the MR until the external resource is
 * gone); status from Observe's outcome; connection details to a Secret; managementPolicies; crossplane.io/paused,
 * poll-interval and reconcile-requested-at as for XRs. Connect and Observe are skipped when nothing changed since
 * the last external reconcile (see externalSkip), so resyncs, echoes and restarts cost the external system nothing.
 */
export class ManagedReconciler<T extends ManagedResource = ManagedResource> {
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly deps: PassDeps;
  private readonly pollIntervalWarnings = new PollIntervalWarnings();
  /** When this process planned each MR's next observe: its own requeues are never skipped. */
  private readonly dueAt = new Map<string, number>();
  /** MRs whose external resource this process asked to delete: once it is not found, it is gone. */
  private readonly deleteRequested = new Set<string>();

  constructor(private readonly options: ManagedReconcilerOptions<T>) {
    const clock = options.clock ?? systemClock;
    this.now = () => dateOf(clock);
    this.random = options.random ?? Math.random;
    const { writer, secrets, events, logger } = options;
    this.deps = { writer, secrets, events, logger, now: this.now };
  }

  readonly reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult> => {
    const cached = this.options.store.get(key);
    if (!cached) {
      this.forget(key);
      return {};
    }
    const pass = this.begin(key, cached, signal);
    const { mr } = pass;
    const resolution = resolveManagementPolicies(mr.spec ?? {});
    if (isPaused(mr) || (resolution.ok && resolution.policies.paused)) return this.pause(pass);
    if (!resolution.ok) return this.refuse(pass, 'CannotUseManagementPolicy', resolution.message);
    const policies = resolution.policies;
    if (isBeingDeleted(mr) && !policies.delete) return this.finalize(pass);
    if (creationState(cached.metadata.annotations).phase === 'incomplete') return this.refuseIncomplete(pass);
    const skip = externalObserveSkip({
      nowMs: this.now().getTime(),
      generation: mr.metadata.generation,
      record: externalReconcileRecord(cached.metadata.annotations),
      settled: isSettled(cached) && pass.status.unchanged(),
      pollMs: pass.pollMs,
      syncMs: this.options.timing.syncIntervalMs,
      dueAtMs: this.dueAt.get(key),
    });
    if (skip.skip) return this.plan(key, skip.observeInMs);
    return this.withExternal(pass, (external) => this.sync(pass, external, policies));
  };

  /** Forgets what is kept about an MR that is gone. */
  forget(key: string): void {
    this.dueAt.delete(key);
    this.deleteRequested.delete(key);
    this.pollIntervalWarnings.forget(key);
  }

  private begin(key: string, cached: T, signal: AbortSignal): ManagedPass<T> {
    const mr = structuredClone(cached);
    const status = new StatusDraft(mr.status ?? {}, mr.metadata.generation, this.now);
    const poll = effectivePollInterval(mr.metadata.annotations, this.options.timing);
    if (this.options.timing.writePollInterval !== false) status.set('effectivePollInterval', poll.text);
    const annotations = { ...mr.metadata.annotations };
    const defaultedExternalName = !annotations[EXTERNAL_NAME_ANNOTATION];
    // As crossplane-runtime's NameAsExternalName initializer, without its write: persisted with the next one.
    if (defaultedExternalName) annotations[EXTERNAL_NAME_ANNOTATION] = mr.metadata.name;
    mr.metadata.annotations = annotations;
    const pass = new ManagedPass({ key, mr, status, pollMs: poll.ms, signal, defaultedExternalName }, this.deps);
    const warning = this.pollIntervalWarnings.check(key, poll, this.options.timing);
    if (warning !== undefined) pass.event({ type: 'Warning', reason: INVALID_POLL_INTERVAL_REASON, message: warning });
    return pass;
  }

  private async pause(pass: ManagedPass<T>): Promise<ReconcileResult> {
    markPaused(pass);
    await pass.writeStatus();
    return {};
  }

  /** A problem only the user can fix (an edit sends the MR back here): reported, not retried. */
  private async refuse(pass: ManagedPass<T>, reason: string, message: string): Promise<ReconcileResult> {
    pass.event({ type: 'Warning', reason, message });
    pass.status.setCondition(reconcileError(message));
    await pass.writeStatus();
    return {};
  }

  /**
   * A Create was started and its result never recorded: refuse to call it again. The cache may simply be behind
   * our own succeeded/failed write, so the API server is asked first.
   */
  private async refuseIncomplete(pass: ManagedPass<T>): Promise<ReconcileResult> {
    const live = await pass.writer.read(pass.mr, pass.signal);
    if (live?.metadata.resourceVersion !== pass.mr.metadata.resourceVersion) {
      return { requeueAfterMs: STALE_CACHE_RECHECK_MS };
    }
    pass.status.setCondition({ type: 'Ready', status: 'False', reason: 'Creating' });
    return this.refuse(pass, 'CannotInitializeManagedResource', CREATE_INCOMPLETE_MESSAGE);
  }

  private async withExternal(
    pass: ManagedPass<T>,
    run: (external: ExternalClient<T>) => Promise<ReconcileResult>,
  ): Promise<ReconcileResult> {
    let external: ExternalClient<T>;
    try {
      external = await this.options.connector.connect(pass.mr, pass.signal);
    } catch (err) {
      return pass.fail({ reason: 'CannotConnectToProvider', what: 'connect failed', err });
    }
    try {
      return await run(external);
    } finally {
      await external.disconnect(pass.signal).catch((err: unknown) => {
        pass.event({ type: 'Warning', reason: 'CannotDisconnectFromProvider', message: errorMessage(err) });
      });
    }
  }

  private async sync(
    pass: ManagedPass<T>,
    external: ExternalClient<T>,
    policies: ManagementPolicies,
  ): Promise<ReconcileResult> {
    const observation = await this.observe(pass, external);
    if (!observation.resourceExists) return this.absent(pass, external, policies);
    if (isBeingDeleted(pass.mr)) return this.deleteExternal(pass, external);
    if (observation.resourceLateInitialized === true && policies.lateInitialize && !policies.observeOnly) {
      return this.lateInitialize(pass);
    }
    if (observation.resourceUpToDate || !policies.update) {
      await pass.publish(observation.connectionDetails ?? {});
      return this.succeed(pass, observation, policies);
    }
    const updated = await this.update(pass, external);
    // Observed once more, so the status shows what the update did rather than what preceded it.
    const after = await this.observe(pass, external);
    await pass.publish({ ...observation.connectionDetails, ...updated, ...after.connectionDetails });
    return this.succeed(pass, after, policies);
  }

  /** Observes the external resource and reports what Observe says in the status (conditions, atProvider). */
  private async observe(pass: ManagedPass<T>, external: ExternalClient<T>): Promise<ExternalObservation> {
    let observation: ExternalObservation;
    try {
      observation = await external.observe(pass.mr, pass.signal);
    } catch (err) {
      return pass.fail({ reason: 'CannotObserveExternalResource', what: 'observe failed', err });
    }
    for (const condition of observation.conditions ?? []) {
      if (condition.type !== 'Synced') pass.status.setCondition(condition);
    }
    if (observation.atProvider !== undefined) pass.status.set('atProvider', observation.atProvider);
    return observation;
  }

  /** The external resource does not exist: create it, wait for it, report it missing, or let a deleted MR go. */
  private async absent(
    pass: ManagedPass<T>,
    external: ExternalClient<T>,
    policies: ManagementPolicies,
  ): Promise<ReconcileResult> {
    const { mr } = pass;
    // Not found after our own Delete needs no creation grace period: it is gone.
    if (isBeingDeleted(mr) && this.deleteRequested.has(pass.key)) return this.finalize(pass);
    const action = whenAbsent(creationState(mr.metadata.annotations), {
      nowMs: pass.nowMs(),
      gracePeriodMs: this.options.timing.creationGracePeriodMs ?? DEFAULT_CREATION_GRACE_PERIOD_MS,
      mayCreate: policies.create && !isBeingDeleted(mr),
    });
    if (action === 'wait-for-creation') return this.waitForCreation(pass);
    if (isBeingDeleted(mr)) return this.finalize(pass);
    if (action === 'report-missing') {
      const err = new Error('external resource does not exist');
      return pass.fail({ reason: 'CannotObserveExternalResource', what: 'observe failed', err });
    }
    return createExternal(pass, external);
  }

  private async waitForCreation(pass: ManagedPass<T>): Promise<ReconcileResult> {
    pass.event({
      type: 'Normal',
      reason: 'PendingExternalResource',
      message: 'Waiting for external resource existence to be confirmed',
    });
    await pass.writeStatus();
    return { requeueAfterMs: CONFIRM_CREATION_RECHECK_MS };
  }

  /** Observe filled in spec fields: write them back, then look again at the new generation. */
  private async lateInitialize(pass: ManagedPass<T>): Promise<ReconcileResult> {
    try {
      await pass.writer.update(pass.mr, pass.signal);
    } catch (err) {
      return pass.fail({ reason: 'CannotUpdateManagedResource', what: 'cannot update managed resource', err });
    }
    return { requeueAfterMs: STALE_CACHE_RECHECK_MS };
  }

  private async update(pass: ManagedPass<T>, external: ExternalClient<T>): Promise<ConnectionDetails> {
    let details: ConnectionDetails | undefined;
    try {
      details = (await external.update(pass.mr, pass.signal)).connectionDetails;
    } catch (err) {
      return pass.fail({ reason: 'CannotUpdateExternalResource', what: 'update failed', err });
    }
    pass.event({
      type: 'Normal',
      reason: 'UpdatedExternalResource',
      message: 'Successfully requested update of external resource',
    });
    return details ?? {};
  }

  private async deleteExternal(pass: ManagedPass<T>, external: ExternalClient<T>): Promise<ReconcileResult> {
    pass.status.setCondition({ type: 'Ready', status: 'False', reason: 'Deleting' });
    try {
      await external.delete(pass.mr, pass.signal);
    } catch (err) {
      return pass.fail({ reason: 'CannotDeleteExternalResource', what: 'delete failed', err, ready: 'Deleting' });
    }
    this.deleteRequested.add(pass.key);
    pass.event({
      type: 'Normal',
      reason: 'DeletedExternalResource',
      message: 'Successfully requested deletion of external resource',
    });
    pass.status.setCondition(RECONCILE_SUCCESS);
    await pass.writeStatus();
    // Observed again until it is gone; only then is the finalizer removed.
    return { requeueAfterMs: DELETION_RECHECK_MS };
  }

  /** The external resource is gone or orphaned: let the MR go. Its connection Secret follows by ownership. */
  private async finalize(pass: ManagedPass<T>): Promise<ReconcileResult> {
    await pass.writer.removeFinalizer(pass.mr, pass.signal);
    this.forget(pass.key);
    return {};
  }

  /** Synced True, the reconcile request handled, the last external reconcile recorded; next observe planned. */
  private async succeed(
    pass: ManagedPass<T>,
    observation: ExternalObservation,
    policies: ManagementPolicies,
  ): Promise<ReconcileResult> {
    const { mr, status } = pass;
    status.setCondition(RECONCILE_SUCCESS);
    const token = pendingReconcileRequest(mr.metadata.annotations, mr.status?.lastHandledReconcileAt);
    if (token !== undefined) {
      status.set('lastHandledReconcileAt', token);
      pass.event(reconcileRequestHandledEvent(token));
    }
    await pass.writeStatus();
    await this.recordExternalReconcile(pass, policies);
    const poll = withJitter(pass.pollMs, this.random);
    const hint = observation.observeAgainInMs;
    return this.plan(pass.key, hint === undefined ? poll : Math.max(MIN_REQUEUE_MS, Math.min(poll, hint)));
  }

  /**
   * Writes, only when something changed, the last external reconcile (see externalRecordDue), a defaulted
   * external name, and the finalizer.
   */
  private async recordExternalReconcile(pass: ManagedPass<T>, policies: ManagementPolicies): Promise<void> {
    const { mr } = pass;
    const nowMs = pass.nowMs();
    const annotations: Record<string, string> = {};
    const due = externalRecordDue({
      nowMs,
      generation: mr.metadata.generation,
      record: externalReconcileRecord(mr.metadata.annotations),
      windowMs: skipWindowMs(pass.pollMs, this.options.timing.syncIntervalMs),
    });
    if (due) {
      annotations[LAST_EXTERNAL_RECONCILE_VERSION_ANNOTATION] = String(mr.metadata.generation ?? '');
      annotations[LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION] = new Date(nowMs).toISOString();
    }
    if (pass.defaultedExternalName) annotations[EXTERNAL_NAME_ANNOTATION] = mr.metadata.name;
    const addFinalizer = !policies.observeOnly && !(mr.metadata.finalizers ?? []).includes(MANAGED_FINALIZER);
    if (Object.keys(annotations).length === 0 && !addFinalizer) return;
    const finalizers = addFinalizer ? withManagedFinalizer(mr.metadata.finalizers) : undefined;
    await pass.writer.patchMetadata(mr, { annotations, finalizers }, pass.signal);
  }

  /** Requeues for the next observe and remembers that it is planned, so that reconcile is never skipped. */
  private plan(key: string, afterMs: number): ReconcileResult {
    this.dueAt.set(key, this.now().getTime() + afterMs);
    return { requeueAfterMs: afterMs };
  }
}
