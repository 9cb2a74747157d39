// definition: the XRD controller and the Composition revision controller. Validates CompositeResourceDefinitions,
// renders the CRD of their composite resources, starts and stops one composite controller per XRD, and turns
// every Composition change into a CompositionRevision. On shards other than 0 a follower runs the composite
// controllers of the XRDs shard 0 established, and writes nothing (docs/scaling.md).
export { renderXrCrd } from './render.js';
export { validateXrd } from './validate.js';
export {
  referenceableVersion,
  xrdScope,
  type CompositeResourceDefinition,
  type JsonSchema,
  type XrdScope,
  type XrdVersion,
} from './xrd.js';
export { DEFINITION_FINALIZER, DefinitionController, type DefinitionControllerOptions } from './controller.js';
export {
  RunningControllers,
  typeOf,
  type ClaimFactoryInput,
  type CompositeFactoryInput,
  type RunningComposite,
  type RunningControllersOptions,
  type RunningEntry,
} from './runningControllers.js';
export { CompositionRevisionController, type CompositionRevisionControllerOptions } from './revisions.js';
export { followAction, ShardFollower, type FollowAction, type ShardFollowerOptions } from './shardFollower.js';
export {
  AGGREGATE_TO_COMPOSITOR_LABEL,
  applyCompositeRole,
  compositeRoleName,
  missingCompositeRights,
  renderCompositeRole,
  type ClusterRole,
} from './rbac.js';
