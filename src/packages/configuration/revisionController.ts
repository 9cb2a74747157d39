// The ConfigurationRevision controller, as Crossplane v2.3's revision reconciler (internal/controller/pkg/revision):
// an Inactive revision that installed objects gives up their control and is done; otherwise the package is fetched,
// validated (its failure stops the install), linted (its failure is a Warning event only; objects of kinds a
// Configuration may not carry are left out), checked against the Crossplane version unless ignoreCrossplaneConstraints,
// and its objects established (establisher.ts). Every failure is the revision's RevisionHealthy, False with the
// message, and a Warning event; nothing installed is deleted. With a dependency manager and skipDependencyResolution
// false, an active revision records itself and its dependencies (dependsOn) in the Lock before establishing anything,
// and is not healthy until they are installed at valid versions; an inactive one removes itself from the Lock.
// ImageConfigs apply to the pull (pull.ts), the status says what they did (imageStatus.ts), and a change of an
// ImageConfig re-queues the revisions it matches.
// A kind with a runtime (a Provider) runs its hooks in the same pass (runtimeHooks.ts). A runtime not healthy yet is
// looked at again every runtimePollMs: Deployments are not watched.
import type { Logger } from 'pino';
import { errorMessage, type Clock } from '../../base/index.js';
import { ControllerShell, watchKind, type ControllerContext, type ControllerSettings } from '../../controller/index.js';
import { getIfExists, isConflict } from '../../kube/index.js';
import type { ReconcileResult } from '../../queue/index.js';
import type { Lifecycle } from '../../lifecycle/index.js';
import { IMAGE_CONFIG, imageConfigKeys, ImageConfigStore } from '../imageconfig/index.js';
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
import { revisionHealth } from './conditions.js';
import { ControlRefusedError, Establisher } from './establisher.js';
import { imageStatus, type ImageStatus } from './imageStatus.js';
import { CONFIGURATION_KIND, controllerNameOf, type PackageKindSpec } from './kind.js';
import { CROSSPLANE_VERSION } from './names.js';
import { handlePause } from './paused.js';
import { preparePull } from './pull.js';
import { ReportedError } from './reportedError.js';
import type { RevisionRuntime, WebhookTarget } from './runtime.js';
import { RuntimeHooks } from './runtimeHooks.js';
import { revisionStatusTarget, writeStatus } from './status.js';
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

export class ConfigurationRevisionController implements Lifecycle {
  readonly name: string;
  private readonly shell: ControllerShell;
  private readonly establisher: Establisher;
  private readonly logger: Logger;
  private readonly kind: PackageKindSpec;
  private readonly imageConfigs: ImageConfigStore;
  private readonly runtime: RuntimeHooks;

  constructor(private readonly options: ConfigurationRevisionControllerOptions) {
    this.kind = options.kind ?? CONFIGURATION_KIND;
    this.name = controllerNameOf(this.kind.revision);
    this.establisher = new Establisher(options);
    this.logger = options.logger.child({ controller: this.name });
    this.runtime = new RuntimeHooks({
      runtime: options.runtime,
      client: options.client,
      clock: options.clock,
      kind: this.kind,
      logger: this.logger,
      event: (rev, type, message) => {
        this.event(rev, type, REASON.sync, message);
      },
    });
    this.shell = new ControllerShell({
      ...options,
      name: this.name,
      workers: 1,
      watches: [
        watchKind({ kind: this.kind.revision }),
        watchKind({
          kind: IMAGE_CONFIG,
          keys: (event) =>
            imageConfigKeys(
              event,
              (this.shell.store(this.kind.revision)?.list() ?? []) as unknown as ConfigurationRevision[],
              (rev) => [rev.spec.image, rev.status?.resolvedImage],
            ),
        }),
      ],
      reconcile: (key, signal) => this.reconcile(key, signal),
      errors: { keyField: 'revision', level: 'warn', causes: true },
    });
    this.imageConfigs = new ImageConfigStore({ client: options.client, cache: () => this.shell.store(IMAGE_CONFIG) });
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
    // Deleted: the API server's garbage collector removes what only it owned; the revision leaves the Lock in
    // lock/departures.ts.
    if (rev === undefined || (await this.stopsHere(rev, path, signal))) return {};
    const self = ownerRefTo(this.kind, rev);
    if (rev.spec.desiredState !== 'Active' && (await this.deactivate(rev, self, signal))) return {};
    const prepared = await this.runtime.pre(rev, signal);
    const fetched = await this.fetch(rev, signal);
    if (fetched === undefined) return {};
    const { pkg, image } = fetched;
    const counts = await this.resolveDependencies(rev, pkg, image, signal);
    const refs = await this.install(rev, pkg, { self, image, webhook: prepared?.webhook }, signal);
    const runtime = await this.runtime.post(rev, signal, image.runtime);
    // capabilities: the metadata's, copied as upstream's revision reconciler does (omitempty: none is no field); the
    // RBAC roles of a safe-start provider read them.
    const fields = {
      objectRefs: refs,
      ...image.fields,
      ...capabilitiesField(rev, pkg),
      ...counts,
      ...prepared?.fields,
    };
    await this.healthy(rev, { ...image, fields }, signal, runtime);
    if (runtime === undefined || runtime.status === 'True') return {};
    return { requeueAfterMs: this.options.runtimePollMs ?? 5_000 };
  }

  /**
   * An inactive revision leaves the Lock, stops its runtime and gives up control of what it installed; true when that
   * is all there is to do (it installed something), false when its objects are still to be owned.
   */
  private async deactivate(rev: ConfigurationRevision, self: OwnerReference, signal: AbortSignal): Promise<boolean> {
    await this.leaveLock(rev, signal);
    await this.runtime.deactivate(rev, signal);
    if ((rev.status?.objectRefs?.length ?? 0) === 0) return false;
    await this.establisher.release(rev.status?.objectRefs ?? [], self, signal).catch((err: unknown) => {
      const message = `cannot deactivate package revision: ${errorMessage(err, { cause: true })}`;
      this.event(rev, 'Warning', REASON.deactivate, message);
      throw err;
    });
    await this.healthy(rev, undefined, signal);
    return true;
  }

  /** Deleted (the garbage collector removes what only it owned), paused, or just unpaused: nothing more to do now. */
  private async stopsHere(rev: ConfigurationRevision, path: string, signal: AbortSignal): Promise<boolean> {
    if (rev.metadata.deletionTimestamp !== undefined) return true;
    const event = (reason: string, message: string): void => {
      this.event(rev, 'Normal', reason, message);
    };
    return handlePause({ client: this.options.client, object: rev, path, event }, signal);
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
    image: ImageStatus,
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
    await this.fail(rev, REASON.dependencies, message, { signal, ...image, fields: { ...image.fields, ...counts } });
    throw new ReportedError(message);
  }

  /**
   * The package, valid for a Configuration, and what the ImageConfigs made of its pull; undefined when it is not
   * valid (reported, not retried: its digest is fixed).
   */
  private async fetch(
    rev: ConfigurationRevision,
    signal: AbortSignal,
  ): Promise<{ pkg: FetchedPackage; image: ImageStatus } | undefined> {
    let pkg: FetchedPackage;
    let image: ImageStatus;
    try {
      const deps = { ...this.options, imageConfigs: this.imageConfigs };
      const { resolution, options } = await preparePull(deps, rev.spec.image, rev.spec, signal);
      pkg = await this.options.packages.get(resolution.resolvedRef, options);
      image = imageStatus(rev, resolution);
    } catch (err) {
      await this.fail(rev, REASON.parse, `cannot get package: ${errorMessage(err, { cause: true })}`, { signal });
      throw new ReportedError(`cannot get package ${rev.spec.image}`, { cause: err });
    }
    // As upstream, what the ImageConfigs did is on the status from here on, failures included.
    const failed = (reason: string, message: string): Promise<undefined> =>
      this.fail(rev, reason, message, { signal, ...image }).then(() => undefined);
    const invalid = validatePackage(this.kind.meta, pkg);
    if (invalid !== undefined) return failed(REASON.validate, `${VALIDATION_FAILED}: ${invalid}`);
    const lint = lintPackage(this.kind.meta, pkg);
    if (lint !== undefined && rev.status?.conditions?.find((c) => c.type === 'RevisionHealthy')?.status !== 'True') {
      this.event(rev, 'Warning', REASON.lint, `${LINT_FAILED}: ${lint}`);
    }
    const meta = pkg.meta[0];
    const version = this.options.crossplaneVersion ?? CROSSPLANE_VERSION;
    const incompatible =
      meta && rev.spec.ignoreCrossplaneConstraints !== true ? checkCrossplaneVersion(meta, version) : undefined;
    if (incompatible !== undefined) return failed(REASON.lint, `${INCOMPATIBLE}: ${incompatible}`);
    return { pkg, image };
  }

  /** Establishes the package's objects; a refusal or failure is reported, then thrown to be retried with backoff. */
  private async install(
    rev: ConfigurationRevision,
    pkg: FetchedPackage,
    { self, image, webhook }: { self: OwnerReference; image: ImageStatus; webhook: WebhookTarget | undefined },
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
      await this.fail(rev, REASON.sync, message, { signal, ...image });
      throw new ReportedError(message, { cause: err });
    }
  }

  private async healthy(
    rev: ConfigurationRevision,
    image: ImageStatus | undefined,
    signal: AbortSignal,
    runtime?: Condition,
  ): Promise<void> {
    if (rev.status?.conditions?.find((c) => c.type === 'RevisionHealthy')?.status !== 'True') {
      this.event(rev, 'Normal', REASON.sync, 'Successfully reconciled package revision');
    }
    const conditions = [revisionHealth(), ...(image?.conditions ?? []), ...(runtime === undefined ? [] : [runtime])];
    await writeStatus(
      this.options,
      revisionStatusTarget(this.kind, rev),
      { conditions, ...(image ? { fields: image.fields } : {}) },
      signal,
    );
  }

  /** RevisionHealthy False with the message; a Warning event when that message is new. */
  private async fail(
    rev: ConfigurationRevision,
    reason: string,
    message: string,
    { signal, fields, conditions }: { signal: AbortSignal } & Partial<ImageStatus>,
  ): Promise<void> {
    const previous = rev.status?.conditions?.find((c) => c.type === 'RevisionHealthy');
    if (previous?.message !== message) this.event(rev, 'Warning', reason, message);
    const all = [revisionHealth(message), ...(conditions ?? []), ...this.runtime.whileUnhealthy(rev)];
    const updates = { conditions: all, ...(fields ? { fields } : {}) };
    await writeStatus(this.options, revisionStatusTarget(this.kind, rev), updates, signal).catch((err: unknown) => {
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

/** The metadata's capabilities as the status field; null removes a stale one, nothing is written for none. */
function capabilitiesField(rev: ConfigurationRevision, pkg: FetchedPackage): { capabilities?: string[] | null } {
  const declared = pkg.meta[0]?.spec?.capabilities;
  const capabilities = Array.isArray(declared) ? declared.filter((c): c is string => typeof c === 'string') : [];
  if (capabilities.length > 0) return { capabilities };
  const stored = (rev.status as { capabilities?: unknown } | undefined)?.capabilities;
  return stored === undefined ? {} : { capabilities: null };
}

function ownerRefTo(kind: PackageKindSpec, rev: ConfigurationRevision): OwnerReference {
  return { ...kind.revision, name: rev.metadata.name, uid: rev.metadata.uid ?? '' };
}
