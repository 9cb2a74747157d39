// The Lock's resolver, as Crossplane v2.3's (internal/controller/pkg/resolver): on every change of the Lock, the first
// dependency no package in it provides is installed by creating its package object (a Function, a Configuration, or a
// Provider with --enable-providers) at the highest registry tag satisfying every constraint on it, or at the digest a
// constraint names. The Lock is never written here but for its Resolved condition: the new package's revision adds
// itself, which brings the resolver back for the next missing dependency. With --enable-dependency-version-upgrades,
// a dependency already installed as a package object, whether missing from the Lock or at a version breaking a
// constraint on it, has its spec.package moved to a version satisfying every constraint instead (upgrade.ts).
import type { Logger } from 'pino';
import { errorMessage, type Clock } from '../../base/index.js';
import { ControllerShell, watchKind, type ControllerContext, type ControllerSettings } from '../../controller/index.js';
import { CONTENT_TYPE, getIfExists, isAlreadyExists, isNotFound, removeFinalizerPatch } from '../../kube/index.js';
import type { Lifecycle } from '../../lifecycle/index.js';
import type { ReconcileResult } from '../../queue/index.js';
import { writeStatus } from '../configuration/status.js';
import { IMAGE_CONFIG, type ImageConfig } from '../imageconfig/index.js';
import { parseReference } from '../oci/index.js';
import type { Condition } from '../types.js';
import { typeOf } from './dependencies.js';
import { findInstalled, movePackage, PACKAGE_KINDS, type InstalledPackage, type PackageKind } from './installed.js';
import { nextStep, packageNameOf, type ResolveStep } from './resolve.js';
import { LOCK, LOCK_NAME, LOCKS, type Dependency, type Lock, type LockPackage } from './types.js';
import { chooseUpgrade, noValidVersion, pinnedDigest } from './upgrade.js';
import { chooseTag, wantedOf } from './version.js';

export interface LockResolverOptions extends ControllerContext {
  settings: ControllerSettings;
  /**
   * Lists a package source's tags (the OCI client's tags-list), given the Lock's packages that depend on it, whose
   * revisions' pull secrets it may use (credentials.ts).
   */
  tags: (source: string, parents: readonly LockPackage[], signal: AbortSignal) => Promise<string[]>;
  /** Whether Provider dependencies are installed (--enable-providers). */
  providers: boolean;
  /** Whether installed dependencies move to versions satisfying their constraints (--enable-dependency-version-upgrades). */
  upgrades?: boolean;
  /** Whether such a move may go to a lower version (--enable-dependency-version-downgrades); only with upgrades. */
  downgrades?: boolean;
  clock?: Clock;
}

/** Upstream's Lock finalizer. */
export const LOCK_FINALIZER = 'lock.pkg.crossplane.io';

/** Why a Provider dependency stays missing while compositor does not install Providers. */
export const PROVIDERS_DISABLED =
  'cannot create dependency package: Providers are not installed by compositor unless --enable-providers is set';

/** The Lock's condition, as upstream's (apis/pkg/v1beta1/conditions.go). */
export function resolvedCondition(problem?: string): Condition {
  return problem === undefined
    ? { type: 'Resolved', status: 'True', reason: 'DependencyResolutionSucceeded' }
    : {
        type: 'Resolved',
        status: 'False',
        reason: 'DependencyResolutionFailed',
        message: `Error occurred during dependency resolution ${problem}`,
      };
}

export class LockResolver implements Lifecycle {
  readonly name = 'packages/lock.pkg.crossplane.io';
  private readonly shell: ControllerShell;
  private readonly logger: Logger;

  constructor(private readonly options: LockResolverOptions) {
    this.logger = options.logger.child({ controller: this.name });
    this.shell = new ControllerShell({
      ...options,
      name: this.name,
      workers: 1,
      watches: [
        watchKind({ kind: LOCK }),
        // As upstream: a pull secret may now let a missing dependency's tags be listed.
        watchKind({
          kind: IMAGE_CONFIG,
          keys: (event) => (event.type !== 'resync' && givesPullSecret(event.object) ? [LOCK_NAME] : []),
        }),
      ],
      reconcile: (key, signal) => this.reconcile(key, signal),
      errors: { keyField: 'lock', level: 'warn', causes: true },
    });
  }

  async start(signal?: AbortSignal): Promise<void> {
    await this.shell.start(signal);
  }

  async stop(deadline: AbortSignal): Promise<void> {
    await this.shell.stop(deadline);
  }

  /** Reconciles the Lock, read fresh; a failure to install is on its Resolved condition and retried with backoff. */
  async reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    if (name !== LOCK_NAME) return {};
    const lock = await getIfExists<Lock>(this.options.client, `${LOCKS}/${name}`, signal);
    if (lock === undefined) return {};
    if ((lock.packages ?? []).length === 0) {
      await this.releaseFinalizer(lock, signal);
      return {};
    }
    if (lock.metadata.deletionTimestamp !== undefined) return {};
    const step = nextStep(lock.packages ?? [], {
      providers: this.options.providers,
      upgrades: this.options.upgrades === true,
    });
    const { problem, retry } = await this.act(lock, step, signal);
    await writeStatus(
      this.options,
      { path: `${LOCKS}/${name}`, stored: lock.status },
      { conditions: [resolvedCondition(problem)] },
      signal,
    );
    // An install that failed is retried with backoff; the graph's own problems wait for the Lock to change.
    if (retry) throw new Error(`cannot install dependency: ${problem ?? ''}`);
    return {};
  }

  /**
   * An empty Lock loses upstream's finalizer (`lock.pkg.crossplane.io`, on the Lock Crossplane's resolver made), as
   * upstream's resolver removes it then, so deleting the Lock after every package finishes. compositor adds none.
   */
  private async releaseFinalizer(lock: Lock, signal: AbortSignal): Promise<void> {
    const patch = removeFinalizerPatch(lock.metadata.finalizers, LOCK_FINALIZER);
    if (patch === undefined) return;
    await this.options.client
      .request('PATCH', `${LOCKS}/${lock.metadata.name}`, { body: patch, contentType: CONTENT_TYPE.jsonPatch, signal })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw new Error(`cannot remove lock finalizer: ${errorMessage(err)}`, { cause: err });
      });
  }

  /** Does what the step says; the problem to report, if any, and whether to retry. */
  private async act(
    lock: Lock,
    step: ResolveStep,
    signal: AbortSignal,
  ): Promise<{ problem?: string; retry?: boolean }> {
    switch (step.kind) {
      case 'resolved':
        return {};
      case 'failed':
        return { problem: step.message };
      case 'skipped':
        return { problem: this.skipped(lock, step.skipped) };
      case 'install': {
        const problem = await this.install(lock, step.dependency, step.constraints, signal);
        if (problem !== undefined) return { problem, retry: true };
        return step.skipped.length > 0 ? { problem: this.skipped(lock, step.skipped) } : {};
      }
    }
  }

  private skipped(lock: Lock, sources: readonly string[]): string {
    const message = `${PROVIDERS_DISABLED}: [${sources.join(' ')}]`;
    if (lock.status?.conditions?.find((c) => c.type === 'Resolved')?.message !== resolvedCondition(message).message) {
      this.event(lock, 'Warning', message);
    }
    return message;
  }

  /** Creates the dependency's package object; the problem when it cannot. */
  private async install(
    lock: Lock,
    dep: Dependency,
    constraints: readonly string[],
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const type = typeOf(dep);
    if (type === undefined) {
      return 'cannot construct dependency package: encountered an invalid dependency: package dependencies must specify either a valid type, or an explicit apiVersion, kind, and package';
    }
    const parents = (lock.packages ?? []).filter((p) => p.dependencies.some((d) => d.package === dep.package));
    const kind = PACKAGE_KINDS[type];
    if (this.options.upgrades === true) {
      let installed: InstalledPackage | undefined;
      try {
        installed = await findInstalled(this.options.client, kind, dep.package, signal);
      } catch (err) {
        return errorMessage(err);
      }
      if (installed !== undefined) return this.upgrade(lock, { dep, kind, constraints, parents }, installed, signal);
    }
    const version = await this.versionOf(dep, constraints, parents, signal);
    if (version.problem !== undefined) return version.problem;
    const separator = version.value.startsWith('sha256:') ? '@' : ':';
    let repository: string;
    try {
      repository = parseReference(`${dep.package}${separator}${version.value}`).repository;
    } catch (err) {
      return `dependency package is not valid: ${errorMessage(err)}`;
    }
    const object = {
      apiVersion: kind.apiVersion,
      kind: kind.kind,
      metadata: { name: packageNameOf(repository) },
      spec: { package: `${dep.package}${separator}${version.value}` },
    };
    try {
      await this.options.client.request('POST', kind.path, { body: object, signal });
      this.event(
        lock,
        'Normal',
        `Installed dependency ${kind.kind} "${object.metadata.name}" at ${object.spec.package}`,
      );
    } catch (err) {
      if (!isAlreadyExists(err)) return `cannot create dependency package: ${errorMessage(err)}`;
    }
    return undefined;
  }

  private async versionOf(
    dep: Dependency,
    constraints: readonly string[],
    parents: readonly LockPackage[],
    signal: AbortSignal,
  ): Promise<{ value: string; problem?: undefined } | { problem: string }> {
    const wanted = wantedOf(constraints);
    if ('problem' in wanted) return { problem: `cannot find dependency version to install: ${wanted.problem}` };
    if ('digest' in wanted) return { value: wanted.digest };
    let tags: string[];
    try {
      tags = await this.options.tags(dep.package, parents, signal);
    } catch (err) {
      return {
        problem: `cannot find dependency version to install: cannot fetch dependency package tags: ${errorMessage(err)}`,
      };
    }
    const tag = chooseTag(tags, wanted.ranges);
    if (tag !== undefined) return { value: tag };
    const shown = constraints.length === 1 ? (constraints[0] ?? '') : `[${constraints.join(' ')}]`;
    return { problem: noValidVersion(dep.package, shown) };
  }

  /**
   * Moves an installed dependency's spec.package to the version its constraints ask for (upstream's update path);
   * nothing when it names that already, as when its new revision is not in the Lock yet. The problem when it cannot.
   */
  private async upgrade(
    lock: Lock,
    wanted: { dep: Dependency; kind: PackageKind; constraints: readonly string[]; parents: readonly LockPackage[] },
    installed: InstalledPackage,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const target = await this.upgradeTarget(wanted, installed.version, signal);
    if ('problem' in target) return `cannot find dependency version to upgrade: ${target.problem}`;
    const separator = target.version.startsWith('sha256:') ? '@' : ':';
    const pkg = `${wanted.dep.package}${separator}${target.version}`;
    if (installed.package === pkg) return undefined;
    try {
      await movePackage(this.options.client, { kind: wanted.kind, installed, package: pkg }, signal);
    } catch (err) {
      return `cannot update dependency package: ${errorMessage(err)}`;
    }
    this.event(
      lock,
      'Normal',
      `Updated dependency ${wanted.kind.kind} "${installed.name}" from ${installed.package} to ${pkg}`,
    );
    return undefined;
  }

  /** The digest every constraint pins, else the tag chooseUpgrade picks from the registry's. */
  private async upgradeTarget(
    wanted: { dep: Dependency; constraints: readonly string[]; parents: readonly LockPackage[] },
    installed: string,
    signal: AbortSignal,
  ): Promise<{ version: string } | { problem: string }> {
    const pinned = pinnedDigest(wanted.constraints);
    if ('problem' in pinned) return pinned;
    if (pinned.digest !== undefined) return { version: pinned.digest };
    let tags: string[];
    try {
      tags = await this.options.tags(wanted.dep.package, wanted.parents, signal);
    } catch (err) {
      return { problem: `cannot fetch dependency package tags: ${errorMessage(err)}` };
    }
    return chooseUpgrade(tags, {
      source: wanted.dep.package,
      installed,
      constraints: wanted.constraints,
      downgrades: this.options.downgrades === true,
    });
  }

  private event(lock: Lock, type: 'Normal' | 'Warning', message: string): void {
    this.logger.debug({ message }, 'lock resolver');
    this.options.events.event({ ...LOCK, metadata: lock.metadata }, { type, reason: 'ResolveDependencies', message });
  }
}

function givesPullSecret(object: unknown): boolean {
  return ((object as ImageConfig).spec?.registry?.authentication?.pullSecretRef?.name ?? '') !== '';
}
