// managed: the managed-resource runtime. A reconciler that provider authors drive from TypeScript with an
// ExternalConnector (Observe, Create, Update, Delete against their external system), its controller (informer,
// work queue, requeues) and the built-in nop provider. The pure parts (annotations and the create protocol,
// managementPolicies, the external-call skip rule, nop's conditionAfter) have no Kubernetes imports.
export type {
  ConnectionDetails,
  DeletionPolicy,
  ExternalClient,
  ExternalConnector,
  ExternalCreation,
  ExternalObservation,
  ExternalUpdate,
  ManagedResource,
  ManagedSpec,
  ReportedCondition,
  SecretReference,
} from './types.js';
export {
  CREATE_INCOMPLETE_MESSAGE,
  creationState,
  EXTERNAL_CREATE_FAILED_ANNOTATION,
  EXTERNAL_CREATE_PENDING_ANNOTATION,
  EXTERNAL_CREATE_SUCCEEDED_ANNOTATION,
  EXTERNAL_NAME_ANNOTATION,
  externalReconcileRecord,
  LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION,
  LAST_EXTERNAL_RECONCILE_VERSION_ANNOTATION,
  timeOf,
  whenAbsent,
  type AbsentAction,
  type CreationState,
  type ExternalReconcileRecord,
} from './annotations.js';
export {
  resolveManagementPolicies,
  type ManagementAction,
  type ManagementPolicies,
  type PolicyResolution,
} from './managementPolicies.js';
export {
  externalObserveSkip,
  externalRecordDue,
  skipWindowMs,
  type ExternalSkipDecision,
  type ExternalSkipInput,
} from './externalSkip.js';
export { meteredConnector } from './metered.js';
export { CONNECTION_SECRET_TYPE, ConnectionSecretPublisher } from './connectionSecret.js';
export { MANAGED_FIELD_MANAGER, MANAGED_FINALIZER, ManagedWriter } from './writer.js';
export { ManagedReconciler, type ManagedReconcilerOptions, type ManagedTiming } from './reconciler.js';
export {
  ManagedController,
  managedControllerName,
  type ManagedControllerOptions,
  type ManagedControllerSettings,
} from './controller.js';
export * from './nop/index.js';
export { WebhookServer, type AdmissionCheck, type WebhookServerOptions } from './webhookServer.js';
