// The resolver's decision on the Lock's packages, as Crossplane v2.3's resolver (internal/controller/pkg/resolver)
// makes it: two packages of one source or a cycle stop everything; otherwise the first dependency no package in the
// Lock provides (an implied node) is the one to install next. Providers are skipped while compositor does not install
// them (--enable-providers off): the next installable dependency is chosen, and the skipped one reported. With
// upgrades (--enable-dependency-version-upgrades), as upstream's upgrading graph: outdated dependencies are pruned
// first, and an installed dependency whose version breaks a constraint on it is implied too, to be upgraded.
import { typeOf } from './dependencies.js';
import type { Dependency, LockPackage } from './types.js';
import { keepsConstraint, pruneOutdated } from './upgrade.js';

export type ResolveStep =
  | { kind: 'resolved' }
  | { kind: 'failed'; message: string }
  /**
   * Install `dependency`, whose packages in the Lock put `constraints` on it; `skipped` are Providers left alone. With
   * upgrades, an installed package of the dependency's source is moved to a version satisfying them instead.
   */
  | { kind: 'install'; dependency: Dependency; constraints: string[]; skipped: string[] }
  | { kind: 'skipped'; skipped: string[] };

export interface ResolveOptions {
  /** Whether Provider dependencies may be installed (--enable-providers). */
  providers: boolean;
  /** Whether installed dependencies move to versions satisfying their constraints (--enable-dependency-version-upgrades). */
  upgrades?: boolean;
}

export function nextStep(all: readonly LockPackage[], options: ResolveOptions): ResolveStep {
  const packages = options.upgrades === true ? pruneOutdated(all) : all;
  const bySource = new Map<string, LockPackage>();
  for (const pkg of packages) {
    if (bySource.has(pkg.source))
      return { kind: 'failed', message: `cannot build DAG: node ${pkg.source} already exists` };
    bySource.set(pkg.source, pkg);
  }
  const cycle = findCycle(bySource);
  if (cycle !== undefined) return { kind: 'failed', message: `cannot sort DAG: detected cycle on: ${cycle}` };
  const implied = impliedOf(packages, bySource, options.upgrades === true);
  const skipped: string[] = [];
  for (const dep of implied) {
    if (typeOf(dep) === 'Provider' && !options.providers) {
      skipped.push(dep.package);
      continue;
    }
    const constraints = packages
      .flatMap((p) => p.dependencies.filter((d) => d.package === dep.package))
      .map((d) => d.constraints);
    return { kind: 'install', dependency: dep, constraints, skipped };
  }
  return skipped.length > 0 ? { kind: 'skipped', skipped } : { kind: 'resolved' };
}

/**
 * The dependencies to act on, in the Lock's order, each once: those no package provides and, with upgrades, those
 * whose installed version breaks the constraint of the package naming it.
 */
function impliedOf(
  packages: readonly LockPackage[],
  bySource: ReadonlyMap<string, LockPackage>,
  upgrades: boolean,
): Dependency[] {
  const implied: Dependency[] = [];
  for (const pkg of packages) {
    for (const dep of pkg.dependencies) {
      if (implied.some((d) => d.package === dep.package)) continue;
      const installed = bySource.get(dep.package);
      if (installed === undefined || (upgrades && !keepsConstraint(installed.version, dep.constraints))) {
        implied.push(dep);
      }
    }
  }
  return implied;
}

/** A source on a dependency cycle among the Lock's packages, found by depth-first search. */
function findCycle(bySource: ReadonlyMap<string, LockPackage>): string | undefined {
  const done = new Set<string>();
  const onPath = new Set<string>();
  const visit = (source: string): string | undefined => {
    done.add(source);
    onPath.add(source);
    for (const dep of bySource.get(source)?.dependencies ?? []) {
      if (onPath.has(dep.package)) return dep.package;
      if (done.has(dep.package)) continue;
      const found = visit(dep.package);
      if (found !== undefined) return found;
    }
    onPath.delete(source);
    return undefined;
  };
  for (const source of [...bySource.keys()].sort()) {
    if (done.has(source)) continue;
    const found = visit(source);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The name of a package object the resolver creates, as upstream's xpkg.ToDNSLabel makes it from the repository:
 * lowercase letters and digits kept, `.`, `/`, `:` and `-` as dashes, at most 63 characters, no dash at either end.
 *
 * @example packageNameOf('crossplane-contrib/function-patch-and-transform') === 'crossplane-contrib-function-patch-and-transform'
 */
export function packageNameOf(repository: string): string {
  let out = '';
  for (let i = 0; i < repository.length && i < 63; i++) {
    const c = repository.charAt(i);
    if (/[a-z0-9]/.test(c)) out += c;
    else if (/[./:-]/.test(c) && i !== 0 && i !== 62 && i !== repository.length - 1) out += '-';
  }
  return out.replace(/^-+|-+$/g, '');
}
