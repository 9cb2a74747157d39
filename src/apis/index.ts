// apis: the API types compositor serves (Crossplane v2 compatible) and their CRD manifests, plus the Go duration
// format that its flags, annotations and status fields share, and the {apiVersion, kind} value kinds travel as.
export { DURATION_FORM, InvalidDurationError, formatDuration, parseDuration } from './duration.js';
export { CRD_FEATURE_LABEL, crdsDir, loadCrds } from './crds.js';
export { packageRoot } from './packageRoot.js';
export type { CrdNames, CustomResourceDefinition } from './crd.js';
export { controllerReference, type ObjectMeta, type ObjectRef, type OwnerObject, type OwnerReference } from './meta.js';
export { distinctKinds, groupOf, kindKey, kindOf, type ApiKind } from './kind.js';
