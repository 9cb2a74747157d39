// usage: Usages and ClusterUsages (protection.crossplane.io/v1beta1), deletion protection and ordering without a
// webhook. The controller labels each used object crossplane.io/in-use with the refusal message, and a
// ValidatingAdmissionPolicy refuses deleting what carries the label; the message and matching rules are pure.
export { UsageController, USAGE_CONTROLLER_NAME, type UsageControllerOptions } from './controller.js';
export { inUseMessage, sameObject, usageDetails, usedObjectOf } from './message.js';
export { ensureUsagePolicy, USAGE_POLICY_NAME, usagePolicyManifests } from './policy.js';
export { UsageObjects } from './objects.js';
export { UsageReconciler, type UsageReconcilerOptions, type UsageTiming } from './reconciler.js';
export {
  IN_USE_MESSAGE_ANNOTATION,
  PROTECTION_API_VERSION,
  USAGE_DETAILS_ANNOTATION,
  USAGE_FINALIZER,
  USAGE_KINDS,
  type Usage,
  type UsedObject,
} from './types.js';
