import { groupOf, type CustomResourceDefinition, type OwnerReference } from '../../apis/index.js';

// Whether a real Crossplane provider serves a NopResource API: its package manager owns the CRD it installed.
// Pure, so the rule is tested without a server.

const PACKAGE_GROUP = 'pkg.crossplane.io';

/**
 * The Crossplane package revision (a ProviderRevision of pkg.crossplane.io) that owns the CRD, or undefined when
 * no package installed it. A CRD a package owns has that provider's controller reconciling its kind: a second
 * controller from compositor would fight it over every status write and finalizer.
 */
export function crossplanePackageOwner(crd: Pick<CustomResourceDefinition, 'metadata'>): OwnerReference | undefined {
  const owners = crd.metadata.ownerReferences ?? [];
  const ofPackages = owners.filter((owner) => groupOf(owner.apiVersion) === PACKAGE_GROUP);
  return ofPackages.find((owner) => owner.controller === true) ?? ofPackages[0];
}
