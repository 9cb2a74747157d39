// Provider families, as Crossplane v2.3's RBAC manager treats them (roles/reconciler.go): a revision labelled
// pkg.crossplane.io/provider-family is granted the kinds of every revision of its family too (a family's shared
// ProviderConfig, cross-resource references), but only of revisions whose package comes from the same registry and
// organisation, so a package cannot claim a family to be granted another vendor's kinds.
import type { ConfigurationRevision } from '../configuration/index.js';
import { parseReference } from '../oci/index.js';
import { definedResources, type Resource } from './roles.js';

/** The label naming a provider's family (apis/pkg/v1 LabelProviderFamily). */
export const PROVIDER_FAMILY_LABEL = 'pkg.crossplane.io/provider-family';

/** The revision's family; undefined when it has none. */
export function familyOf(rev: ConfigurationRevision): string | undefined {
  const family = rev.metadata.labels?.[PROVIDER_FAMILY_LABEL];
  return family === undefined || family === '' ? undefined : family;
}

/**
 * Whether two package references are of different registries or organisations (the first segment of the
 * repository path). A reference that does not parse differs from everything: the safe answer.
 *
 * @example orgDiffers('xpkg.crossplane.io/crossplane-contrib/a:v1', 'xpkg.crossplane.io/crossplane-contrib/b:v2') // false
 */
export function orgDiffers(a: string, b: string): boolean {
  const parsed = [a, b].map(parseOrFail);
  const [ra, rb] = parsed;
  if (ra === undefined || rb === undefined) return true;
  return ra.registry !== rb.registry || ra.repository.split('/')[0] !== rb.repository.split('/')[0];
}

/** The resources `rev` is granted: its own, then those of each member of its family from the same organisation. */
export function grantedResources(rev: ConfigurationRevision, members: readonly ConfigurationRevision[]): Resource[] {
  const own = definedResources(rev.status?.objectRefs);
  const others = members
    .filter((m) => m.metadata.uid !== rev.metadata.uid && !orgDiffers(rev.spec.image, m.spec.image))
    .flatMap((m) => definedResources(m.status?.objectRefs));
  return [...own, ...others];
}

function parseOrFail(ref: string): ReturnType<typeof parseReference> | undefined {
  try {
    return parseReference(ref);
  } catch {
    return undefined;
  }
}
