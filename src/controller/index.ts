// controller: the kit every controller (composite, claim, managed, definition, usage, packages) builds on, below all
// of them and importing none: the shell a controller is declared on (its watches, key mappings and reconcile) with
// the one queue factory, conditions and the status draft, how a failure and a pause are reported, poll intervals and
// requeue jitter, reconcile requests, the restart spread, apply-only-when-different (the RBAC objects' too), and the XR
// vocabulary that composite and claim share.
export { APPLIED_DIGEST_ANNOTATION, isApplied, isSubset, withAppliedDigest } from './applied.js';
export {
  applyIfChanged,
  CLUSTER_ROLE_BINDINGS_PATH,
  CLUSTER_ROLES_PATH,
  RBAC_API_VERSION,
  RBAC_GROUP,
  sameRules,
  type ApplyIfChangedOptions,
  type ClusterRole,
  type ClusterRoleBinding,
  type PolicyRule,
  type Subject,
} from './rbac.js';
export {
  RECONCILE_PAUSED,
  RECONCILE_SUCCESS,
  reconcileError,
  RECONCILIATION_PAUSED_EVENT,
  sameCondition,
  sameConditions,
  setConditions,
  stableNAndSomeMore,
  transitionTime,
  unreadyMessage,
  unsyncedMessage,
  type Condition,
  type ConditionInput,
  type ConditionTime,
  type TimePrecision,
} from './conditions.js';
export {
  CONNECTION_SECRET_SELECTOR,
  ConnectionSecrets,
  type ConnectionSecretReader,
  type ConnectionSecretsOptions,
} from './connectionSecrets.js';
export { DELETION_ATTEMPT_ANNOTATION, IN_USE_LABEL, isInUse } from './inUse.js';
export { markPaused, reportFailure, type FailureReport, type Report } from './failure.js';
export {
  boundedCopy,
  conditionsOf,
  describe,
  findCondition,
  isBeingDeleted,
  isPaused,
  PAUSED_ANNOTATION,
  type ReconciledObject,
} from './object.js';
export {
  effectivePollInterval,
  INVALID_POLL_INTERVAL_REASON,
  POLL_INTERVAL_ANNOTATION,
  PollIntervalWarnings,
  type EffectivePollInterval,
  type PollIntervalFlags,
} from './pollInterval.js';
export {
  pendingReconcileRequest,
  reconcileRequestHandledEvent,
  RECONCILE_REQUESTED_AT_ANNOTATION,
} from './reconcileRequest.js';
export { withJitter } from './requeue.js';
export { isSettled, restartDelayMs } from './restart.js';
export { StatusDraft } from './statusDraft.js';
export { StepError } from './stepError.js';
export {
  CLAIM_NAME_LABEL,
  CLAIM_NAMESPACE_LABEL,
  claimOf,
  COMPOSITE_LABEL,
  type ClaimRef,
  type Xr,
  type XrType,
} from './xr.js';
export { ControllerShell, type ControllerShellOptions } from './shell.js';
export {
  controllerQueue,
  type ControllerQueueOptions,
  type ControllerSettings,
  type ErrorLog,
} from './reconcileQueue.js';
export {
  ownKey,
  watchKind,
  type KeyRequest,
  type Keys,
  type KindWatch,
  type StreamWatch,
  type Watch,
} from './watches.js';
export type { ControllerContext } from './context.js';
