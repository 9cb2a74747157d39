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
import {
  boundedCopy,
  claimOf,
  describe,
  isApplied,
  isBeingDeleted,
  isPaused,
  isSubset,
  markPaused,
  RECONCILE_SUCCESS,
  reportFailure,
  StatusDraft,
  withAppliedDigest,
  type ConnectionSecretReader,
  type FailureReport,
  type Xr,
  type XrType,
} from '../controller/index.js';
import {
  CONTENT_TYPE,
  isConflict,
  isNotFound,
  publishConnectionSecret,
  readSecretData,
  removeFinalizerPatch,
  serverSideApply,
  type Discovery,
  type EventSink,
  type KubeClient,
} from '../kube/index.js';
import type { ReconcileResult } from '../queue/index.js';
import type { ObjectStore } from '../watch/index.js';
import {
  CLAIM_FIELD_MANAGER,
  CLAIM_FINALIZER,
  claimConditionsFrom,
  claimSpecFromComposite,
  claimStatusFields,
  compositeFromClaim,
  compositeNameFor,
  isBoundTo,
  type Claim,
} from './claim.js';

/** compositor's own name: Crossplane adds the claim finalizer with a plain update, never with an apply. */
const FINALIZER_FIELD_MANAGER = 'compositor/claim-finalizer';
/** How often a claim being deleted in the foreground looks again at its XR. */
const FOREGROUND_RECHECK_MS = 2_000;

export interface ClaimReconcilerOptions {
  /** The XR kind this XRD's claims ask for (its referenceable version). */
  xrType: XrType;
  claims: ObjectStore<Claim>;
  xrs: ObjectStore<Xr>;
  client: KubeClient;
  discovery: Discovery;
  events: EventSink;
  logger: Logger;
  /** Transition and publishing times; the system clock unless given. */
  clock?: Pick<Clock, 'now'>;
  /** The connection Secret cache; without it both Secrets are read from the API server on every reconcile. */
  secrets?: ConnectionSecretReader;
}

/** A claim cannot be reconciled as it is written; reported on the claim, never retried faster than backoff. */
export class ClaimError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'ClaimError';
  }
}

/**
 * The claim reconciler (Crossplane's v1 claims, docs/crossplane-differences.md#claims-and-legacy-xrs): creates or
 * binds the claim's XR and keeps it in step with the claim (server-side apply under the claim's field manager, so
 * removals propagate), records the binding on the claim, shows the XR's status and claim-targeted conditions on the
 * claim, publishes the XR's connection Secret into the claim's namespace, and on deletion deletes the XR with the
 * claim's compositeDeletePolicy. It writes only what differs, so a settled claim costs no API writes.
 */
export class ClaimReconciler {
  private readonly now: () => Date;

  constructor(private readonly options: ClaimReconcilerOptions) {
    const clock = options.clock ?? systemClock;
    this.now = () => dateOf(clock);
  }

  readonly reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult> => {
    const cached = this.options.claims.get(key);
    if (!cached) return {};
    const claim = await this.workingCopy(cached, signal);
    const status = new StatusDraft(claim.status ?? {}, claim.metadata.generation, this.now);
    if (isPaused(claim)) {
      markPaused({
        status,
        event: (input) => {
          this.options.events.event(claim, input);
        },
      });
      await this.writeStatus(claim, status, signal);
      return {};
    }
    if (isBeingDeleted(claim)) return this.delete(claim, status, signal);
    try {
      await this.addFinalizer(claim, signal);
      const xr = await this.syncComposite(claim, signal);
      if (xr) await this.syncClaim(claim, xr, { status, signal });
      for (const condition of claimConditionsFrom(xr)) status.setCondition(condition);
      status.setCondition(RECONCILE_SUCCESS);
    } catch (err) {
      if (isConflict(err)) throw err;
      const reason = err instanceof ClaimError ? err.reason : 'ConfigureCompositeResource';
      await reportFailure(this.report(claim, status, signal), { reason, message: errorMessage(err) });
      throw err;
    }
    await this.writeStatus(claim, status, signal);
    return {};
  };

  private report(claim: Claim, status: StatusDraft, signal: AbortSignal): FailureReport {
    return {
      status,
      event: (input) => {
        this.options.events.event(claim, input);
      },
      writeStatus: () => this.writeStatus(claim, status, signal),
      onWriteError: (writeErr) => {
        this.options.logger.warn({ claim: describe(claim), err: errorMessage(writeErr) }, 'cannot write claim status');
      },
    };
  }

  /**
   * The claim to work on: a copy, measured before anything walks it recursively (starting with the copy). One too
   * deep is refused (refuseNesting throws), unless it is being deleted: that goes on without the too-deep fields.
   */
  private async workingCopy(cached: Claim, signal: AbortSignal): Promise<Claim> {
    const deep = deeperThan(cached);
    if (deep === undefined) return structuredClone(cached);
    if (!isBeingDeleted(cached)) await this.refuseNesting(cached, deep, signal);
    return boundedCopy(cached);
  }

  /**
   * A claim nested deeper than the engine walks: its XR is neither created nor changed; a Warning and Synced False
   * say where. Its status is written from what is stored, unless the status is the deep part: then the event alone.
   */
  private async refuseNesting(claim: Claim, path: string, signal: AbortSignal): Promise<never> {
    const err = new NestingDepthError(`claim ${describe(claim)}`, path, MAX_NESTING_DEPTH);
    const failure = { reason: 'ConfigureCompositeResource', message: err.message };
    if (deeperThan(claim.status) !== undefined) {
      this.options.events.event(claim, { type: 'Warning', ...failure });
      throw err;
    }
    const status = new StatusDraft(claim.status ?? {}, claim.metadata.generation, this.now);
    await reportFailure(this.report(claim, status, signal), failure);
    throw err;
  }

  /**
   * The XR the claim is bound to, created or brought in step with the claim; undefined while an XR of that name is
   * still being deleted (its deletion event brings the claim back, to create it anew).
   */
  private async syncComposite(claim: Claim, signal: AbortSignal): Promise<Xr | undefined> {
    const { xrType } = this.options;
    const ref = claim.spec?.resourceRef;
    const name = ref?.name ?? compositeNameFor(claim);
    const existing = this.options.xrs.get(name);
    this.checkBinding(claim, existing);
    if (existing?.metadata.deletionTimestamp) return undefined;
    // Record the binding before the XR exists, so a crash in between finds this XR rather than making another.
    if (!ref) await this.applyClaimSpec(claim, { resourceRef: { ...typeRef(xrType), name } }, signal);
    const desired: Xr = withAppliedDigest(compositeFromClaim(claim, xrType, name, existing));
    if (isApplied(desired, existing)) return existing;
    const { client, discovery } = this.options;
    return serverSideApply<Xr>(client, discovery, desired, { fieldManager: CLAIM_FIELD_MANAGER, signal });
  }

  /** A claim binds only an XR of its XRD's kind that no other claim holds. */
  private checkBinding(claim: Claim, existing: Xr | undefined): void {
    const { xrType } = this.options;
    const ref = claim.spec?.resourceRef;
    if (ref && (ref.kind !== xrType.kind || group(ref.apiVersion) !== group(xrType.apiVersion))) {
      throw new ClaimError(
        'BindCompositeResource',
        `cannot bind to ${ref.kind} "${ref.name}": claims of kind ${claim.kind} bind composite resources of kind ${xrType.kind} (${group(xrType.apiVersion)})`,
      );
    }
    const holder = existing ? claimOf(existing) : undefined;
    if (existing && holder && !isBoundTo(existing, claim)) {
      throw new ClaimError(
        'BindCompositeResource',
        `cannot bind to ${xrType.kind} "${existing.metadata.name}": it is bound to claim ${holder.namespace}/${holder.name}`,
      );
    }
  }

  /** Records the binding and Composition on the claim, copies the XR's status, publishes its connection Secret. */
  private async syncClaim(
    claim: Claim,
    xr: Xr,
    { status, signal }: { status: StatusDraft; signal: AbortSignal },
  ): Promise<void> {
    await this.applyClaimSpec(claim, claimSpecFromComposite(claim, xr), signal);
    status.replaceFields(claimStatusFields(xr));
    if (await this.publishConnection(claim, xr, signal)) {
      status.set('connectionDetails', { lastPublishedTime: this.now().toISOString() });
      this.options.events.event(claim, {
        type: 'Normal',
        reason: 'PublishConnectionSecret',
        message: 'Successfully published connection details',
      });
    }
  }

  /** Copies the XR's connection Secret into the claim's namespace; true when it wrote. */
  private async publishConnection(claim: Claim, xr: Xr, signal: AbortSignal): Promise<boolean> {
    const to = claim.spec?.writeConnectionSecretToRef?.name;
    const from = xr.spec?.writeConnectionSecretToRef as { name?: string; namespace?: string } | undefined;
    if (!to || !from?.name || !from.namespace) return false;
    const { client, secrets } = this.options;
    const data = secrets
      ? await secrets.data(from.namespace, from.name, signal)
      : await readSecretData(client, from.namespace, from.name, signal);
    if (!data) return false;
    const secret = { namespace: claim.metadata.namespace, name: to, owner: claim, data };
    const cached = secrets?.cached(secret.namespace, to);
    return publishConnectionSecret(client, secret, signal, cached);
  }

  /** Deletes the bound XR with the claim's compositeDeletePolicy; Foreground waits until it is gone. */
  private async delete(claim: Claim, status: StatusDraft, signal: AbortSignal): Promise<ReconcileResult> {
    const ref = claim.spec?.resourceRef;
    const xr = ref ? this.options.xrs.get(ref.name) : undefined;
    if (xr && isBoundTo(xr, claim)) {
      const policy = claim.spec?.compositeDeletePolicy ?? 'Background';
      if (!xr.metadata.deletionTimestamp) await this.deleteComposite(xr, policy, signal);
      if (policy === 'Foreground') {
        status.setCondition({ type: 'Ready', status: 'False', reason: 'Deleting' });
        await this.writeStatus(claim, status, signal);
        return { requeueAfterMs: FOREGROUND_RECHECK_MS };
      }
    }
    await this.removeFinalizer(claim, signal);
    return {};
  }

  private async deleteComposite(xr: Xr, policy: string, signal: AbortSignal): Promise<void> {
    const path = await this.options.discovery.path(xr.apiVersion, xr.kind, xr.metadata.name);
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: policy,
      ...(xr.metadata.uid ? { preconditions: { uid: xr.metadata.uid } } : {}),
    };
    await this.options.client.request('DELETE', path, { body, signal }).catch((err: unknown) => {
      // Gone already, or replaced by another XR of that name that is not this claim's to delete.
      if (!isNotFound(err) && !isConflict(err)) throw err;
    });
  }

  /** Server-side applies the claim spec fields compositor owns, when any differs from what is stored. */
  private async applyClaimSpec(claim: Claim, spec: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    if (isSubset(spec, claim.spec)) return;
    const body = { apiVersion: claim.apiVersion, kind: claim.kind, metadata: nameOf(claim), spec };
    const written = await serverSideApply<Claim>(this.options.client, await this.pathOf(claim), body, {
      fieldManager: CLAIM_FIELD_MANAGER,
      signal,
    });
    claim.spec = written.spec;
  }

  private async addFinalizer(claim: Claim, signal: AbortSignal): Promise<void> {
    if (claim.metadata.finalizers?.includes(CLAIM_FINALIZER)) return;
    const body = {
      apiVersion: claim.apiVersion,
      kind: claim.kind,
      metadata: { ...nameOf(claim), finalizers: [CLAIM_FINALIZER] },
    };
    // A manager of its own: the spec applies leave the finalizer out, and would otherwise remove it.
    await serverSideApply(this.options.client, await this.pathOf(claim), body, {
      fieldManager: FINALIZER_FIELD_MANAGER,
      signal,
    });
  }

  private async removeFinalizer(claim: Claim, signal: AbortSignal): Promise<void> {
    const patch = removeFinalizerPatch(claim.metadata.finalizers, CLAIM_FINALIZER);
    if (!patch) return;
    await this.options.client
      .request('PATCH', await this.pathOf(claim), { body: patch, contentType: CONTENT_TYPE.jsonPatch, signal })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }

  private async writeStatus(claim: Claim, status: StatusDraft, signal: AbortSignal): Promise<void> {
    if (status.unchanged()) return;
    const body = { apiVersion: claim.apiVersion, kind: claim.kind, metadata: nameOf(claim), status: status.toStatus() };
    await serverSideApply(this.options.client, await this.pathOf(claim), body, {
      fieldManager: CLAIM_FIELD_MANAGER,
      subresource: 'status',
      signal,
    });
  }

  private pathOf(claim: Claim): Promise<string> {
    return this.options.discovery.path(claim.apiVersion, claim.kind, claim.metadata.name, claim.metadata.namespace);
  }
}

function group(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
}

function typeRef(xrType: XrType): { apiVersion: string; kind: string } {
  return { apiVersion: xrType.apiVersion, kind: xrType.kind };
}

function nameOf(claim: Claim): { name: string; namespace: string } {
  return { name: claim.metadata.name, namespace: claim.metadata.namespace };
}
