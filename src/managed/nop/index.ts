// nop: compositor's built-in nop provider. NopResources whose external system is in memory, with conditions that
// change over time and failures on demand, so compositions can be tested end to end without a cloud.
export { conditionsAt, InvalidConditionAfterError, nextChangeInMs, parseConditionAfter } from './conditionAfter.js';
export type { TimedCondition } from './conditionAfter.js';
export { NopConnector, NopInjectedFailure, type NopConnectorOptions } from './connector.js';
export { NopProvider, type NopProviderOptions } from './provider.js';
export { NopExternalSystem, type NopExternalObject } from './system.js';
export {
  NOP_API_VERSION,
  NOP_FEATURE,
  NOP_GROUP,
  NOP_KIND,
  NOP_PLURAL,
  NOP_PROVIDER,
  type ConditionAfter,
  type NopParameters,
  type NopResource,
} from './types.js';
