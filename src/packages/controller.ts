// The Function package controller: for every Function, one FunctionRevision per package reference, activated as
// `revisionActivationPolicy` says, pruned past `revisionHistoryLimit`; the active revision's runtime (runtime.ts);
// conditions and status on both. A change to a Function (seen through the shared Function informer) starts a pass at
// once; otherwise a pass runs every `resyncMs` while a runtime is not healthy (Deployments are not watched: that
// would take cluster-wide rights) and every `idleResyncMs` once all are. A pass is the reconcile of one key in the
// controller kit's shell, so passes never overlap and a change during a pass runs one more after it. A pass that finds nothing to change writes
// nothing. Whether a Function runs as a package at all is chooseRuntime's decision, the one the function runner
// makes: one a built-in serves gets no Deployment, and every Function's Runtime condition says which way it runs.
// ImageConfigs apply as to every package (imageconfig/): the runtime runs the rewritten image with their pull secret,
// the Function's resolvedPackage and the revision's resolvedImage say what that is, appliedImageConfigRefs which
// ImageConfigs were used; an ImageConfig's change starts a pass.
import type { Logger } from 'pino';
import { of } from 'rxjs';
import { chooseRuntime, DEFAULT_BUILTIN_POLICY, type BuiltinPolicy, type RuntimeChoice } from '../functions/index.js';
import {
  CONTENT_TYPE,
  getIfExists,
  isNotFound,
  serverSideApply,
  type EventSink,
  type KubeClient,
} from '../kube/index.js';
import type { InformerRegistry } from '../watch/index.js';
import { dateOf, errorMessage, systemClock, type Clock } from '../base/index.js';
import {
  ControllerShell,
  sameConditions,
  setConditions,
  watchKind,
  type ConditionTime,
  type Watch,
} from '../controller/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { Metrics } from '../metrics/index.js';
import type { ReconcileLimiter, ReconcileResult } from '../queue/index.js';
import { conditionOf, health, installed, packageHealth, runtime, RUNTIME } from './conditions.js';
import { FUNCTION, FUNCTION_REVISION, LABEL_PARENT_PACKAGE, revisionName, serverSecretName } from './names.js';
import { PackageRuntime } from './runtime.js';
import type { LockManager } from './lock/index.js';
import {
  affectsPulls,
  appliedRefsField,
  IMAGE_CONFIG,
  ImageConfigStore,
  resolveImage,
  runtimeImageOf,
  verificationCondition,
  IMAGE_CONFIG_REASON,
  type ImageConfig,
  type ImageConfigRef,
  type ImageResolution,
} from './imageconfig/index.js';
import { metadataCondition, type MetadataReader } from './metadata.js';
import { TlsSecrets } from './secrets.js';
import type { Condition, FunctionPackage, FunctionRevision } from './types.js';

const FUNCTIONS = '/apis/pkg.crossplane.io/v1/functions';
const REVISIONS = '/apis/pkg.crossplane.io/v1/functionrevisions';
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
  lock?: Pick<LockManager, 'record' | 'recordUnlessListed' | 'removeSelf'>;
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
  /** Resolves when the first pass has run. */
  private firstPassDone: () => void = () => undefined;
  private readonly firstPass = new Promise<void>((resolve) => (this.firstPassDone = resolve));

  constructor(private readonly options: FunctionPackageControllerOptions) {
    this.secrets =
      options.secrets ?? new TlsSecrets({ client: options.client, namespace: options.namespace, clock: options.clock });
    this.runtime = new PackageRuntime({ client: options.client, namespace: options.namespace, secrets: this.secrets });
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
    await this.writeStatus(statusOf(fn), conditions, {}, signal).catch((writeErr: unknown) => {
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
    const revisions = await this.listRevisions(fn.metadata.name, signal);
    const current = await this.ensureRevision(fn, pkg, revisions, signal);
    const others = revisions.filter((r) => r.metadata.name !== current.metadata.name);
    // Before the runtime: a dependency is installed once its revision exists, as upstream's revision adds itself to
    // the Lock before its runtime is up.
    await this.updateLock(fn.metadata.name, current, others, signal);
    let currentHealthy = false;
    if (current.spec.desiredState === 'Active') {
      currentHealthy = await this.reconcileActive(current, image, signal);
    }
    await this.retire(others, currentHealthy, signal);
    await this.collectGarbage(fn, [current, ...others], signal);
    const fresh = await getIfExists<FunctionRevision>(
      this.options.client,
      `${REVISIONS}/${current.metadata.name}`,
      signal,
    );
    const active = fresh?.spec.desiredState === 'Active';
    const healthy = packageHealth(fresh?.status?.conditions);
    await this.writeStatus(
      statusOf(fn),
      [runtime(choice), installed(active), healthy],
      { currentRevision: current.metadata.name, currentIdentifier: pkg, ...resolvedFields(fn, image) },
      signal,
    );
    return healthy.status === 'True' && others.every((r) => r.spec.desiredState !== 'Active');
  }

  /**
   * Lists the active revision in the Lock and removes the others, and the entry a built-in had; a failure is logged,
   * the runtime is unaffected.
   */
  private async updateLock(
    functionName: string,
    current: FunctionRevision,
    others: FunctionRevision[],
    signal: AbortSignal,
  ): Promise<void> {
    const lock = this.options.lock;
    if (lock === undefined) return;
    try {
      // The entry it had while a built-in served it (recordBuiltin).
      await lock.removeSelf(functionName, signal, 'Function');
      // One revision per package, as upstream lists its one active revision: the current one once it is active, though
      // an older one still serves until the current one is healthy (upstream would have retired it at once).
      const active = current.spec.desiredState === 'Active';
      for (const r of [current, ...others]) {
        const listed = active ? r === current : r.spec.desiredState === 'Active';
        if (!listed) await lock.removeSelf(r.metadata.name, signal, 'Function');
      }
      if (active) {
        await lock.record({ name: current.metadata.name, type: 'Function', image: current.spec.image }, signal);
      }
    } catch (err) {
      this.options.logger.warn(
        { controller: this.name, revision: current.metadata.name, err: errorMessage(err) },
        'cannot update the package Lock',
      );
    }
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
      const revisions = await this.listRevisions(fn.metadata.name, signal);
      for (const revision of revisions) {
        if (revision.spec.desiredState === 'Active') await this.setDesiredState(revision, 'Inactive', signal);
        await this.runtime.deactivate(revision, signal);
      }
      // Removed by the merge patch: the revisions stay (history, as upstream), none is current.
      fields.currentRevision = null;
      fields.currentIdentifier = null;
    }
    const conditions = [runtime(choice), installed(true, choice.message), health('Healthy', true, choice.message)];
    await this.writeStatus(statusOf(fn), conditions, fields, signal);
    await this.recordBuiltin(fn, signal);
  }

  /**
   * A Function a built-in serves has no active revision, yet packages depending on it must find it installed: unless
   * the Lock lists its package already (a revision Crossplane installed, kept there until it is deleted), it is listed
   * under its own name (no revision is named so: theirs end in a digest) at its package's version, and leaves the Lock
   * when it runs as a package again or is deleted (lock/departures.ts). A failure is logged only.
   */
  private async recordBuiltin(fn: FunctionPackage, signal: AbortSignal): Promise<void> {
    const image = fn.spec?.package ?? '';
    await this.options.lock
      ?.recordUnlessListed({ name: fn.metadata.name, type: 'Function', image }, signal)
      .catch((err: unknown) => {
        this.options.logger.warn(
          { controller: this.name, function: fn.metadata.name, err: errorMessage(err) },
          'cannot update the package Lock',
        );
      });
  }

  /** An older runtime serves until the current revision is active and healthy; then it is retired. */
  private async retire(
    others: readonly FunctionRevision[],
    currentHealthy: boolean,
    signal: AbortSignal,
  ): Promise<void> {
    for (const old of others) {
      if (old.spec.desiredState === 'Active' && currentHealthy) await this.setDesiredState(old, 'Inactive', signal);
      if (old.spec.desiredState !== 'Active') await this.runtime.deactivate(old, signal);
    }
  }

  private async listRevisions(name: string, signal: AbortSignal): Promise<FunctionRevision[]> {
    const list = await this.options.client.request<{ items: FunctionRevision[] }>('GET', REVISIONS, {
      query: { labelSelector: `${LABEL_PARENT_PACKAGE}=${name}` },
      signal,
    });
    return list.items;
  }

  /** Creates or updates the revision of the Function's package reference, numbered after every other. */
  private async ensureRevision(
    fn: FunctionPackage,
    pkg: string,
    revisions: readonly FunctionRevision[],
    signal: AbortSignal,
  ): Promise<FunctionRevision> {
    const name = revisionName(fn.metadata.name, pkg);
    const existing = revisions.find((r) => r.metadata.name === name);
    const highest = Math.max(0, ...revisions.filter((r) => r !== existing).map((r) => r.spec.revision));
    const number = existing !== undefined && existing.spec.revision >= highest ? existing.spec.revision : highest + 1;
    const automatic = (fn.spec?.revisionActivationPolicy ?? 'Automatic') === 'Automatic';
    const desiredState = automatic ? 'Active' : (existing?.spec.desiredState ?? 'Inactive');
    const body = {
      ...FUNCTION_REVISION,
      metadata: {
        name,
        labels: { [LABEL_PARENT_PACKAGE]: fn.metadata.name },
        ownerReferences: [
          {
            ...FUNCTION,
            name: fn.metadata.name,
            uid: fn.metadata.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { desiredState, image: pkg, revision: number, ...inheritedSpec(fn) },
    };
    const options = { fieldManager: 'compositor/packages', signal };
    return serverSideApply<FunctionRevision>(this.options.client, `${REVISIONS}/${name}`, body, options);
  }

  /** Applies the runtime and writes the revision's status; true when its runtime is healthy. */
  private async reconcileActive(
    revision: FunctionRevision,
    image: ImageResolution,
    signal: AbortSignal,
  ): Promise<boolean> {
    const { endpoint, health: runtime } = await this.runtime.ensure(revision, signal, runtimeImageOf(image));
    const conditions = [health('RevisionHealthy', true), health('RuntimeHealthy', runtime.healthy, runtime.message)];
    const verified = verificationCondition(image, revision.status?.conditions);
    if (verified !== undefined) conditions.push(verified);
    // Capabilities the package's metadata could not tell are unknown: an empty list says so (upstream's revisions
    // always list some), and the Operation capability check passes such a revision as it passes a function without
    // one (docs/operations.md). A failed read changes nothing else: the runtime runs the image as before.
    const read = await this.options.metadata?.capabilities(revision, signal, image);
    if (read !== undefined) conditions.push(metadataCondition(read));
    const capabilities = read !== undefined && 'capabilities' in read ? read.capabilities : [];
    const fields = {
      endpoint,
      capabilities,
      resolvedImage: image.resolvedRef,
      ...appliedRefsField(revision.status?.appliedImageConfigRefs, { applied: revisionRefs(image) }),
    };
    await this.writeStatus(revisionStatusOf(revision), conditions, fields, signal);
    return runtime.healthy === true;
  }

  private async setDesiredState(
    revision: FunctionRevision,
    state: 'Active' | 'Inactive',
    signal: AbortSignal,
  ): Promise<void> {
    await this.options.client.request('PATCH', `${REVISIONS}/${revision.metadata.name}`, {
      body: { spec: { desiredState: state } },
      contentType: CONTENT_TYPE.mergePatch,
      signal,
    });
    revision.spec.desiredState = state;
  }

  /** Deletes the oldest inactive revisions beyond `revisionHistoryLimit` (default 1; 0 keeps all), as upstream. */
  private async collectGarbage(fn: FunctionPackage, revisions: FunctionRevision[], signal: AbortSignal): Promise<void> {
    const limit = fn.spec?.revisionHistoryLimit ?? 1;
    if (limit === 0) return;
    const inactive = revisions
      .filter((r) => r.spec.desiredState !== 'Active')
      .sort((a, b) => a.spec.revision - b.spec.revision);
    const excess = revisions.length - (limit + 1);
    for (const revision of inactive.slice(0, Math.max(0, excess))) {
      await this.options.client
        .request('DELETE', `${REVISIONS}/${revision.metadata.name}`, { signal })
        .catch((err: unknown) => {
          if (!isNotFound(err))
            throw new Error(`cannot garbage collect old package revision "${revision.metadata.name}"`, { cause: err });
        });
    }
  }

  /** Merge-patches a status when the conditions set or the fields (null removes one) would change it. */
  private async writeStatus(
    { path, stored }: StatusTarget,
    updates: Condition[],
    fields: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<void> {
    const conditions = setConditions(stored?.conditions, updates, this.conditionTime());
    const same =
      sameConditions(stored?.conditions, conditions) &&
      Object.entries(fields).every(([k, v]) => JSON.stringify(stored?.[k]) === JSON.stringify(v));
    if (same) return;
    await this.options.client.request('PATCH', `${path}/status`, {
      body: { status: { ...fields, conditions } },
      contentType: CONTENT_TYPE.mergePatch,
      signal,
    });
  }

  /** Package conditions are written in whole seconds, as Crossplane's. */
  private conditionTime(): ConditionTime {
    const clock = this.options.clock ?? systemClock;
    return { now: () => dateOf(clock), precision: 'seconds' };
  }
}

/** What a revision takes from its Function's spec, as upstream's package reconciler copies it. */
function inheritedSpec(fn: FunctionPackage): Record<string, unknown> {
  const spec = fn.spec ?? {};
  const copied: Record<string, unknown> = { tlsServerSecretName: serverSecretName(fn.metadata.name) };
  for (const key of ['packagePullPolicy', 'packagePullSecrets', 'runtimeConfigRef', 'commonLabels'] as const) {
    if (spec[key] !== undefined) copied[key] = spec[key];
  }
  return copied;
}

function affectsRuntime(object: unknown): boolean {
  const config = object as ImageConfig;
  return affectsPulls(config) || config.spec?.runtime !== undefined;
}

/** A revision's applied ImageConfigs: the pull's, then the runtime's (upstream's runtime adds ConfigureRuntime). */
function revisionRefs(image: ImageResolution): ImageConfigRef[] {
  const runtime = image.runtimeConfig;
  return runtime === undefined
    ? image.applied
    : [...image.applied, { name: runtime.imageConfig, reason: IMAGE_CONFIG_REASON.runtime }];
}

/** What a Function's status says of the ImageConfigs used for its package. */
function resolvedFields(fn: FunctionPackage, image: ImageResolution): Record<string, unknown> {
  return { resolvedPackage: image.resolvedRef, ...appliedRefsField(fn.status?.appliedImageConfigRefs, image) };
}

/** A status as stored and where it is written. */
interface StatusTarget {
  path: string;
  stored: (Record<string, unknown> & { conditions?: Condition[] }) | undefined;
}

function statusOf(fn: FunctionPackage): StatusTarget {
  return { path: `${FUNCTIONS}/${fn.metadata.name}`, stored: fn.status };
}

function revisionStatusOf(revision: FunctionRevision): StatusTarget {
  return { path: `${REVISIONS}/${revision.metadata.name}`, stored: revision.status };
}
