// functions: running composition functions. The gRPC runner (pooled channels, deadline, retries, mTLS or
// plaintext), endpoint resolution, the requirements loop, the response cache, the pipeline that the composite
// reconciler calls (runPipeline), the limits every response is held to, and the in-process built-ins
// function-patch-and-transform and function-auto-ready.
export * from './types.js';
export { fromStruct, toStruct } from './struct.js';
export { requestFromWire, requestToWire, responseFromWire, responseToWire } from './codec.js';
export {
  runFunctionMethod,
  protoPath,
  PROTOBUF_RECURSION_LIMIT,
  RUN_FUNCTION_V1,
  RUN_FUNCTION_V1BETA1,
} from './proto.js';
export { FunctionCallError, PipelineFatalError } from './errors.js';
export { dependencyKey, nextDependencies } from './dependencies.js';
export {
  ENDPOINT_ANNOTATION,
  PACKAGE_LABEL,
  lookupEndpointResolver,
  resolveEndpoint,
  staticEndpointResolver,
  type EndpointResolver,
  type FunctionLookup,
  type FunctionObject,
  type FunctionRevisionObject,
} from './endpoint.js';
export { insecureCredentials, mtlsCredentials } from './credentials.js';
export type { FunctionCall, FunctionRunner } from './runner.js';
export { GrpcFunctionRunner, targetHost, type GrpcRunnerDeps } from './grpcRunner.js';
export {
  EMPTY_FETCHER,
  MAX_REQUIRED_RESOURCES,
  MAX_REQUIRED_SELECTORS,
  MAX_REQUIREMENTS_ITERATIONS,
  RequirementsLimitError,
  RequirementsRunner,
  stepFingerprint,
  type RequiredResourceFetcher,
} from './requirements.js';
export {
  DEFAULT_REMEMBERED_REQUIREMENTS,
  RememberedRequirements,
  type RequirementsMemory,
} from './rememberedRequirements.js';
export { CachingRunner, withResponseCache, type CacheDeps, type CacheMetrics } from './cache.js';
export { MeasuredRunner } from './measuredRunner.js';
export {
  checkResponse,
  DEFAULT_MAX_COMPOSED_RESOURCES,
  LimitedRunner,
  MAX_RESPONSE_BYTES,
  MAX_RESULTS,
  ResponseLimitError,
  type ResponseLimits,
} from './limits.js';
export { digest } from './hash.js';
export { SYSTEM_CONDITION_TYPES, type PipelineCondition, type PipelineEvent } from './outcome.js';
export {
  runPipeline,
  type PipelineDeps,
  type PipelineInput,
  type PipelineOutput,
  type PipelineStep,
} from './pipeline.js';
export { RoutingRunner, type BuiltinFunction, type RouterDeps } from './router.js';
export {
  BUILTIN_ANNOTATION,
  chooseRuntime,
  DEFAULT_BUILTIN_POLICY,
  DEFAULT_BUILTIN_REGISTRIES,
  type BuiltinPolicy,
  type FunctionLike,
  type RuntimeChoice,
} from './builtinRuntime.js';
export { isPackageLocation, LOCATION_FORM, parsePackageRef, type PackageRef } from './packageRef.js';
export {
  AUTO_READY,
  autoReady,
  BUILTIN_RELEASES,
  builtinFunctions,
  ENVIRONMENT_KEY,
  goQuote,
  PATCH_AND_TRANSFORM,
  patchAndTransform,
  type AutoReadyOptions,
  type BuiltinOptions,
  type BuiltinRelease,
} from './builtin/index.js';
