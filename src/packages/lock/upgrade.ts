// Which version an installed dependency moves to when it no longer satisfies the packages depending on it, as
// Crossplane v2.3's resolver decides with its alpha EnableAlphaDependencyVersionUpgrades
// (internal/controller/pkg/resolver/reconciler.go, internal/dag/upgrading_dag.go). Pure: the caller lists the tags.
import { parseConstraint, parseVersion } from '../xpkg/index.js';
import type semver from 'semver';
import type { LockPackage } from './types.js';

const DIGEST = /^sha256:[a-f0-9]{64}$/;

/**
 * Whether an installed version keeps a dependency's constraint, as upstream's upgrading graph judges an edge: the same
 * text (a digest pinned and installed), or a version the range accepts. Anything unreadable is not kept.
 */
export function keepsConstraint(version: string, constraint: string): boolean {
  if (version === constraint) return true;
  const range = parseConstraint(constraint);
  const parsed = DIGEST.test(version) ? undefined : parseVersion(version);
  return range !== undefined && parsed !== undefined && range.check(parsed);
}

/**
 * The Lock's packages without the outdated dependencies (upstream's pruneOutdatedDependencies): a package that some
 * package depends on stays only when its version satisfies at least one of their constraints, so a dependency left at
 * a version nothing asks for is treated as missing, and found again among the installed packages, rather than
 * blocking the graph. A package nothing depends on (a root) always stays.
 */
export function pruneOutdated(packages: readonly LockPackage[]): LockPackage[] {
  const constraints = new Map<string, string[]>();
  for (const pkg of packages) {
    for (const dep of pkg.dependencies)
      constraints.set(dep.package, [...(constraints.get(dep.package) ?? []), dep.constraints]);
  }
  return packages.filter((pkg) => {
    const wanted = constraints.get(pkg.source);
    return wanted === undefined || wanted.some((c) => matchesConstraint(pkg.version, c));
  });
}

/** As upstream's matchesAnyConstraint for one constraint: a digest matches itself only, a version a range. */
function matchesConstraint(version: string, constraint: string): boolean {
  if (DIGEST.test(version)) return version === constraint;
  if (DIGEST.test(constraint)) return false;
  return keepsConstraint(version, constraint);
}

export interface UpgradeQuestion {
  /** The dependency's package address, for the message. */
  source: string;
  /** The installed tag or digest: the package's status.resolvedPackage's, else its spec.package's. */
  installed: string;
  /** Every constraint the Lock's packages put on the dependency (upstream's parent constraints). */
  constraints: readonly string[];
  /** Whether a version below the installed one may be chosen (--enable-dependency-version-downgrades). */
  downgrades: boolean;
}

/**
 * What the constraints pin, before any registry is asked: the digest every one of them names, none when they are all
 * ranges, or upstream's error when digests differ or are mixed with ranges (findDigestToUpdate, in its order).
 */
export function pinnedDigest(constraints: readonly string[]): { digest?: string } | { problem: string } {
  let digest: string | undefined;
  let range = false;
  for (const c of constraints) {
    if (DIGEST.test(c)) {
      if (digest !== undefined && digest !== c) {
        return {
          problem: `a dependency package has different digests in parent constraints ([${constraints.join(' ')}])`,
        };
      }
      digest = c;
    } else {
      range = true;
    }
    if (range && digest !== undefined) {
      return {
        problem: `a dependency package has different types of parent constraints ([${constraints.join(' ')}])`,
      };
    }
  }
  return digest === undefined ? {} : { digest };
}

/**
 * The tag to move to (upstream's findDependencyVersionToUpdate, for constraints that pin no digest): among the tags
 * that are versions, the lowest satisfying every constraint and not below the installed version; only with downgrades,
 * else the highest satisfying every constraint below it. Upstream's problems otherwise, without its error prefix.
 *
 * @example chooseUpgrade(['v0.8.2', 'v0.9.0', 'v0.9.1'], { source: 'r.example.org/fn', installed: 'v0.8.2', constraints: ['>=v0.9.0'], downgrades: false }) // { version: 'v0.9.0' }
 */
export function chooseUpgrade(
  tags: readonly string[],
  question: UpgradeQuestion,
): { version: string } | { problem: string } {
  const ranges = [];
  for (const text of question.constraints) {
    const range = parseConstraint(text);
    if (range === undefined)
      return { problem: `version constraint on dependency is invalid: improper constraint: ${text}` };
    ranges.push(range);
  }
  // Upstream parses the installed version without checking (MustParse), so a digest stops its reconcile with a panic;
  // here it is a problem the Lock reports.
  const current = DIGEST.test(question.installed) ? undefined : parseVersion(question.installed);
  if (current === undefined) return { problem: `installed version ${question.installed} is not a semantic version` };
  const versions = tags
    .map((tag) => ({ tag, version: parseVersion(tag) }))
    .filter((v): v is { tag: string; version: semver.SemVer } => v.version !== undefined)
    .sort((a, b) => a.version.compare(b.version));
  let below: string | undefined;
  for (const { tag, version } of versions) {
    if (!ranges.every((r) => r.check(version))) continue;
    if (version.compare(current) >= 0) return { version: tag };
    if (question.downgrades) below = tag;
  }
  if (below !== undefined) return { version: below };
  return { problem: noValidVersion(question.source, `[${question.constraints.join(' ')}]`) };
}

/** Upstream's errFmtNoValidVersion, for an install (one constraint as written) and an upgrade (the list) alike. */
export function noValidVersion(source: string, constraints: string): string {
  return `dependency (${source}) does not have a valid version to upgrade that satisfies all constraints. If there is a valid version that requires downgrade, manual intervention is required. Constraints: ${constraints}`;
}
