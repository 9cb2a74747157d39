// provider: Provider packages as Crossplane v2's package manager installs them. A Provider gets one ProviderRevision
// per package digest; the active revision installs the package's managed resource CRDs as ManagedResourceDefinitions,
// whose CRDs the MRD controller creates once they are Active (at once, or through an activation policy for a
// safe-start provider). The active revision also runs the provider's runtime: its Deployment, Service,
// ServiceAccount and TLS certificates, its webhooks pointed at that Service.
export * from './names.js';
export { PROVIDER_KIND } from './kind.js';
export {
  checkConversion,
  CONVERSION_WITHOUT_CA,
  hasCapability,
  SAFE_START,
  toManagedResourceDefinitions,
} from './convert.js';
export { matchesActivation, planActivation, type ActivationPlan } from './activation.js';
export { crdOf, type CrdManifest, type ManagedResourceDefinition } from './mrdCrd.js';
export { MrdController, type MrdControllerOptions } from './mrdController.js';
export { MrapController, type ManagedResourceActivationPolicy, type MrapControllerOptions } from './mrapController.js';
export { activationsOf, DefaultActivationPolicy } from './defaultPolicy.js';
export { ProviderPackages, type ProviderPackagesOptions } from './packages.js';
export { PROVIDER_RUNTIME, LABEL_PROVIDER, WEBHOOK_PORT, WEBHOOK_PORT_NAME } from './runtimeKind.js';
export { ProviderRuntime, type ProviderRuntimeOptions } from './runtime.js';
export { pointWebhooks } from './webhooks.js';
