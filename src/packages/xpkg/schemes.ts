// The kinds Crossplane's package parser recognizes (crossplane-runtime pkg/xpkg/scheme.go). Its meta scheme holds
// the package metadata types; its object scheme holds everything a package may carry. A document of any other kind
// fails the parse: Crossplane does not skip what it does not know.

export const META_GROUP = 'meta.pkg.crossplane.io';

/** The package kinds, each with the meta versions Crossplane registers for it (pkg/meta/v1, v1beta1, v1alpha1). */
export const META_KINDS: Readonly<Record<PackageKind, readonly string[]>> = {
  Provider: ['v1', 'v1alpha1'],
  Configuration: ['v1', 'v1alpha1'],
  Function: ['v1', 'v1beta1'],
};

export type PackageKind = 'Provider' | 'Configuration' | 'Function';

/** apiVersion -> kinds of the object scheme (the List kinds are registered too, as each AddToScheme does). */
const OBJECT_SCHEME: Readonly<Record<string, readonly string[]>> = {
  'apiextensions.crossplane.io/v1': ['CompositeResourceDefinition', 'Composition', 'CompositionRevision'],
  'apiextensions.crossplane.io/v1alpha1': ['Usage', 'ManagedResourceDefinition', 'ManagedResourceActivationPolicy'],
  'apiextensions.crossplane.io/v2': ['CompositeResourceDefinition'],
  'ops.crossplane.io/v1alpha1': ['Operation', 'CronOperation', 'WatchOperation'],
  'apiextensions.k8s.io/v1': ['CustomResourceDefinition', 'ConversionReview'],
  'apiextensions.k8s.io/v1beta1': ['CustomResourceDefinition', 'ConversionReview'],
  'admissionregistration.k8s.io/v1': [
    'ValidatingWebhookConfiguration',
    'MutatingWebhookConfiguration',
    'ValidatingAdmissionPolicy',
    'ValidatingAdmissionPolicyBinding',
  ],
};

/** Whether the meta scheme knows this apiVersion and kind. */
export function isMetaKind(apiVersion: string, kind: string): kind is PackageKind {
  const [group, version = ''] = apiVersion.split('/');
  if (group !== META_GROUP) return false;
  return (META_KINDS[kind as PackageKind] as readonly string[] | undefined)?.includes(version) === true;
}

/** Whether the object scheme knows this apiVersion and kind. */
export function isObjectKind(apiVersion: string, kind: string): boolean {
  const kinds = OBJECT_SCHEME[apiVersion];
  if (kinds === undefined) return false;
  return kinds.includes(kind) || (kind.endsWith('List') && kinds.includes(kind.slice(0, -'List'.length)));
}
