// composite: the XR reconciler. Composition selection, the function pipeline, apply, garbage collection, status
// and the requeue decision, plus the controller that feeds it events. The pure parts (naming, selection) have no
// Kubernetes imports; what every controller shares (conditions, status, poll intervals) is in src/controller.
export { childName, isValidComposedName } from './names.js';
export { mapLimited } from './limitedParallel.js';
export { COMPOSITION_REVISION, CompositeEventPipeline, type CompositeEventPipelineOptions } from './eventPipeline.js';
export { apiResourceFetcher, isRequired, type RequiredWatch } from './requiredResources.js';
export { schemaIn, type OpenApiDocument } from './requiredSchemas.js';
export {
  ComposedResourceError,
  controllerOf,
  renderComposed,
  RESOURCE_NAME_ANNOTATION,
  type ComposedObject,
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
export {
  composedFieldOwner,
  machineryOwnedByXrOwner,
  MACHINERY_FIELD_OWNER,
  previousComposedFieldOwner,
  sortedResourceRefs,
  STATUS_FIELD_OWNER,
  statusFieldsOwnedByXrOwner,
  UPDATED_STATUS_FIELDS,
  XR_FIELD_OWNER,
  type ManagedFieldsEntry,
} from './fieldOwners.js';
export type { ComposedCache } from './composedCache.js';
export {
  ComposedClient,
  DEFAULT_MAX_CONCURRENT_APPLIES,
  type Applied,
  type ComposedClientOptions,
  type ComposedResources,
  type DesiredResource,
} from './composedClient.js';
export {
  CachedCompositionSelector,
  type CachedCompositionSelectorOptions,
  type CompositionSelector,
  type Selected,
} from './compositionSelector.js';
export { FunctionPipeline, type CompositionPipeline, type FunctionPipelineOptions } from './functionPipeline.js';
export {
  ApiResultPublisher,
  notReadyEvent,
  SYSTEM_CONDITION_TYPES,
  type ApiResultPublisherOptions,
  type ReconcileEvent,
  type ResultPublisher,
} from './resultPublisher.js';
export { ApiXrWriter, type XrWriter } from './xrWriter.js';
export { Composer, type Composed, type CompositeSteps } from './compose.js';
export { CompositeReconciler, type CompositeReconcilerOptions } from './reconciler.js';
export {
  CompositeController,
  type CompositeControllerOptions,
  type CompositeControllerSettings,
} from './controller.js';
export { COMPOSITE_FINALIZER, machineryOf, type Machinery, type ResourceRef } from './xr.js';
export { stuckSummary, type StuckSummary, type StuckXr } from './stuck.js';
export {
  createWaves,
  deleteWaves,
  gateCreates,
  graphOf,
  graphOfRefs,
  validateGraph,
  type Graph,
  type Hold,
  type OrderedRef,
  type ResourceState,
} from './ordering/index.js';
