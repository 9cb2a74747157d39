// apis: the API types compositor serves (Crossplane v2 compatible) and their CRD manifests, plus the Go duration
// format that its flags, annotations and status fields share.
export { DURATION_FORM, InvalidDurationError, formatDuration, parseDuration } from './duration.js';
export { CRD_FEATURE_LABEL, crdsDir, loadCrds } from './crds.js';
export { packageRoot } from './packageRoot.js';
export type { CustomResourceDefinition, OwnerReference } from './crd.js';
