// composite: the XR reconciler. Composition selection, the function pipeline, apply, garbage collection, status
// and the requeue decision, plus the controller that feeds it events. The pure parts (naming, poll intervals,
// reconcile requests, conditions, selection, restart spread) have no Kubernetes imports.
export { childName } from './names.js';
export { mapLimited } from './limitedParallel.js';
export {
  effectivePollInterval,
  INVALID_POLL_INTERVAL_REASON,
  POLL_INTERVAL_ANNOTATION,
  PollIntervalWarnings,
  withJitter,
  type EffectivePollInterval,
  type PollIntervalFlags,
} from './pollInterval.js';
export {
  pendingReconcileRequest,
  reconcileRequestHandledEvent,
  RECONCILE_REQUESTED_AT_ANNOTATION,
} from './reconcileRequest.js';
export {
  RECONCILE_PAUSED,
  RECONCILIATION_PAUSED_EVENT,
  sameCondition,
  setCondition,
  SYSTEM_CONDITION_TYPES,
  unreadyMessage,
  type Condition,
} from './conditions.js';
export { COMPOSITION_REVISION, CompositeEventPipeline, type CompositeEventPipelineOptions } from './eventPipeline.js';
export {
  APPLIED_DIGEST_ANNOTATION,
  CLAIM_NAME_LABEL,
  CLAIM_NAMESPACE_LABEL,
  isApplied,
  isSubset,
  renderComposed,
  RESOURCE_NAME_ANNOTATION,
  withAppliedDigest,
} from './composed.js';
export {
  COMPOSITION_NAME_LABEL,
  selectComposition,
  selectRevision,
  SelectionError,
  RevisionPendingError,
  type CompositionObject,
  type RevisionObject,
  type XrdDefaults,
} from './selection.js';
export { StatusDraft } from './status.js';
export {
  composedFieldOwner,
  machineryOwnedByXrOwner,
  MACHINERY_FIELD_OWNER,
  previousComposedFieldOwner,
  sortedResourceRefs,
  XR_FIELD_OWNER,
  type ManagedFieldsEntry,
} from './fieldOwners.js';
export { isSettled, restartDelayMs } from './restart.js';
export { CompositeReconciler, failureMessage, type CompositeReconcilerOptions, type XrType } from './reconciler.js';
export {
  CompositeController,
  type CompositeControllerOptions,
  type CompositeControllerSettings,
} from './controller.js';
export {
  claimOf,
  COMPOSITE_FINALIZER,
  COMPOSITE_LABEL,
  isBeingDeleted,
  isPaused,
  PAUSED_ANNOTATION,
  type ClaimRef,
  type Xr,
} from './xr.js';
export { stuckSummary, type StuckSummary, type StuckXr } from './stuck.js';
