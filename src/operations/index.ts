// operations: Crossplane v2's day-two Operations (ops.crossplane.io/v1alpha1). An Operation runs its function
// pipeline once to completion through the same runPipeline compositions use; a CronOperation creates Operations on
// a cron schedule, a WatchOperation one per change of the resources it watches. Reconcilers with injected store,
// runner, clock and event sink; the queues and informers that drive them belong to the controller kit.
export * from './types.js';
export * from './conditions.js';
export {
  hasCapability,
  missingCapability,
  OPERATION_CAPABILITY,
  type ActiveRevision,
  type ActiveRevisionLookup,
} from './capabilities.js';
export { isComplete, latestCreateTime, latestSuccessTime, markGarbage, runningOperations } from './history.js';
export { KubeOpsStore, kubeActiveRevision, type KubeOpsStoreOptions } from './kubeStore.js';
export type { AppliedObject, OpsKind, OpsObject, OpsStore } from './store.js';
export {
  addResourceRef,
  fieldOwnerOf,
  OperationRunError,
  runOperation,
  type OperationRunDeps,
  type RunRecord,
} from './operationRun.js';
export { OperationReconciler, RUN_ATTEMPT_ANNOTATION, type OperationReconcilerDeps } from './operationReconciler.js';
export { InvalidScheduleError, parseSchedule, type Schedule } from './schedule.js';
export {
  cronOperationName,
  decideCron,
  lastScheduled,
  scheduledTimeOf,
  type CronDecision,
  type CronInput,
} from './cronDecision.js';
export { CronOperationReconciler, type CronReconcilerDeps } from './cronReconciler.js';
export {
  deletedStandIn,
  operationForWatched,
  selects,
  triggers,
  watchedOperationName,
  withWatchedRequirement,
  type WatchedEvent,
} from './watchDecision.js';
export { WatchedReconciler, type WatchedReconcilerDeps } from './watchedReconciler.js';
export {
  WatchOperationReconciler,
  type WatchOperationReconcilerDeps,
  type Watches,
} from './watchOperationReconciler.js';
export { ownerOf, specChanged, type OpsEvent } from './eventFilters.js';
export { OperationsController, OPS_CONTROLLER_NAMES, type OperationsControllerOptions } from './controllers.js';
export { WatchedControllers, watchedControllerName, type WatchedControllersOptions } from './watchedControllers.js';
