// Kinds, paths and revision names of Configuration packages, as Crossplane's package manager spells them.
export const CONFIGURATION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Configuration' } as const;
export const CONFIGURATION_REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'ConfigurationRevision' } as const;

export const CONFIGURATIONS = '/apis/pkg.crossplane.io/v1/configurations';
export const CONFIGURATION_REVISIONS = '/apis/pkg.crossplane.io/v1/configurationrevisions';

/** The field manager of everything the Configuration controllers apply. Never change it (kube/identity.ts). */
export const FIELD_MANAGER = 'compositor/packages';

/**
 * A revision's name as Crossplane v2.3's package manager names it (xpkg.FriendlyID): the package's name cut to 50
 * characters, a dash, and the first 12 hex digits of the digest its reference resolved to. One digest, one revision:
 * moving a tag to new content makes a new revision, two tags of the same content share one.
 *
 * @example revisionNameOf('configuration-app', 'sha256:6f1ed002ab5595859014ebf0951522d9...') === 'configuration-app-6f1ed002ab55'
 */
export function revisionNameOf(packageName: string, digest: string): string {
  const hex = digest.startsWith('sha256:') ? digest.slice('sha256:'.length) : digest;
  return `${packageName.slice(0, 50)}-${hex.slice(0, 12)}`;
}

/** The Crossplane release compositor stands in for when a package constrains spec.crossplane.version. */
export const CROSSPLANE_VERSION = 'v2.3.4';
