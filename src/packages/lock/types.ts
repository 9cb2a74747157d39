// The pkg.crossplane.io/v1beta1 Lock as Crossplane v2.3 defines it (apis/pkg/v1beta1/lock.go): one cluster-scoped
// object, `lock`, where every active package revision that resolves dependencies records itself and what it depends on.
import type { ObjectMeta } from '../../apis/index.js';
import type { Condition } from '../types.js';

export type PackageType = 'Configuration' | 'Provider' | 'Function';

/** A dependency of a package in the lock. */
export interface Dependency {
  /** The OCI image name without a tag or digest. */
  package: string;
  type?: PackageType;
  /** The package object's apiVersion and kind, when the metadata names them instead of a type. */
  apiVersion?: string;
  kind?: string;
  /** A semver range or a digest. */
  constraints: string;
}

/**
 * A package in the lock: an active package revision. Crossplane v2 names its kind with `apiVersion` and `kind` (the
 * package's, not the revision's) and leaves `type` out; v1 wrote `type`. Read either with typeOf.
 */
export interface LockPackage {
  /** The package revision's name. */
  name: string;
  type?: PackageType;
  apiVersion?: string;
  kind?: string;
  /** The OCI image name without a tag or digest. */
  source: string;
  /** The tag or digest of the revision's image. */
  version: string;
  dependencies: Dependency[];
}

export interface Lock {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  packages?: LockPackage[];
  status?: { conditions?: Condition[] };
}

export const LOCK = { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'Lock' } as const;
export const LOCKS = '/apis/pkg.crossplane.io/v1beta1/locks';
/** The singleton's name (upstream's lockName). */
export const LOCK_NAME = 'lock';
