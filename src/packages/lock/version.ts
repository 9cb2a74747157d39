// Which version of a missing dependency to install, as Crossplane v2.3's resolver chooses it: a digest constraint is
// installed as that digest without asking the registry; otherwise the highest tag that is a semantic version and
// satisfies the constraint. compositor checks every constraint the Lock's packages put on the dependency (upstream's
// parent constraints), so a version chosen for one parent does not break another.
import { parseConstraint, parseVersion, type Constraint } from '../xpkg/index.js';
import type semver from 'semver';

const DIGEST = /^sha256:[a-f0-9]{64}$/;

/** What the constraints ask for: one digest, or version ranges; or why they cannot be met together. */
export type Wanted = { digest: string } | { ranges: Constraint[] } | { problem: string };

/** Reads a dependency's constraints from every package that depends on it (upstream's findDigestToUpdate rules). */
export function wantedOf(constraints: readonly string[]): Wanted {
  const digests = [...new Set(constraints.filter((c) => DIGEST.test(c)))];
  if (digests.length > 1) {
    return { problem: `a dependency package has different digests in parent constraints ([${constraints.join(' ')}])` };
  }
  if (digests.length === 1 && digests.length !== constraints.length && constraints.some((c) => !DIGEST.test(c))) {
    return {
      problem: `a dependency package has different types of parent constraints ([${constraints.join(' ')}])`,
    };
  }
  if (digests[0] !== undefined) return { digest: digests[0] };
  const ranges: Constraint[] = [];
  for (const text of constraints) {
    const range = parseConstraint(text);
    if (range === undefined)
      return { problem: `version constraint on dependency is invalid: improper constraint: ${text}` };
    ranges.push(range);
  }
  return { ranges };
}

/** The highest tag satisfying every range, as written; undefined when none does. Tags that are not versions are skipped. */
export function chooseTag(tags: readonly string[], ranges: readonly Constraint[]): string | undefined {
  let best: { tag: string; version: semver.SemVer } | undefined;
  for (const tag of tags) {
    const version = parseVersion(tag);
    if (version === undefined || !ranges.every((r) => r.check(version))) continue;
    if (best === undefined || version.compare(best.version) >= 0) best = { tag, version };
  }
  return best?.tag;
}
