// A Provider as the package controllers install it: its revisions establish the package's CRDs, each managed
// resource CRD as a ManagedResourceDefinition (convert.ts) and the provider's configuration kinds as CRDs, and its
// webhook configurations. With its runtime's server certificate (runtime.ts), the webhooks of its CRDs and webhook
// configurations are pointed at its Service (webhooks.ts); without one, the webhook configurations are left out and a
// CRD converted by webhook is refused, as upstream refuses it without a TLS bundle. Its Healthy follows its current
// revision's RevisionHealthy and RuntimeHealthy.
import type { PackageKindSpec } from '../configuration/index.js';
import { packageHealth } from '../conditions.js';
import { clientSecretName, serverSecretName } from '../names.js';
import { checkConversion, toManagedResourceDefinitions } from './convert.js';
import { PROVIDER, PROVIDER_REVISION, PROVIDER_REVISIONS, PROVIDERS } from './names.js';
import { isWebhookConfiguration, pointWebhooks } from './webhooks.js';

export const PROVIDER_KIND: PackageKindSpec = {
  meta: 'Provider',
  package: PROVIDER,
  revision: PROVIDER_REVISION,
  packages: PROVIDERS,
  revisions: PROVIDER_REVISIONS,
  copied: ['runtimeConfigRef'],
  named: (name) => ({ tlsServerSecretName: serverSecretName(name), tlsClientSecretName: clientSecretName(name) }),
  establishes: [
    'apiextensions.k8s.io/CustomResourceDefinition',
    'apiextensions.crossplane.io/ManagedResourceDefinition',
    'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
    'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  ],
  objects: (pkg, webhook) => {
    const capabilities = pkg.meta[0]?.spec?.capabilities;
    if (webhook === undefined) {
      checkConversion(pkg.objects);
      const served = pkg.objects.filter((o) => !isWebhookConfiguration(o));
      return toManagedResourceDefinitions(served, capabilities);
    }
    return toManagedResourceDefinitions(pointWebhooks(pkg.objects, webhook), capabilities);
  },
  health: packageHealth,
};
