// A Provider as the package controllers install it: its revisions establish the package's CRDs, each managed
// resource CRD as a ManagedResourceDefinition (convert.ts) and the provider's configuration kinds as CRDs. Webhook
// configurations are left out, and a CRD converted by webhook refused, until compositor runs a Provider's runtime,
// which serves them.
import type { PackageKindSpec } from '../configuration/index.js';
import { checkConversion, toManagedResourceDefinitions } from './convert.js';
import { PROVIDER, PROVIDER_REVISION, PROVIDER_REVISIONS, PROVIDERS } from './names.js';

export const PROVIDER_KIND: PackageKindSpec = {
  meta: 'Provider',
  package: PROVIDER,
  revision: PROVIDER_REVISION,
  packages: PROVIDERS,
  revisions: PROVIDER_REVISIONS,
  copied: ['runtimeConfigRef'],
  establishes: [
    'apiextensions.k8s.io/CustomResourceDefinition',
    'apiextensions.crossplane.io/ManagedResourceDefinition',
  ],
  objects: (pkg) => {
    checkConversion(pkg.objects);
    return toManagedResourceDefinitions(pkg.objects, pkg.meta[0]?.spec?.capabilities);
  },
};
