// Kinds and paths of Provider packages and of the managed resource definitions they install, as Crossplane v2.3
// spells them (apis/pkg/v1/provider_types.go, apis/apiextensions/v1alpha1/mrd_types.go, mrd_policy_types.go).
export const PROVIDER = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Provider' } as const;
export const PROVIDER_REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'ProviderRevision' } as const;
export const PROVIDERS = '/apis/pkg.crossplane.io/v1/providers';
export const PROVIDER_REVISIONS = '/apis/pkg.crossplane.io/v1/providerrevisions';

export const MRD = { apiVersion: 'apiextensions.crossplane.io/v1alpha1', kind: 'ManagedResourceDefinition' } as const;
export const MRAP = {
  apiVersion: 'apiextensions.crossplane.io/v1alpha1',
  kind: 'ManagedResourceActivationPolicy',
} as const;
export const MRDS = '/apis/apiextensions.crossplane.io/v1alpha1/managedresourcedefinitions';
export const MRAPS = '/apis/apiextensions.crossplane.io/v1alpha1/managedresourceactivationpolicies';

export const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;
export const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/**
 * The field manager of the CRDs the MRD controller applies. Upstream's is `crossplane-mrd-controller`
 * (FieldOwnerMRD); compositor's own keeps its writes apart from Crossplane's. Never change it (kube/identity.ts).
 */
export const MRD_FIELD_MANAGER = 'compositor/managed-resource-definitions';

/** The activation policy `crossplane core init` creates from its --activation flags (initializer, "default"). */
export const DEFAULT_POLICY_NAME = 'default';
