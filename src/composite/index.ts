// composite: the XR reconciler. Composition selection, the function pipeline, apply, garbage collection, status
// and the requeue decision. The pure parts (naming, poll intervals, reconcile requests, conditions) live here too.
export { childName } from './names.js';
export {
  effectivePollInterval,
  POLL_INTERVAL_ANNOTATION,
  withJitter,
  type EffectivePollInterval,
  type PollIntervalFlags,
} from './pollInterval.js';
export { pendingReconcileRequest, RECONCILE_REQUESTED_AT_ANNOTATION } from './reconcileRequest.js';
export { sameCondition, setCondition, SYSTEM_CONDITION_TYPES, unreadyMessage, type Condition } from './conditions.js';
export { COMPOSITION_REVISION, CompositeEventPipeline, type CompositeEventPipelineOptions } from './eventPipeline.js';
