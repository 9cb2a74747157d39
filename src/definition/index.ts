// definition: the XRD controller. Validates CompositeResourceDefinitions, renders the CRD of their composite
// resources and (with the watch layer) starts and stops one composite controller per XRD.
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
