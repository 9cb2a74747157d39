// The revision side of the Lock, as Crossplane v2.3's PackageDependencyManager.Resolve decides it: a revision not in
// the Lock adds itself and counts its direct dependencies present; one already there has its whole dependency tree
// traced, every dependency of it missing from the Lock counted out, then each direct dependency's version checked
// against its constraint. A revision there at another version (its package moved to a tag of the same image, so no new
// revision was made) has its version brought up to date first, as upstream's, so dependants see the version it now
// is. The messages are upstream's; the revision controller prefixes them with "cannot resolve package dependencies: ".
import { parseConstraint, parseVersion } from '../xpkg/index.js';
import type { LockPackage } from './types.js';

export interface DependencyCounts {
  found: number;
  installed: number;
  invalid: number;
  /** Why the revision is not healthy yet; none when every dependency is installed at a valid version. */
  problem?: string;
}

export interface LockCheck extends DependencyCounts {
  /**
   * The Lock's packages with the revision added when it was not there, or with its version updated: to be written
   * before anything else.
   */
  packages?: LockPackage[];
}

const DIGEST = /^sha256:[a-f0-9]{64}$/;

/** Decides what a revision's pass does with the Lock's packages. */
export function checkLock(packages: readonly LockPackage[], self: LockPackage): LockCheck {
  const bySource = new Map(packages.map((p) => [p.source, p]));
  const found = self.dependencies.length;
  if (!packages.some((p) => p.name === self.name)) {
    // As upstream: a dependency another package names counts as present in the graph too, so the first pass can
    // report it installed; the next pass's trace finds it missing.
    const known = new Set([...bySource.keys(), ...packages.flatMap((p) => p.dependencies.map((d) => d.package))]);
    const missing = self.dependencies.map((d) => d.package).filter((source) => !known.has(source));
    const installed = found - missing.length;
    const added = [...packages, self];
    if (missing.length > 0) return { found, installed, invalid: 0, problem: missingMessage(missing), packages: added };
    return { ...checkTree(new Map([...bySource, [self.source, self]]), self), packages: added };
  }
  const listed = packages.find((p) => p.name === self.name);
  if (listed !== undefined && listed.version !== self.version) {
    const updated = packages.map((p) => (p === listed ? { ...p, version: self.version } : p));
    return { ...checkTree(new Map(updated.map((p) => [p.source, p])), self), packages: updated };
  }
  return checkTree(bySource, self);
}

function checkTree(bySource: ReadonlyMap<string, LockPackage>, self: LockPackage): DependencyCounts {
  const tree = new Set<string>();
  const visit = (pkg: LockPackage | undefined): void => {
    for (const dep of pkg?.dependencies ?? []) {
      if (tree.has(dep.package)) continue;
      tree.add(dep.package);
      visit(bySource.get(dep.package));
    }
  };
  visit(self);
  const found = tree.size;
  const missing = [...tree].filter((source) => !bySource.has(source));
  if (missing.length > 0) {
    return { found, installed: found - missing.length, invalid: 0, problem: missingMessage(missing) };
  }
  const invalid: string[] = [];
  for (const dep of self.dependencies) {
    const installed = bySource.get(dep.package);
    if (installed === undefined) continue;
    const problem = versionProblem(dep.constraints, installed.version);
    if (problem !== undefined) return { found, installed: found, invalid: 0, problem };
    if (satisfies(dep.constraints, installed.version)) continue;
    const existing = `existing package ${installed.source}@${installed.version}`;
    const constraint = dep.constraints.trim();
    invalid.push(constraint === '' ? existing : `${existing} is incompatible with constraint ${constraint}`);
  }
  return {
    found,
    installed: found,
    invalid: invalid.length,
    ...(invalid.length > 0 ? { problem: `incompatible dependencies: ${invalid.join('; ')}` } : {}),
  };
}

/** An unreadable constraint or installed version stops the check, as upstream's parse errors do. */
function versionProblem(constraints: string, version: string): string | undefined {
  if (DIGEST.test(constraints)) return undefined;
  if (parseConstraint(constraints) === undefined) return `improper constraint: ${constraints}`;
  // Masterminds' ErrInvalidSemVer, for an installed digest too: a semver constraint cannot check one.
  return DIGEST.test(version) || parseVersion(version) === undefined ? 'Invalid Semantic Version' : undefined;
}

/** Whether an installed tag or digest satisfies a semver range or a digest constraint. */
export function satisfies(constraints: string, version: string): boolean {
  if (DIGEST.test(constraints) || DIGEST.test(version)) return constraints === version;
  const constraint = parseConstraint(constraints);
  const parsed = parseVersion(version);
  return constraint !== undefined && parsed !== undefined && constraint.check(parsed);
}

function missingMessage(missing: readonly string[]): string {
  return `missing dependencies: [${missing.join(' ')}]`;
}
