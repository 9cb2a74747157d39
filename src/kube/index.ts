// kube: the API server connection. Kubeconfig loading, a raw-JSON client that keeps objects intact (server-side
// apply included), reachability checks at start and CRD installation.
export {
  KubeClient,
  CONTENT_TYPE,
  DeadConnectionError,
  type KubeClientOptions,
  type RequestOptions,
  type ResponseObserver,
  type Verb,
} from './client.js';
export { compositorUserAgent, FIELD_MANAGERS, userAgent, withUserAgent } from './identity.js';
export { DEFAULT_REQUEST_TIMEOUT_MS, RequestTimeoutError } from './requestDeadline.js';
export { ApiError, isAlreadyExists, isConflict, isNotFound, serverMessage } from './errors.js';
export { getIfExists } from './getIfExists.js';
export {
  CONNECTION_SECRET_TYPE,
  ForeignSecretError,
  publishConnectionSecret,
  readSecretData,
  type CachedSecret,
  type ConnectionSecret,
  type SecretObject,
} from './connectionSecret.js';
export { addFinalizerPatch, removeFinalizerPatch } from './finalizers.js';
export { KubeconfigError, loadKubeConfig, type KubeconfigSource } from './kubeconfig.js';
export {
  ApiServerUnreachableError,
  waitForApiServer,
  type ReachabilityOptions,
  type ServerVersion,
} from './reachability.js';
export { ensureCrds, isEstablished, waitForEstablished, type EnsureCrdsOptions } from './crds.js';
export { Discovery, KindNotServedError, type ResourceInfo } from './discovery.js';
export { serverSideApply, type ApplyOptions, type EchoTracker, type KubeObject, type ObjectIdentity } from './apply.js';
export { ClientRateLimiter, clientRateFor, type RequestLimiter } from './rateLimiter.js';
export {
  DEFAULT_AGGREGATION_WINDOW_MS,
  DEFAULT_MAX_TRACKED,
  DEFAULT_REPORTING_CONTROLLER,
  EventRecorder,
  RecordingEventSink,
  type EventInput,
  type EventRecorderOptions,
  type EventSink,
  type EventTarget,
} from './events.js';
