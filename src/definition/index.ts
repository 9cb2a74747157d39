// definition: the XRD controller and the Composition revision controller. Validates CompositeResourceDefinitions,
// renders the CRD of their composite resources, starts and stops one composite controller per XRD, and turns
// every Composition change into a CompositionRevision.
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
export {
  DEFINITION_FINALIZER,
  DefinitionController,
  typeOf,
  type CompositeFactoryInput,
  type DefinitionControllerOptions,
  type RunningComposite,
} from './controller.js';
export { CompositionRevisionController, type CompositionRevisionControllerOptions } from './revisions.js';
export {
  AGGREGATE_TO_COMPOSITOR_LABEL,
  applyCompositeRole,
  compositeRoleName,
  missingCompositeRights,
  renderCompositeRole,
  type ClusterRole,
} from './rbac.js';
