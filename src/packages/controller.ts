// The Function package controller: for every Function, one FunctionRevision per package reference, activated as
// `revisionActivationPolicy` says, pruned past `revisionHistoryLimit` (functionRevisions.ts); the active revision's
// runtime (runtime.ts); its entry in the Lock (functionLock.ts); conditions and status on both. A change to a Function
// (seen through the shared Function informer) starts a pass at once; otherwise a pass runs every `resyncMs` while a
// runtime is not healthy (Deployments are not watched: that would take cluster-wide rights) and every `idleResyncMs`
// once all are. A pass is the reconcile of one key in the controller kit's shell, so passes never overlap and a change
// during a pass runs one more after it. A pass that finds nothing to change writes nothing. Whether a Function runs as
// a package at all is chooseRuntime's decision, the one the function runner makes: one a built-in serves gets no
// Deployment, and every Function's Runtime condition says which way it runs. ImageConfigs apply as to every package
// (imageconfig/): the runtime runs the rewritten image with their pull secret, the statuses say what that is and which
// ImageConfigs were used (imageStatus.ts); an ImageConfig's change starts a pass.
import type { Logger } from 'pino';
import { of } from 'rxjs';
import { chooseRuntime, DEFAULT_BUILTIN_POLICY, type BuiltinPolicy, type RuntimeChoice } from '../functions/index.js';
import type { EventSink, KubeClient } from '../kube/index.js';
import type { InformerRegistry } from '../watch/index.js';
import { errorMessage, type Clock } from '../base/index.js';
import { ControllerShell, watchKind, type Watch } from '../controller/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { Metrics } from '../metrics/index.js';
import type { ReconcileLimiter, ReconcileResult } from '../queue/index.js';
import { conditionOf, health, installed, packageHealth, runtime, RUNTIME } from './conditions.js';
import { writeStatus, type StatusTarget } from './configuration/status.js';
import { FunctionLock, type FunctionLockOptions } from './functionLock.js';
import { FunctionRevisions, revisionStatusOf } from './functionRevisions.js';
import {
  affectsPulls,
  IMAGE_CONFIG,
  ImageConfigStore,
  resolveImage,
  runtimeImageOf,
  type ImageConfig,
  type ImageResolution,
} from './imageconfig/index.js';
import { packageImageFields, revisionImageStatus } from './imageStatus.js';
import { FUNCTION } from './names.js';
import { PackageRuntime } from './runtime.js';
import { metadataCondition, type MetadataReader } from './metadata.js';
import { TlsSecrets } from './secrets.js';
import type { FunctionPackage, FunctionRevision } from './types.js';

const FUNCTIONS = '/apis/pkg.crossplane.io/v1/functions';
/** The one key of the controller's queue: a pass over every Function. */
const PASS = 'functions';

export interface FunctionPackageControllerOptions {
  client: KubeClient;
  /** compositor's namespace: where runtimes, Services and Secrets go. */
  namespace: string;
  logger: Logger;
  metrics: Metrics;
  /** --max-reconcile-rate: the process's one reconcile limiter; each pass takes one token. */
  reconcileLimiter: ReconcileLimiter;
  /**
   * --builtin-functions and --builtin-function-registries: Functions a built-in serves (chooseRuntime) are marked
   * Installed and Healthy and get no Deployment. Default: on, upstream's locations.
   */
  builtins?: BuiltinPolicy;
  /** Where a Function's invalid compositor.crossplane.io/builtin annotation is reported; none by default. */
  events?: EventSink;
  /** Functions something else runs (an explicit endpoint): left alone, no revision, no status. */
  isExternal?: (fn: FunctionPackage) => boolean;
  /** The shared informers: a Function change starts a pass at once. Without them Functions are listed per pass. */
  informers?: InformerRegistry;
  /** The TLS Secrets, shared with the client certificate's keeper so one process makes one CA. */
  secrets?: TlsSecrets;
  /** Between passes while a Function's runtime is not healthy. Default 5s. */
  resyncMs?: number;
  /** Between passes once every runtime is healthy. Default 1m. */
  idleResyncMs?: number;
  /** The delay between passes and status times; the system clock unless given. */
  clock?: Clock;
  /**
   * Reads each active revision's package metadata for status.capabilities. Without it (or when a read fails, which is
   * reported on the revision and changes nothing else) capabilities are written as an empty list.
   */
  metadata?: Pick<MetadataReader, 'capabilities'>;
  /**
   * The Lock, where the active revision is listed (without dependencies: a Function's dependsOn is not read) so the
   * packages depending on it find it installed, and inactive ones are removed. None by default.
   */
  lock?: FunctionLockOptions['lock'];
}

/**
 * Runs Function packages as Crossplane's package manager does.
 *
 * @example
 * const packages = new FunctionPackageController({ client, namespace: 'crossplane-system', logger });
 * await packages.start(); // first pass done
 * await packages.stop(AbortSignal.timeout(30_000));
 */
export class FunctionPackageController implements Lifecycle {
  readonly name = 'packages/function.pkg.crossplane.io';
  private readonly secrets: TlsSecrets;
  private readonly runtime: PackageRuntime;
  private readonly shell: ControllerShell;
  private readonly imageConfigs: ImageConfigStore;
  private readonly revisions: FunctionRevisions;
  private readonly lock: FunctionLock;
  /** Resolves when the first pass has run. */
  private firstPassDone: () => void = () => undefined;
  private readonly firstPass = new Promise<void>((resolve) => (this.firstPassDone = resolve));

  constructor(private readonly options: FunctionPackageControllerOptions) {
    this.secrets =
      options.secrets ?? new TlsSecrets({ client: options.client, namespace: options.namespace, clock: options.clock });
    this.runtime = new PackageRuntime({ client: options.client, namespace: options.namespace, secrets: this.secrets });
    this.revisions = new FunctionRevisions(options.client);
    this.lock = new FunctionLock({ lock: options.lock, logger: options.logger, controller: this.name });
    const watches: Watch[] = [{ keys$: of(PASS) }];
    if (options.informers) {
      watches.push(watchKind({ kind: FUNCTION, keys: (event) => (event.type === 'resync' ? [] : [PASS]) }));
      watches.push(
        watchKind({
          kind: IMAGE_CONFIG,
          // A runtime config ImageConfig too: the pass is cheap, and its change should reach the runtime soon.
          keys: (event) => (event.type !== 'resync' && affectsRuntime(event.object) ? [PASS] : []),
        }),
      );
    }
    this.shell = new ControllerShell({
      ...options,
      name: this.name,
      settings: { reconcileLimiter: options.reconcileLimiter, workers: 1 },
      watches,
      reconcile: (_key, signal) => this.reconcilePass(signal),
      errors: { keyField: 'pass', level: 'warn' },
    });
    this.imageConfigs = new ImageConfigStore({ client: options.client, cache: () => this.shell.store(IMAGE_CONFIG) });
  }

  /**
   * Syncs the Function cache, runs one pass, then passes on every Function change and on the resync timer. Never
   * fails for a Function it cannot run yet (its Healthy condition and the log say why): the engine must start even
   * where the Secrets or runtime objects cannot be written yet (no namespace, missing rights), and passes retry.
   */
  async start(signal?: AbortSignal): Promise<void> {
    await this.shell.start(signal);
    await this.firstPass;
  }

  /** Stops the passes; waits for one in flight until `deadline` aborts, then aborts its requests. */
  async stop(deadline: AbortSignal): Promise<void> {
    await this.shell.stop(deadline);
    this.firstPassDone();
  }

  /** One pass, then the next one soon while a runtime is not healthy, rarely once all are. */
  private async reconcilePass(signal: AbortSignal): Promise<ReconcileResult> {
    const settled = await this.pass(signal).finally(() => {
      this.firstPassDone();
    });
    return { requeueAfterMs: settled ? (this.options.idleResyncMs ?? 60_000) : (this.options.resyncMs ?? 5_000) };
  }

  /** One pass over every Function; a failure of one is logged and does not stop the others. True when all settled. */
  async pass(signal: AbortSignal): Promise<boolean> {
    const items = await this.listFunctions(signal).catch((err: unknown) => {
      this.options.logger.warn({ controller: this.name, err: String(err) }, 'cannot list Functions');
      return undefined;
    });
    let settled = items !== undefined;
    for (const fn of items ?? []) {
      if (signal.aborted) return false;
      const done = await this.reconcile(fn, signal).catch(async (err: unknown) => {
        await this.reportFailure(fn, err, signal);
        return false;
      });
      settled &&= done;
    }
    return settled;
  }

  /**
   * A Function whose pass failed says so in its Healthy condition (so XRs that need it quote the reason) and in the
   * log; the next pass retries it.
   */
  private async reportFailure(fn: FunctionPackage, err: unknown, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const message = errorMessage(err, { cause: true });
    this.options.logger.warn({ controller: this.name, function: fn.metadata.name, err: message }, 'reconcile failed');
    const conditions = [runtime(this.runtimeOf(fn)), health('Healthy', false, message)];
    await writeStatus(this.options, statusOf(fn), { conditions }, signal).catch((writeErr: unknown) => {
      this.options.logger.debug(
        { controller: this.name, function: fn.metadata.name, err: errorMessage(writeErr) },
        'cannot write Function status',
      );
    });
  }

  private async listFunctions(signal: AbortSignal): Promise<FunctionPackage[]> {
    const cached = this.shell.store(FUNCTION);
    if (cached) return cached.list();
    const list = await this.options.client.request<{ items: FunctionPackage[] }>('GET', FUNCTIONS, { signal });
    return list.items;
  }

  /**
   * Reconciles one Function: revisions, the current one's runtime, older ones retired once it is healthy, status.
   * Resolves true when nothing is left to wait for: its runtime is healthy, or compositor does not run it.
   */
  async reconcile(fn: FunctionPackage, signal: AbortSignal): Promise<boolean> {
    if (fn.metadata.deletionTimestamp !== undefined || this.options.isExternal?.(fn) === true) return true;
    const choice = this.runtimeOf(fn);
    this.reportInvalidAnnotation(fn, choice);
    if (choice.builtin !== undefined) {
      await this.serveInProcess(fn, choice, signal);
      return true;
    }
    const pkg = fn.spec?.package ?? '';
    const image = resolveImage(await this.imageConfigs.list(signal), pkg);
    const revisions = await this.revisions.list(fn.metadata.name, signal);
    const current = await this.revisions.ensure(fn, pkg, revisions, signal);
    const others = revisions.filter((r) => r.metadata.name !== current.metadata.name);
    // Before the runtime: a dependency is installed once its revision exists, as upstream's revision adds itself to
    // the Lock before its runtime is up.
    await this.lock.recordRevisions(fn.metadata.name, current, others, signal);
    let currentHealthy = false;
    if (current.spec.desiredState === 'Active') {
      currentHealthy = await this.reconcileActive(current, image, signal);
    }
    await this.retire(others, currentHealthy, signal);
    await this.revisions.collectGarbage(fn, [current, ...others], signal);
    const fresh = await this.revisions.get(current.metadata.name, signal);
    const active = fresh?.spec.desiredState === 'Active';
    const healthy = packageHealth(fresh?.status?.conditions);
    const fields = { currentRevision: current.metadata.name, currentIdentifier: pkg, ...packageImageFields(fn, image) };
    await writeStatus(
      this.options,
      statusOf(fn),
      { conditions: [runtime(choice), installed(active), healthy], fields },
      signal,
    );
    return healthy.status === 'True' && others.every((r) => r.spec.desiredState !== 'Active');
  }

  private runtimeOf(fn: FunctionPackage): RuntimeChoice {
    return chooseRuntime(fn, this.options.builtins ?? DEFAULT_BUILTIN_POLICY);
  }

  /** A Warning event when the annotation becomes invalid (the Runtime condition changes), not on every pass. */
  private reportInvalidAnnotation(fn: FunctionPackage, choice: RuntimeChoice): void {
    if (choice.invalidAnnotation === undefined) return;
    if (conditionOf(fn.status?.conditions, RUNTIME)?.message === choice.message) return;
    const target = { ...FUNCTION, metadata: fn.metadata };
    this.options.events?.event(target, {
      type: 'Warning',
      reason: 'InvalidBuiltinAnnotation',
      message: choice.message,
    });
  }

  /**
   * A Function a built-in serves: marked Installed and Healthy, no Deployment. One that ran as a package before (its
   * annotation or package changed) has its runtimes retired: a built-in Function runs no Deployment.
   */
  private async serveInProcess(fn: FunctionPackage, choice: RuntimeChoice, signal: AbortSignal): Promise<void> {
    const fields: Record<string, unknown> = {};
    if (fn.status?.currentRevision !== undefined) {
      const revisions = await this.revisions.list(fn.metadata.name, signal);
      for (const revision of revisions) {
        if (revision.spec.desiredState === 'Active') await this.revisions.setDesiredState(revision, 'Inactive', signal);
        await this.runtime.deactivate(revision, signal);
      }
      // Removed by the merge patch: the revisions stay (history, as upstream), none is current.
      fields.currentRevision = null;
      fields.currentIdentifier = null;
    }
    const conditions = [runtime(choice), installed(true, choice.message), health('Healthy', true, choice.message)];
    await writeStatus(this.options, statusOf(fn), { conditions, fields }, signal);
    await this.lock.recordBuiltin(fn, signal);
  }

  /** An older runtime serves until the current revision is active and healthy; then it is retired. */
  private async retire(
    others: readonly FunctionRevision[],
    currentHealthy: boolean,
    signal: AbortSignal,
  ): Promise<void> {
    for (const old of others) {
      if (old.spec.desiredState === 'Active' && currentHealthy) {
        await this.revisions.setDesiredState(old, 'Inactive', signal);
      }
      if (old.spec.desiredState !== 'Active') await this.runtime.deactivate(old, signal);
    }
  }

  /** Applies the runtime and writes the revision's status; true when its runtime is healthy. */
  private async reconcileActive(
    revision: FunctionRevision,
    image: ImageResolution,
    signal: AbortSignal,
  ): Promise<boolean> {
    const { endpoint, health: runtime } = await this.runtime.ensure(revision, signal, runtimeImageOf(image));
    const imageStatus = revisionImageStatus(revision, image);
    const conditions = [
      health('RevisionHealthy', true),
      health('RuntimeHealthy', runtime.healthy, runtime.message),
      ...imageStatus.conditions,
    ];
    // Capabilities the package's metadata could not tell are unknown: an empty list says so (upstream's revisions
    // always list some), and the Operation capability check passes such a revision as it passes a function without
    // one (docs/operations.md). A failed read changes nothing else: the runtime runs the image as before.
    const read = await this.options.metadata?.capabilities(revision, signal, image);
    if (read !== undefined) conditions.push(metadataCondition(read));
    const capabilities = read !== undefined && 'capabilities' in read ? read.capabilities : [];
    const fields = { endpoint, capabilities, ...imageStatus.fields };
    await writeStatus(this.options, revisionStatusOf(revision), { conditions, fields }, signal);
    return runtime.healthy === true;
  }
}

function affectsRuntime(object: unknown): boolean {
  const config = object as ImageConfig;
  return affectsPulls(config) || config.spec?.runtime !== undefined;
}

function statusOf(fn: FunctionPackage): StatusTarget {
  return { path: `${FUNCTIONS}/${fn.metadata.name}`, stored: fn.status };
}
