// oci: a small client of the OCI distribution spec for pulling Crossplane packages: references as Crossplane v2
// accepts them, token and Basic authentication with credentials from packagePullSecrets, image indexes and Docker
// v2 manifests, digest verification of every blob, size limits, a digest-addressed cache and packagePullPolicy.
export * from './errors.js';
export { parseReference, formatReference, packageSource, NOT_FULLY_QUALIFIED, type Reference } from './reference.js';
export {
  credentialsFromSecrets,
  credentialsFor,
  type Credentials,
  type KeyedCredentials,
  type PullSecret,
} from './credentials.js';
export { cachePlan, NOT_IN_CACHE, type CachePlan, type PullPolicy } from './pullPolicy.js';
export {
  Puller,
  DEFAULT_MAX_LAYER_BYTES,
  DEFAULT_MAX_MANIFEST_BYTES,
  type PulledImage,
  type PullerOptions,
  type PullOptions,
} from './puller.js';
export {
  OCI_MANIFEST,
  OCI_INDEX,
  DOCKER_MANIFEST,
  DOCKER_MANIFEST_LIST,
  DEFAULT_PLATFORM,
  type Descriptor,
  type ImageManifest,
  type Platform,
} from './manifest.js';
export type { Fetch, RequestRecord } from './http.js';
export { parseChallenge, type Challenge } from './challenge.js';
export { realmProblem } from './session.js';
