// The ConfigurationRevision controller, as Crossplane v2.3's revision reconciler (internal/controller/pkg/revision):
// an Inactive revision that installed objects gives up their control and is done; otherwise the package is fetched,
// validated (its failure stops the install), linted (its failure is a Warning event only; objects of kinds a
// Configuration may not carry are left out), checked against the Crossplane version unless ignoreCrossplaneConstraints,
// and its objects established (establisher.ts). Every failure is the revision's RevisionHealthy, False with the
// message, and a Warning event; nothing installed is deleted. With a dependency manager and skipDependencyResolution
// false, an active revision records itself and its dependencies (dependsOn) in the Lock before establishing anything,
// and is not healthy until they are installed at valid versions; an inactive one removes itself from the Lock.
// A kind with a runtime (a Provider) runs its hooks (runtime.ts) as upstream's package runtime controller does, in
// the same pass: pre before establishing (so webhooks point at its Service), post once the revision is healthy, its
// RuntimeHealthy written with RevisionHealthy, and deactivate for an inactive revision. A runtime not healthy yet is
// looked at again every runtimePollMs: Deployments are not watched.
import type { Logger } from 'pino';
import { errorMessage, type Clock } from '../../base/index.js';
import { ControllerShell, watchKind, type ControllerContext, type ControllerSettings } from '../../controller/index.js';
import { getIfExists, isConflict } from '../../kube/index.js';
import type { ReconcileResult } from '../../queue/index.js';
import type { Lifecycle } from '../../lifecycle/index.js';
import type { DependencyManager } from '../lock/manager.js';
import { LABEL_PARENT_PACKAGE } from '../names.js';
import {
  checkCrossplaneVersion,
  INCOMPATIBLE,
  LINT_FAILED,
  lintPackage,
  validatePackage,
  VALIDATION_FAILED,
  type FetchedPackage,
  type PackageClient,
} from '../xpkg/index.js';
import { health } from '../conditions.js';
import { revisionHealth } from './conditions.js';
import { ControlRefusedError, Establisher } from './establisher.js';
import { CONFIGURATION_KIND, controllerNameOf, type PackageKindSpec } from './kind.js';
import { CROSSPLANE_VERSION } from './names.js';
import { pullOptions } from './pull.js';
import type { PreparedRuntime, RevisionRuntime, WebhookTarget } from './runtime.js';
import { writeStatus } from './status.js';
import type { Condition } from '../types.js';
import type { ConfigurationRevision, ObjectRef, OwnerReference } from './types.js';

export interface ConfigurationRevisionControllerOptions extends ControllerContext {
  settings: ControllerSettings;
  /** Fetches packages through the OCI client and its cache (--xpkg-cache-dir). */
  packages: Pick<PackageClient, 'get'>;
  /** compositor's namespace: where packagePullSecrets are read. */
  namespace: string;
  /** The Crossplane version packages are checked against; CROSSPLANE_VERSION unless given. */
  crossplaneVersion?: string;
  clock?: Clock;
  /** The package kind whose revisions are reconciled; a Configuration unless given. */
  kind?: PackageKindSpec;
  /** The Lock's bookkeeping; without one every revision behaves as one with skipDependencyResolution true. */
  dependencies?: DependencyManager;
  /** The kind's runtime hooks; without them no runtime runs (a Provider's webhook-converted CRDs are refused). */
  runtime?: RevisionRuntime;
  /** Between looks at a runtime that is not healthy yet. Default 5s. */
  runtimePollMs?: number;
}

const REASON = {
  parse: 'ParsePackage',
  lint: 'LintPackage',
  validate: 'ValidatePackage',
  sync: 'SyncPackage',
  deactivate: 'DeactivateRevision',
  dependencies: 'ResolveDependencies',
} as const;

/** Upstream's runtime controller messages (internal/controller/pkg/runtime/reconciler.go). */
const RUNTIME = {
  pre: 'pre establish runtime hook failed for package',
  post: 'post establish runtime hook failed for package',
  waiting: 'Package revision is not healthy yet',
  configured: 'Successfully configured package revision',
} as const;

/** A failure already reported on the revision; the queue retries it with backoff. */
class ReportedError extends Error {
  override readonly name = 'ReportedError';
}

export class ConfigurationRevisionController implements Lifecycle {
  readonly name: string;
  private readonly shell: ControllerShell;
  private readonly establisher: Establisher;
  private readonly logger: Logger;
  private readonly kind: PackageKindSpec;

  constructor(private readonly options: ConfigurationRevisionControllerOptions) {
    this.kind = options.kind ?? CONFIGURATION_KIND;
    this.name = controllerNameOf(this.kind.revision);
    this.establisher = new Establisher(options);
    this.logger = options.logger.child({ controller: this.name });
    this.shell = new ControllerShell({
      ...options,
      name: this.name,
      workers: 1,
      watches: [watchKind({ kind: this.kind.revision })],
      reconcile: (key, signal) => this.reconcile(key, signal),
      errors: { keyField: 'revision', level: 'warn', causes: true },
    });
  }

  async start(signal?: AbortSignal): Promise<void> {
    await this.shell.start(signal);
  }

  async stop(deadline: AbortSignal): Promise<void> {
    await this.shell.stop(deadline);
  }

  /** Reconciles one revision, read fresh: the cache may not hold the controller's own last write yet. */
  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const path = `${this.kind.revisions}/${name}`;
    const rev = await getIfExists<ConfigurationRevision>(this.options.client, path, signal);
    // Deleted: the API server's garbage collector removes what only it owned; there is no lock to leave.
    if (rev === undefined || rev.metadata.deletionTimestamp !== undefined) return {};
    const self = ownerRefTo(this.kind, rev);
    if (rev.spec.desiredState !== 'Active' && (await this.deactivate(rev, self, signal))) return {};
    const prepared = await this.pre(rev, signal);
    const pkg = await this.fetch(rev, signal);
    if (pkg === undefined) return {};
    const counts = await this.resolveDependencies(rev, pkg, signal);
    const refs = await this.install(rev, pkg, { self, webhook: prepared?.webhook }, signal);
    const runtime = await this.post(rev, signal);
    // resolvedImage: the revision's field (upstream's ResolvedPackage is serialized so); resolvedPackage is the
    // package's, which the revision's schema would prune, so a write of it would never settle.
    const fields = { objectRefs: refs, resolvedImage: rev.spec.image, ...counts, ...prepared?.fields };
    await this.healthy(rev, fields, signal, runtime);
    if (runtime === undefined || runtime.status === 'True') return {};
    return { requeueAfterMs: this.options.runtimePollMs ?? 5_000 };
  }

  /** The runtime's pre hook for an active revision; a failure is its RuntimeHealthy, retried with backoff. */
  private async pre(rev: ConfigurationRevision, signal: AbortSignal): Promise<PreparedRuntime | undefined> {
    const runtime = this.options.runtime;
    if (runtime === undefined || rev.spec.desiredState !== 'Active') return undefined;
    try {
      return await runtime.pre(rev, signal);
    } catch (err) {
      const message = `${RUNTIME.pre}: ${errorMessage(err, { cause: true })}`;
      await this.failRuntime(rev, message, signal);
      throw new ReportedError(message, { cause: err });
    }
  }

  /**
   * The runtime's post hook once the revision's objects are established: RuntimeHealthy True, or False while the
   * Deployment is not available (upstream words that as a failed hook too). A failed write is retried with backoff.
   */
  private async post(rev: ConfigurationRevision, signal: AbortSignal): Promise<Condition | undefined> {
    const runtime = this.options.runtime;
    if (runtime === undefined || rev.spec.desiredState !== 'Active') return undefined;
    let result: Awaited<ReturnType<RevisionRuntime['post']>>;
    try {
      result = await runtime.post(rev, signal);
    } catch (err) {
      const message = `${RUNTIME.post}: ${errorMessage(err, { cause: true })}`;
      await this.failRuntime(rev, message, signal);
      throw new ReportedError(message, { cause: err });
    }
    const previous = rev.status?.conditions?.find((c) => c.type === 'RuntimeHealthy');
    if (result.healthy === true) {
      if (previous?.status !== 'True') this.event(rev, 'Normal', REASON.sync, RUNTIME.configured);
      return health('RuntimeHealthy', true);
    }
    const message = `${RUNTIME.post}: ${result.message ?? 'unknown'}`;
    if (previous?.message !== message) this.event(rev, 'Warning', REASON.sync, message);
    return health('RuntimeHealthy', false, message);
  }

  /** RuntimeHealthy False with why, and a Warning event when that is new. */
  private async failRuntime(rev: ConfigurationRevision, message: string, signal: AbortSignal): Promise<void> {
    const previous = rev.status?.conditions?.find((c) => c.type === 'RuntimeHealthy');
    if (previous?.message !== message) this.event(rev, 'Warning', REASON.sync, message);
    await writeStatus(
      this.options,
      statusOf(this.kind, rev),
      { conditions: [health('RuntimeHealthy', false, message)] },
      signal,
    ).catch((err: unknown) => {
      this.logger.debug(
        { revision: rev.metadata.name, err: errorMessage(err) },
        'cannot update package revision status',
      );
    });
  }

  /**
   * An inactive revision leaves the Lock, stops its runtime and gives up control of what it installed; true when that
   * is all there is to do (it installed something), false when its objects are still to be owned.
   */
  private async deactivate(rev: ConfigurationRevision, self: OwnerReference, signal: AbortSignal): Promise<boolean> {
    await this.leaveLock(rev, signal);
    await this.options.runtime?.deactivate(rev, signal);
    if ((rev.status?.objectRefs?.length ?? 0) === 0) return false;
    await this.establisher.release(rev.status?.objectRefs ?? [], self, signal).catch((err: unknown) => {
      const message = `cannot deactivate package revision: ${errorMessage(err, { cause: true })}`;
      this.event(rev, 'Warning', REASON.deactivate, message);
      throw err;
    });
    await this.healthy(rev, undefined, signal);
    return true;
  }

  /** Removes an inactive revision from the Lock, as upstream's deactivation does first. */
  private async leaveLock(rev: ConfigurationRevision, signal: AbortSignal): Promise<void> {
    await this.options.dependencies?.removeSelf(rev.metadata.name, signal).catch((err: unknown) => {
      const message = `cannot deactivate package revision: cannot remove package revision from Lock: ${errorMessage(err)}`;
      this.event(rev, 'Warning', REASON.deactivate, message);
      throw err;
    });
  }

  /**
   * Records the revision in the Lock and counts its dependencies, unless it skips dependency resolution (upstream
   * resolves only when skipDependencyResolution is set and false, which the CRD's default makes it). Missing or
   * invalid dependencies are reported, with the counts, and retried with backoff.
   */
  private async resolveDependencies(
    rev: ConfigurationRevision,
    pkg: FetchedPackage,
    signal: AbortSignal,
  ): Promise<Record<string, number | null>> {
    const manager = this.options.dependencies;
    const meta = pkg.meta[0];
    // An inactive revision left the Lock above, as upstream's Resolve does for one.
    if (manager === undefined || meta === undefined || rev.spec.desiredState !== 'Active') return {};
    if (rev.spec.skipDependencyResolution !== false) return {};
    let problem: string | undefined;
    let counts: Record<string, number | null> = {};
    try {
      const resolved = await manager.resolve(
        { name: rev.metadata.name, type: this.kind.meta, image: rev.spec.image },
        meta,
        signal,
      );
      problem = resolved.problem;
      counts = countFields(rev, resolved);
    } catch (err) {
      // Another writer updated the Lock first: retried, not reported, as upstream requeues on a conflict.
      if (isConflict(err)) throw err;
      problem = errorMessage(err, { cause: true });
    }
    if (problem === undefined) return counts;
    const message = `cannot resolve package dependencies: ${problem}`;
    await this.fail(rev, REASON.dependencies, message, { signal, fields: counts });
    throw new ReportedError(message);
  }

  /** The package, valid for a Configuration; undefined when it is not (reported, not retried: its digest is fixed). */
  private async fetch(rev: ConfigurationRevision, signal: AbortSignal): Promise<FetchedPackage | undefined> {
    let pkg: FetchedPackage;
    try {
      const options = await pullOptions(this.options.client, this.options.namespace, rev.spec, signal);
      pkg = await this.options.packages.get(rev.spec.image, options);
    } catch (err) {
      await this.fail(rev, REASON.parse, `cannot get package: ${errorMessage(err, { cause: true })}`, { signal });
      throw new ReportedError(`cannot get package ${rev.spec.image}`, { cause: err });
    }
    const invalid = validatePackage(this.kind.meta, pkg);
    if (invalid !== undefined) {
      await this.fail(rev, REASON.validate, `${VALIDATION_FAILED}: ${invalid}`, { signal });
      return undefined;
    }
    const lint = lintPackage(this.kind.meta, pkg);
    if (lint !== undefined && rev.status?.conditions?.find((c) => c.type === 'RevisionHealthy')?.status !== 'True') {
      this.event(rev, 'Warning', REASON.lint, `${LINT_FAILED}: ${lint}`);
    }
    const meta = pkg.meta[0];
    const version = this.options.crossplaneVersion ?? CROSSPLANE_VERSION;
    const incompatible =
      meta && rev.spec.ignoreCrossplaneConstraints !== true ? checkCrossplaneVersion(meta, version) : undefined;
    if (incompatible !== undefined) {
      await this.fail(rev, REASON.lint, `${INCOMPATIBLE}: ${incompatible}`, { signal });
      return undefined;
    }
    return pkg;
  }

  /** Establishes the package's objects; a refusal or failure is reported, then thrown to be retried with backoff. */
  private async install(
    rev: ConfigurationRevision,
    pkg: FetchedPackage,
    { self, webhook }: { self: OwnerReference; webhook: WebhookTarget | undefined },
    signal: AbortSignal,
  ): Promise<ObjectRef[]> {
    const parent = rev.metadata.labels?.[LABEL_PARENT_PACKAGE];
    const owningPackage = rev.metadata.ownerReferences?.find((r) => r.name === parent);
    try {
      return await this.establisher.establish(
        {
          objects: this.kind.objects?.(pkg, webhook) ?? pkg.objects,
          kinds: this.kind.establishes,
          revision: self,
          owningPackage,
          control: rev.spec.desiredState === 'Active',
          ...(rev.spec.commonLabels ? { commonLabels: rev.spec.commonLabels } : {}),
          ...(rev.spec.commonAnnotations ? { commonAnnotations: rev.spec.commonAnnotations } : {}),
        },
        signal,
      );
    } catch (err) {
      const message = `cannot establish control of object: ${errorMessage(err, { cause: !(err instanceof ControlRefusedError) })}`;
      await this.fail(rev, REASON.sync, message, { signal });
      throw new ReportedError(message, { cause: err });
    }
  }

  private async healthy(
    rev: ConfigurationRevision,
    fields: Record<string, unknown> | undefined,
    signal: AbortSignal,
    runtime?: Condition,
  ): Promise<void> {
    if (rev.status?.conditions?.find((c) => c.type === 'RevisionHealthy')?.status !== 'True') {
      this.event(rev, 'Normal', REASON.sync, 'Successfully reconciled package revision');
    }
    const conditions = runtime === undefined ? [revisionHealth()] : [revisionHealth(), runtime];
    await writeStatus(this.options, statusOf(this.kind, rev), { conditions, ...(fields ? { fields } : {}) }, signal);
  }

  /** RevisionHealthy False with the message; a Warning event when that message is new. */
  private async fail(
    rev: ConfigurationRevision,
    reason: string,
    message: string,
    { signal, fields }: { signal: AbortSignal; fields?: Record<string, unknown> },
  ): Promise<void> {
    const previous = rev.status?.conditions?.find((c) => c.type === 'RevisionHealthy');
    if (previous?.message !== message) this.event(rev, 'Warning', reason, message);
    const conditions = [revisionHealth(message)];
    // As upstream's runtime controller, which runs nothing for a revision that is not healthy.
    if (this.options.runtime !== undefined && rev.spec.desiredState === 'Active') {
      conditions.push(health('RuntimeHealthy', false, RUNTIME.waiting));
    }
    const updates = { conditions, ...(fields ? { fields } : {}) };
    await writeStatus(this.options, statusOf(this.kind, rev), updates, signal).catch((err: unknown) => {
      this.logger.debug(
        { revision: rev.metadata.name, err: errorMessage(err) },
        'cannot update package revision status',
      );
    });
  }

  private event(rev: ConfigurationRevision, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.options.events.event({ ...this.kind.revision, metadata: rev.metadata }, { type, reason, message });
  }
}

/**
 * The dependency counts as status fields. Upstream's are omitempty: a zero is not written, and one written before is
 * removed (null in the merge patch), so a revision Crossplane's package manager wrote is left as it is.
 */
function countFields(
  rev: ConfigurationRevision,
  counts: { found: number; installed: number; invalid: number },
): Record<string, number | null> {
  const fields: Record<string, number | null> = {};
  const values = {
    foundDependencies: counts.found,
    installedDependencies: counts.installed,
    invalidDependencies: counts.invalid,
  };
  for (const [key, value] of Object.entries(values)) {
    if (value !== 0) fields[key] = value;
    else if (rev.status?.[key as keyof typeof values] !== undefined) fields[key] = null;
  }
  return fields;
}

function ownerRefTo(kind: PackageKindSpec, rev: ConfigurationRevision): OwnerReference {
  return { ...kind.revision, name: rev.metadata.name, uid: rev.metadata.uid ?? '' };
}

function statusOf(
  kind: PackageKindSpec,
  rev: ConfigurationRevision,
): {
  path: string;
  stored: ConfigurationRevision['status'] & Record<string, unknown>;
} {
  return {
    path: `${kind.revisions}/${rev.metadata.name}`,
    stored: rev.status as ConfigurationRevision['status'] & Record<string, unknown>,
  };
}
