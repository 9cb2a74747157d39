import type { Logger } from 'pino';
import type { CustomResourceDefinition } from '../apis/index.js';
import { dateOf, errorMessage, systemClock, waitAtMost, type Clock } from '../base/index.js';
import { sameCondition, StatusDraft, type ConditionInput } from '../controller/index.js';
import { getIfExists, isEstablished, isNotFound, type EventSink, type KubeClient } from '../kube/index.js';
import type { Metrics } from '../metrics/index.js';
import type { ControllerShell } from '../controller/index.js';
import type { ReconcileLimiter, ReconcileResult } from '../queue/index.js';
import type { InformerRegistry } from '../watch/index.js';
import {
  AGGREGATE_TO_COMPOSITOR_LABEL,
  applyCompositeRole,
  compositeRoleName,
  missingCompositeRights,
} from './rbac.js';
import type { Lifecycle } from '../lifecycle/index.js';
import { claimCrdName, claimNamesOf, renderClaimCrd, type ClaimNames } from './claimRender.js';
import {
  applyRenderedCrd,
  CLAIM_CRD,
  controlledBy,
  CRD_NOT_APPLIED,
  CrdApplyError,
  crdUnchanged,
  servesVersion,
  XR_CRD,
  type CrdRole,
} from './crdApply.js';
import { renderXrCrd } from './render.js';
import {
  RunningControllers,
  typeOf,
  type ClaimFactoryInput,
  type CompositeFactoryInput,
  type RunningComposite,
} from './runningControllers.js';
import { XRD, xrdShell } from './xrdQueue.js';
import { validateXrd } from './validate.js';
import { deleteAll, DEFINITION_FIELD_MANAGER, XrdWriter, type XrdObject } from './xrdWriter.js';
import { referenceableVersion, WAITING_FOR_XR_CRD } from './xrd.js';

/** On every valid XRD until its XRs, composite controller and XR CRD are gone (Crossplane's definition controller). */
export const DEFINITION_FINALIZER = 'defined.apiextensions.crossplane.io';
/** On an XRD that offers claims until its claims, claim controller and claim CRD are gone (Crossplane's offered one). */
export const OFFERED_FINALIZER = 'offered.apiextensions.crossplane.io';
const CONTROLLER_NAME = 'defined/compositeresourcedefinition.apiextensions.crossplane.io';
const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
/** How soon to look again at a CRD that is not Established yet, or at XRs still being deleted. */
const RECHECK_MS = 500;
/** How soon to look again at an XRD whose XR kind compositor may not use yet (role aggregation takes a moment). */
const RIGHTS_RECHECK_MS = 2_000;
const MISSING_RBAC = 'MissingRBAC';
const DELETION_RECHECK_MS = 2_000;
/** How long start() waits at most for the first reconcile of the XRDs that exist at start. */
const FIRST_PASS_LIMIT_MS = 60_000;

export interface DefinitionControllerOptions {
  client: KubeClient;
  informers: InformerRegistry;
  events: EventSink;
  metrics: Metrics;
  logger: Logger;
  /** --max-reconcile-rate: the process's one reconcile limiter, shared by every controller. */
  reconcileLimiter: ReconcileLimiter;
  newComposite: (input: CompositeFactoryInput) => RunningComposite;
  /** Builds the claim controller of an XRD that offers claims (spec.claimNames); without it claims are not served. */
  newClaim?: (input: ClaimFactoryInput) => RunningComposite;
  /** How long a composite controller stopped for a changed or deleted XRD may finish in-flight reconciles. */
  stopDeadlineMs?: number;
  /** --manage-composite-rbac: grant compositor its rights on each XR kind through an aggregated ClusterRole. */
  manageCompositeRbac?: boolean;
  /** --enable-composed-resource-ordering: XR CRDs keep the ordering fields of resourceRefs entries. */
  ordering?: boolean;
  /** Condition times and the bound on the first pass; the system clock unless given. */
  clock?: Clock;
}

/**
 * The XRD controller (docs/architecture.md#the-xrd-controller-and-the-other-controllers): validates each
 * CompositeResourceDefinition, applies the CRD of its XRs, waits for it to be Established, runs one composite
 * controller per XRD (restarted when the XRD changes), and on deletion removes the XRs, stops the controller and
 * deletes the CRD.
 */
export class DefinitionController implements Lifecycle {
  readonly name = CONTROLLER_NAME;
  private readonly shell: ControllerShell;
  private readonly running: RunningControllers;
  private readonly writer: XrdWriter;
  private readonly clock: Clock;
  private readonly now: () => Date;
  /** Until start() resolves: marks an XRD cached at start as reconciled once. */
  private firstPassDone: ((key: string) => void) | undefined;
  /** The XRDs cached at start, reconciled once when this resolves. */
  private firstPass: Promise<void> = Promise.resolve();

  constructor(private readonly options: DefinitionControllerOptions) {
    this.clock = options.clock ?? systemClock;
    this.now = () => dateOf(this.clock);
    this.writer = new XrdWriter(options.client, options.events);
    this.shell = xrdShell({
      ...options,
      name: CONTROLLER_NAME,
      workers: 2,
      reconcile: (key, signal) => this.reconcile(key, signal),
      ready: () => {
        this.awaitFirstPass();
      },
    });
    this.running = new RunningControllers({ ...options, cached: (key) => this.cached(key) });
  }

  /** Names of the composite controllers running now. */
  controllers(): string[] {
    return this.running.names();
  }

  /**
   * Starts the queue and resolves once every XRD cached at start has been reconciled once (bounded), so readiness
   * means the composite controllers of existing XRDs are running with synced caches, as after a restart.
   */
  async start(signal?: AbortSignal): Promise<void> {
    await this.shell.start(signal);
    await waitAtMost(this.clock, this.firstPass, FIRST_PASS_LIMIT_MS);
    this.firstPassDone = undefined;
  }

  /** Stops taking XRD work, then stops every composite and claim controller, all within `deadline`. */
  async stop(deadline: AbortSignal): Promise<void> {
    await this.shell.stop(deadline);
    await this.running.stopAll(deadline);
  }

  /** Before the first reconcile: the XRDs cached now are the ones start waits for. */
  private awaitFirstPass(): void {
    const firstPass = new Set(this.shell.store(XRD)?.keys());
    this.firstPass = new Promise<void>((resolve) => {
      this.firstPassDone = (key): void => {
        firstPass.delete(key);
        if (firstPass.size === 0) resolve();
      };
      if (firstPass.size === 0) resolve();
    });
  }

  private cached(key: string): XrdObject | undefined {
    return this.shell.store(XRD)?.get(key) as XrdObject | undefined;
  }

  private async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    try {
      return await this.reconcileXrd(key, signal);
    } finally {
      this.firstPassDone?.(key);
    }
  }

  private async reconcileXrd(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    const xrd = this.cached(key);
    if (!xrd) {
      await this.running.stop(key, signal);
      return {};
    }
    const status = new StatusDraft(xrd.status ?? {}, xrd.metadata.generation, this.now);
    if (xrd.metadata.deletionTimestamp) return this.delete(xrd, status, signal);

    const problems = validateXrd(xrd);
    if (problems.length > 0) {
      const text = `invalid CompositeResourceDefinition: ${problems.join('; ')}`;
      this.writer.event(xrd, 'Warning', 'RenderCRD', text);
      status.setCondition({ type: 'Established', status: 'False', reason: 'InvalidDefinition', message: text });
      await this.writer.writeStatus(xrd, status);
      return {};
    }
    await this.writer.addFinalizer(xrd, DEFINITION_FINALIZER);
    // A CRD the API server refuses throws after reporting it; the running controller and the stored CRD stay.
    const applied = await this.applyCrd(
      xrd,
      renderXrCrd(xrd, { ordering: this.options.ordering === true }),
      XR_CRD,
      status,
    );
    if (!applied) return {};
    if (!isEstablished(applied)) {
      status.setCondition({
        type: 'Established',
        status: 'False',
        reason: WAITING_FOR_XR_CRD,
        message: 'waiting for composite resource CustomResourceDefinition to be established',
      });
      await this.writer.writeStatus(xrd, status);
      return { requeueAfterMs: RECHECK_MS };
    }
    if (!(await this.rightsGranted(key, xrd, status))) return { requeueAfterMs: RIGHTS_RECHECK_MS };
    const xrType = typeOf(xrd);
    await this.ensureComposite(key, xrd, signal);
    const controllers: Record<string, unknown> = {
      compositeResourceType: { apiVersion: xrType.apiVersion, kind: xrType.kind },
    };
    status.setCondition({ type: 'Established', status: 'True', reason: 'WatchingCompositeResource' });
    const offered = await this.offerClaims(key, xrd, status, signal);
    if (offered) controllers.compositeResourceClaimType = offered;
    status.set('controllers', controllers);
    await this.writer.writeStatus(xrd, status);
    return offered === false ? { requeueAfterMs: RECHECK_MS } : {};
  }

  /**
   * For an XRD with spec.claimNames: applies the claim CRD, and once it is Established runs the claim controller
   * and marks the XRD Offered. Returns the claim type when offered, false while waiting, undefined without claims.
   */
  private async offerClaims(
    key: string,
    xrd: XrdObject,
    status: StatusDraft,
    signal: AbortSignal,
  ): Promise<{ apiVersion: string; kind: string } | false | undefined> {
    const names = claimNamesOf(xrd);
    const running = this.running.get(key);
    if (!names || !this.options.newClaim || !running) return undefined;
    await this.writer.addFinalizer(xrd, OFFERED_FINALIZER);
    const applied = await this.applyCrd(xrd, renderClaimCrd(xrd, names), CLAIM_CRD, status).catch(
      async (err: unknown) => {
        await this.keepServingClaims(key, xrd, names, signal);
        throw err;
      },
    );
    if (!applied) return false;
    if (!isEstablished(applied)) {
      status.setCondition({
        type: 'Offered',
        status: 'False',
        reason: 'WaitingForCompositeResourceClaim',
        message: 'waiting for composite resource claim CustomResourceDefinition to be established',
      });
      return false;
    }
    const claimType = await this.startClaim(key, xrd, names, signal);
    status.setCondition({ type: 'Offered', status: 'True', reason: 'WatchingCompositeResourceClaim' });
    return claimType;
  }

  private async startClaim(
    key: string,
    xrd: XrdObject,
    names: ClaimNames,
    signal: AbortSignal,
  ): Promise<{ apiVersion: string; kind: string }> {
    const xrType = typeOf(xrd);
    // Claims are served at the XR's group and referenceable version.
    const claimType = { apiVersion: xrType.apiVersion, kind: names.kind };
    const newClaim = this.options.newClaim;
    const name = `claim/${names.plural}.${xrd.spec.group}`;
    if (newClaim) await this.running.startClaim(key, () => newClaim({ name, claimType, xrType }), signal);
    return claimType;
  }

  /**
   * The claim CRD of this generation could not be applied, and the composite restart stopped the claim controller:
   * run it again on the claim CRD the API server still serves, so claims keep working on the last good schema as
   * XRs do. A failure here is logged; the apply's error is the one the reconcile reports.
   */
  private async keepServingClaims(key: string, xrd: XrdObject, names: ClaimNames, signal: AbortSignal): Promise<void> {
    if (this.running.get(key)?.claim) return;
    try {
      const stored = await this.getCrd(claimCrdName(xrd, names));
      const version = referenceableVersion(xrd)?.name;
      if (!stored || !controlledBy(stored, xrd) || !isEstablished(stored) || !servesVersion(stored, version)) return;
      await this.startClaim(key, xrd, names, signal);
    } catch (err) {
      this.options.logger.warn(
        { xrd: key, err: errorMessage(err) },
        'cannot run the claim controller on the stored claim CRD',
      );
    }
  }

  /**
   * Grants compositor its rights on the XR kind when it manages RBAC, and before a composite controller starts checks
   * that it has them, so missing rights are an XRD condition rather than a controller failing to list in a loop.
   */
  private async rightsGranted(key: string, xrd: XrdObject, status: StatusDraft): Promise<boolean> {
    const { client, manageCompositeRbac } = this.options;
    const wrote = manageCompositeRbac ? await applyCompositeRole(client, xrd) : false;
    if (this.running.get(key)) return true;
    const missing = await missingCompositeRights(client, xrd);
    if (missing.length === 0) return true;
    // A role written just now is usually aggregated within a second: look again before calling it a problem.
    if (wrote) return false;
    const grant = manageCompositeRbac
      ? `ClusterRole ${compositeRoleName(xrd)} is not aggregated into compositor's ClusterRole (is the clusterrole-aggregation controller running, and does the chart's aggregationRule select ${AGGREGATE_TO_COMPOSITOR_LABEL}?)`
      : `grant them with a ClusterRole labelled ${AGGREGATE_TO_COMPOSITOR_LABEL}: "true", or run with --manage-composite-rbac`;
    const text = `compositor may not ${missing.join(', ')} in API group ${xrd.spec.group}: ${grant}`;
    const established = xrd.status?.conditions?.find((c) => c.type === 'Established');
    if (established?.reason !== MISSING_RBAC) this.writer.event(xrd, 'Warning', 'EstablishComposite', text);
    status.setCondition({ type: 'Established', status: 'False', reason: MISSING_RBAC, message: text });
    await this.writer.writeStatus(xrd, status);
    return false;
  }

  /** Starts the XRD's composite controller, or restarts it when the XRD's generation moved on. */
  private async ensureComposite(key: string, xrd: XrdObject, signal: AbortSignal): Promise<void> {
    const running = this.running.get(key);
    if (running) {
      running.xrd = xrd;
      if (running.generation === xrd.metadata.generation) return;
      this.writer.event(
        xrd,
        'Normal',
        'RestartComposite',
        'XRD specification changed; restarting controller to apply updates',
      );
    }
    await this.running.startComposite(key, xrd, signal);
  }

  /** Deletes the XRs first (their controller must still run to finalize them), then the controller and the CRD. */
  private async delete(xrd: XrdObject, status: StatusDraft, signal: AbortSignal): Promise<ReconcileResult> {
    const { client } = this.options;
    status.setCondition({ type: 'Established', status: 'False', reason: 'TerminatingCompositeResource' });
    await this.writer.writeStatus(xrd, status).catch(() => undefined);
    const finalizers = this.writer.finalizers(xrd);
    const claims = await this.clearClaims(xrd, signal);
    if (claims === 'waiting') return { requeueAfterMs: DELETION_RECHECK_MS };
    // As upstream's offered controller: only once the claim CRD is gone.
    if (claims === 'cleared') await finalizers.remove(OFFERED_FINALIZER);
    const crd = await this.getCrd(xrd.metadata.name);
    if (crd && controlledBy(crd, xrd)) {
      const xrType = typeOf(xrd);
      const plural = xrd.spec.names.plural;
      const remaining = await deleteAll(
        this.options.client,
        `/apis/${xrType.apiVersion}/${plural}`,
        (ns, name) => `/apis/${xrType.apiVersion}${ns ? `/namespaces/${ns}` : ''}/${plural}/${name}`,
      );
      if (remaining > 0) {
        this.writer.event(xrd, 'Normal', 'TerminateComposite', 'waiting for defined composite resources to be deleted');
        return { requeueAfterMs: DELETION_RECHECK_MS };
      }
      await this.running.stop(xrd.metadata.name, signal);
      await client.request('DELETE', `${CRDS_PATH}/${xrd.metadata.name}`).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
      this.writer.event(
        xrd,
        'Normal',
        'TerminateComposite',
        `Deleted composite resource CustomResourceDefinition: ${xrd.metadata.name}`,
      );
    }
    await this.running.stop(xrd.metadata.name, signal);
    await finalizers.remove(DEFINITION_FINALIZER);
    // The claim CRD was deleted just now: look again to release the offered finalizer once it is gone.
    return claims === 'deleting' ? { requeueAfterMs: RECHECK_MS } : {};
  }

  /**
   * Deletes the XRD's claims before anything else (their controller must still run to delete their XRs), then
   * stops the claim controller and deletes the claim CRD. 'waiting' while claims remain, 'deleting' right after
   * deleting the claim CRD, 'cleared' once there is no claim CRD of this XRD (or the XRD offers none).
   */
  private async clearClaims(xrd: XrdObject, signal: AbortSignal): Promise<'waiting' | 'deleting' | 'cleared'> {
    const names = claimNamesOf(xrd);
    const crdName = names ? claimCrdName(xrd, names) : undefined;
    const crd = crdName ? await this.getCrd(crdName) : undefined;
    if (!names || !crdName || !crd || !controlledBy(crd, xrd)) {
      await this.running.stopClaim(xrd.metadata.name, signal);
      return 'cleared';
    }
    const { apiVersion } = typeOf(xrd);
    const remaining = await deleteAll(
      this.options.client,
      `/apis/${apiVersion}/${names.plural}`,
      (ns, name) => `/apis/${apiVersion}/namespaces/${ns ?? ''}/${names.plural}/${name}`,
    );
    if (remaining > 0) {
      this.writer.event(xrd, 'Normal', 'TerminateClaim', 'waiting for composite resource claims to be deleted');
      return 'waiting';
    }
    await this.running.stopClaim(xrd.metadata.name, signal);
    await this.options.client.request('DELETE', `${CRDS_PATH}/${crdName}`).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
    return 'deleting';
  }

  private getCrd(name: string): Promise<CustomResourceDefinition | undefined> {
    return getIfExists<CustomResourceDefinition>(this.options.client, `${CRDS_PATH}/${name}`);
  }

  /**
   * Applies the CRD when it differs from what is stored; undefined when another owner controls it. A CRD the API
   * server refuses is reported on the role's condition and as a Warning event, then the error is thrown so the queue
   * backs off; nothing is deleted, so the stored CRD keeps serving the last good schema.
   */
  private async applyCrd(
    xrd: XrdObject,
    crd: CustomResourceDefinition,
    role: CrdRole,
    status: StatusDraft,
  ): Promise<CustomResourceDefinition | undefined> {
    const existing = await this.getCrd(crd.metadata.name);
    if (existing && !controlledBy(existing, xrd)) {
      const message = `CustomResourceDefinition ${crd.metadata.name} exists and is not controlled by this XRD; delete it or rename the XRD`;
      await this.failCrd(xrd, status, role, { reason: 'CRDNotControlled', message });
      return undefined;
    }
    if (existing && crdUnchanged(crd, existing)) return existing;
    const fieldManager = DEFINITION_FIELD_MANAGER;
    const applied = await applyRenderedCrd(this.options.client, crd, { role, existing, fieldManager }).catch(
      async (err: unknown) => {
        if (err instanceof CrdApplyError) {
          await this.failCrd(xrd, status, role, { reason: CRD_NOT_APPLIED, message: err.message });
        }
        throw err;
      },
    );
    if (applied.metadata.resourceVersion !== existing?.metadata.resourceVersion) {
      this.writer.event(xrd, 'Normal', role.eventReason, `Applied ${role.noun}: ${crd.metadata.name}`);
    }
    return applied;
  }

  /**
   * Reports a CRD that does not serve this generation: its condition False, and a Warning event with the role's
   * reason only when the condition says something new, so a retry that fails alike records nothing again.
   */
  private async failCrd(
    xrd: XrdObject,
    status: StatusDraft,
    role: CrdRole,
    failure: { reason: string; message: string },
  ): Promise<void> {
    const stored = xrd.status?.conditions?.find((c) => c.type === role.condition);
    const condition: ConditionInput = { type: role.condition, status: 'False', ...failure };
    status.setCondition(condition);
    if (!sameCondition(stored, status.condition(role.condition))) {
      this.writer.event(xrd, 'Warning', role.eventReason, failure.message);
    }
    await this.writer.writeStatus(xrd, status);
  }
}
