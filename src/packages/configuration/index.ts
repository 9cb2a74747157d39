// configuration: Configuration packages as Crossplane's package manager installs them. A Configuration gets one
// ConfigurationRevision per package digest; the active revision installs the package's XRDs and Compositions and
// controls them, every revision owns them.
export { ConfigurationController, type ConfigurationControllerOptions } from './configurationController.js';
export { ConfigurationRevisionController, type ConfigurationRevisionControllerOptions } from './revisionController.js';
export { CONFIGURATION_KINDS, ControlRefusedError, Establisher, type EstablishInput } from './establisher.js';
export { decideOwnership, released, type OwnershipDecision, type OwnershipInput } from './ownership.js';
export { planRevisions, type RevisionPlan } from './revisions.js';
export { configurationHealth, revisionHealth, unpacking } from './conditions.js';
export { writeStatus, type StatusTarget } from './status.js';
export { handlePause, isPausedPackage, PACKAGE_PAUSED_MESSAGE } from './paused.js';
export * from './names.js';
export { CONFIGURATION_KIND, controllerNameOf, type PackageKindSpec } from './kind.js';
export type * from './types.js';
export { ConfigurationPackages, defaultCacheDir, type ConfigurationPackagesOptions } from './packages.js';
export type { PreparedRuntime, RevisionRuntime, RuntimeImage, WebhookTarget } from './runtime.js';
