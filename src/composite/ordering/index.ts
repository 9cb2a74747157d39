// ordering: the dependency graph functions declare between an XR's composed resources (alpha, behind
// --enable-composed-resource-ordering): built and validated from the pipeline's pairs, the create gate, the delete
// gate and waves, the graph persisted in and read back from resourceRefs, and the words conditions use. Pure logic.
export {
  DependencyCycleError,
  EMPTY_GRAPH,
  InvalidDependencyError,
  dependenciesByName,
  dependentsByName,
  edgeList,
  findCycle,
  graphOf,
  validateGraph,
  type Edge,
  type Graph,
  type RequiredEdge,
  type Validated,
} from './graph.js';
export {
  gateCreates,
  requiredObjectReady,
  type CreateGate,
  type Hold,
  type RequiredMatch,
  type ResourceState,
} from './gate.js';
export { createWaves, deleteWaves, gateDeletes, type DeleteGate } from './teardown.js';
export { graphOfRefs, orderedRefs, type OrderedRef, type RefGraph } from './refs.js';
export { deletingSince, teardownMessage, waitingMessage, waveMessage } from './messages.js';
export {
  planCompose,
  planTeardown,
  type ComposePlan,
  type ComposePlanInput,
  type PresentResource,
  type TeardownPlan,
} from './plan.js';
