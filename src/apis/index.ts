// apis: the API types compositor serves (Crossplane v2 compatible) and their CRD manifests, plus the Go duration
// format that its flags, annotations and status fields share, and the {apiVersion, kind} value kinds travel as.
export { DURATION_FORM, InvalidDurationError, formatDuration, parseDuration } from './duration.js';
export { CRD_FEATURE_LABEL, crdsDir, loadCrds } from './crds.js';
export { packageRoot } from './packageRoot.js';
export type { CustomResourceDefinition, OwnerReference } from './crd.js';
export { distinctKinds, groupOf, kindKey, kindOf, type ApiKind } from './kind.js';
