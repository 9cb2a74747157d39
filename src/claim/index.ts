// claim: Crossplane's v1 claims. A namespaced claim creates or binds a cluster-scoped legacy XR, keeps it in step
// with the claim, shows its status, publishes its connection Secret into the claim's namespace, and deletes it with
// the claim. One claim controller per XRD with spec.claimNames, started and stopped by the XRD controller.
export {
  CLAIM_FIELD_MANAGER,
  CLAIM_FINALIZER,
  claimConditionsFrom,
  claimSpecFromComposite,
  claimStatusFields,
  compositeFromClaim,
  compositeNameFor,
  type Claim,
} from './claim.js';
export { ClaimController, type ClaimControllerOptions } from './controller.js';
export { ClaimError, ClaimReconciler, type ClaimReconcilerOptions } from './reconciler.js';
