// lock: package dependencies as Crossplane's package manager resolves them. Active package revisions record themselves
// and their dependencies in the singleton pkg.crossplane.io/v1beta1 Lock (manager.ts, decided in check.ts); the
// resolver installs what the Lock's packages depend on and no package provides (resolverController.ts), and with
// upgrades moves an installed dependency to a version satisfying its constraints (upgrade.ts, installed.ts).
export { checkLock, satisfies, type DependencyCounts, type LockCheck } from './check.js';
export { dependenciesOf, typeOf } from './dependencies.js';
export { REVISION_FINALIZER, RevisionDepartures, type RevisionDeparturesOptions } from './departures.js';
export { LockManager, lockPackageOf, type DependencyManager, type RevisionInLock } from './manager.js';
export { nextStep, packageNameOf, type ResolveOptions, type ResolveStep } from './resolve.js';
export {
  LOCK_FINALIZER,
  LockResolver,
  PROVIDERS_DISABLED,
  resolvedCondition,
  type LockResolverOptions,
} from './resolverController.js';
export {
  chooseUpgrade,
  keepsConstraint,
  noValidVersion,
  pinnedDigest,
  pruneOutdated,
  type UpgradeQuestion,
} from './upgrade.js';
export { chooseTag, wantedOf, type Wanted } from './version.js';
export * from './types.js';
