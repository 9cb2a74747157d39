// packages: the Function half of Crossplane's package manager. Functions get FunctionRevisions, the active revision a
// Deployment, Service and ServiceAccount in compositor's namespace, and mTLS certificates from compositor's own CA.
export * from './names.js';
export * from './certificates.js';
export {
  buildDeployment,
  buildService,
  buildServiceAccount,
  podSelector,
  revisionOwner,
  SERVER_CERT_ANNOTATION,
} from './manifests.js';
export type { Manifest, RuntimeInput } from './manifests.js';
export type * from './types.js';
export { FunctionPackageController, type FunctionPackageControllerOptions } from './controller.js';
export {
  DEFAULT_CAPABILITIES,
  MetadataReader,
  metadataCondition,
  PACKAGE_METADATA,
  packageMetadataReader,
  type MetadataResult,
} from './metadata.js';
export { TlsSecrets, FIELD_MANAGER, type TlsBundle } from './secrets.js';
export { ClientCertificate, type ClientCertificateOptions } from './clientCertificate.js';
export { deploymentHealth } from './runtime.js';
export { packageHealth, runtime as runtimeCondition, RUNTIME, RUNTIME_REASON } from './conditions.js';
export {
  ConfigurationPackages,
  type ConfigurationPackagesOptions,
  CONFIGURATION,
  CONFIGURATION_REVISION,
} from './configuration/index.js';
export {
  ProviderPackages,
  type ProviderPackagesOptions,
  activationsOf,
  PROVIDER,
  PROVIDER_REVISION,
} from './provider/index.js';
export { LockManager, LockResolver, LOCK, LOCK_NAME, LOCKS, type Lock, type LockPackage } from './lock/index.js';
