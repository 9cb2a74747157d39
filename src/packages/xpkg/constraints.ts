// Crossplane version constraints (spec.crossplane.version), which Crossplane evaluates with Masterminds/semver v3.
// node-semver reads most of that syntax; the rest is translated here: commas between comparators, the `=>`, `=<`
// and `~>` spellings, and `!=`, which node-semver lacks and which is checked on its own. As in Masterminds, a
// constraint that names a prerelease admits prereleases; one that names none admits only releases.
import semver from 'semver';

export interface Constraint {
  /** Whether a version satisfies the constraint. */
  check(version: semver.SemVer): boolean;
}

/** Parses a constraint; undefined when Masterminds would refuse it too ("improper constraint"). */
export function parseConstraint(text: string): Constraint | undefined {
  if (text.trim() === '') return undefined;
  const alternatives: { range: semver.Range; excluded: semver.SemVer[] }[] = [];
  for (const part of text.split('||')) {
    const normalized = part
      .replace(/,/g, ' ')
      .replace(/=>/g, '>=')
      .replace(/=</g, '<=')
      .replace(/~>/g, '~')
      .replace(/(!=|>=|<=|[<>=~^])\s+/g, '$1');
    const excluded: semver.SemVer[] = [];
    const kept: string[] = [];
    for (const comparator of normalized.trim().split(/\s+/)) {
      if (!comparator.startsWith('!=')) {
        kept.push(comparator);
        continue;
      }
      const version = semver.coerce(comparator.slice(2), { includePrerelease: true });
      if (version === null) return undefined;
      excluded.push(version);
    }
    const rangeText = kept.join(' ').trim() || '*';
    const includePrerelease = /\d-[0-9A-Za-z]/.test(part);
    try {
      alternatives.push({ range: new semver.Range(rangeText, { includePrerelease, loose: true }), excluded });
    } catch {
      return undefined;
    }
  }
  return {
    check: (version) =>
      alternatives.some(({ range, excluded }) => range.test(version) && !excluded.some((e) => semver.eq(e, version))),
  };
}

/** Parses a version as Masterminds' NewVersion does: a leading `v` and missing minor or patch are fine. */
export function parseVersion(text: string): semver.SemVer | undefined {
  const exact = semver.parse(text, { loose: true });
  if (exact !== null) return exact;
  return semver.coerce(text, { includePrerelease: true }) ?? undefined;
}
