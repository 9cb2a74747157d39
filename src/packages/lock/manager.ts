// The revision side's reads and writes of the Lock (upstream's PackageDependencyManager): the singleton is created
// when missing, a revision not in it is added with one update carrying the resourceVersion read (a conflict is thrown
// and the revision's pass retried), and an inactive revision removes itself. What to write is decided in check.ts.
import { getIfExists, isAlreadyExists, type KubeClient } from '../../kube/index.js';
import { packageSource, parseReference } from '../oci/index.js';
import type { PackageMeta } from '../xpkg/index.js';
import { checkLock, type DependencyCounts } from './check.js';
import { dependenciesOf, typeOf } from './dependencies.js';
import { LOCK, LOCK_NAME, LOCKS, type Lock, type LockPackage, type PackageType } from './types.js';

/** What a package revision needs of the Lock. */
export interface DependencyManager {
  /** Records the revision in the Lock and counts its dependencies; `problem` says why it is not healthy yet. */
  resolve(revision: RevisionInLock, meta: PackageMeta, signal: AbortSignal): Promise<DependencyCounts>;
  /**
   * Removes the revision from the Lock; nothing when it is not there or there is no Lock. With a type, only an entry of
   * that type: revisions of different kinds may share a name.
   */
  removeSelf(name: string, signal: AbortSignal, type?: PackageType): Promise<void>;
}

export interface RevisionInLock {
  name: string;
  type: PackageType;
  /** The revision's spec.image. */
  image: string;
}

export class LockManager implements DependencyManager {
  constructor(private readonly client: KubeClient) {}

  async resolve(revision: RevisionInLock, meta: PackageMeta, signal: AbortSignal): Promise<DependencyCounts> {
    const self = lockPackageOf(revision, meta);
    const lock = await this.getOrCreate(signal);
    const { packages, ...counts } = checkLock(lock.packages ?? [], self);
    if (packages !== undefined) {
      await this.client.request('PUT', `${LOCKS}/${LOCK_NAME}`, { body: { ...lock, packages }, signal });
    }
    return counts;
  }

  /** Records a revision whose package's dependencies are not read (a Function's): it is listed without any. */
  async record(revision: RevisionInLock, signal: AbortSignal): Promise<void> {
    const meta: PackageMeta = { apiVersion: 'meta.pkg.crossplane.io/v1', kind: 'Function', spec: {} };
    await this.resolve(revision, meta, signal);
  }

  /**
   * Records a package no revision of compositor's runs (a Function a built-in serves) under `revision.name`, unless the
   * Lock lists its source already under another name: a revision Crossplane's package manager recorded stands for it
   * as it is. Listed under its own name, its version follows the package's (a dependency upgrade moves it).
   */
  async recordUnlessListed(revision: RevisionInLock, signal: AbortSignal): Promise<void> {
    const lock = await getIfExists<Lock>(this.client, `${LOCKS}/${LOCK_NAME}`, signal);
    const source = packageSource(parseReference(revision.image));
    const byOther = (p: LockPackage): boolean =>
      p.source === source && typeOf(p) === revision.type && p.name !== revision.name;
    if ((lock?.packages ?? []).some(byOther)) return;
    await this.record(revision, signal);
  }

  async removeSelf(name: string, signal: AbortSignal, type?: PackageType): Promise<void> {
    const lock = await getIfExists<Lock>(this.client, `${LOCKS}/${LOCK_NAME}`, signal);
    const packages = lock?.packages ?? [];
    const isSelf = (p: LockPackage): boolean => p.name === name && (type === undefined || typeOf(p) === type);
    if (lock === undefined || !packages.some(isSelf)) return;
    const kept = packages.filter((p) => !isSelf(p));
    await this.client.request('PUT', `${LOCKS}/${LOCK_NAME}`, { body: { ...lock, packages: kept }, signal });
  }

  private async getOrCreate(signal: AbortSignal): Promise<Lock> {
    const path = `${LOCKS}/${LOCK_NAME}`;
    const existing = await getIfExists<Lock>(this.client, path, signal);
    if (existing !== undefined) return existing;
    try {
      return await this.client.request<Lock>('POST', LOCKS, {
        body: { ...LOCK, metadata: { name: LOCK_NAME } },
        signal,
      });
    } catch (err) {
      if (!isAlreadyExists(err)) throw new Error('cannot get or create lock', { cause: err });
      return this.client.request<Lock>('GET', path, { signal });
    }
  }
}

/**
 * The revision as a Lock package, as Crossplane v2.3 writes it (internal/controller/pkg/revision/dependency.go): its
 * package kind as apiVersion and kind, its source without tag or digest, the tag or digest as its version.
 */
export function lockPackageOf(revision: RevisionInLock, meta: PackageMeta): LockPackage {
  const ref = parseReference(revision.image);
  return {
    name: revision.name,
    apiVersion: 'pkg.crossplane.io/v1',
    kind: revision.type,
    source: packageSource(ref),
    version: ref.digest ?? ref.tag ?? '',
    dependencies: dependenciesOf(meta),
  };
}
