// nop: compositor's built-in nop provider. NopResources whose external system is in memory, with conditions that
// change over time and failures on demand, so compositions can be tested end to end without a cloud. It serves
// compositor's nop.compositor.crossplane.io API and Crossplane's provider-nop API (nop.crossplane.io) unchanged.
export { conditionsAt, InvalidConditionAfterError, nextChangeInMs, parseConditionAfter } from './conditionAfter.js';
export type { TimedCondition } from './conditionAfter.js';
export { NopConnector, NopInjectedFailure, type NopConnectorOptions } from './connector.js';
export { crossplanePackageOwner } from './packageOwner.js';
export { NopProvider, type NopProviderOptions } from './provider.js';
export { NopExternalSystem, type NopExternalObject } from './system.js';
export {
  NOP_API_VERSION,
  NOP_FEATURE,
  NOP_GROUP,
  NOP_KIND,
  NOP_PLURAL,
  NOP_PROVIDER,
  NOP_TYPE,
  NOP_TYPES,
  nopCrdName,
  PROVIDER_NOP_API_VERSION,
  PROVIDER_NOP_GROUP,
  PROVIDER_NOP_TYPE,
  type ConditionAfter,
  type NopParameters,
  type NopResource,
  type NopType,
} from './types.js';
