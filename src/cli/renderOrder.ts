import {
  createWaves,
  deleteWaves,
  gateCreates,
  graphOf,
  validateGraph,
  type ResourceState,
} from '../composite/index.js';
import type { JsonObject, PipelineOutput } from '../functions/index.js';

// `compositor render --include-order` (compositor's own flag, with composed resource ordering): the dependencies the
// pipeline declared, the waves an XR is created and torn down in, and what would wait on what given the observed
// resources. The pipeline runs with the dependencies field on, as `--enable-composed-resource-ordering` runs it.

/**
 * The Order document. Throws the engine's error for a cycle or an invalid dependency, which render reports.
 *
 * @example
 * // kind: Order, dependencies: [{ resource: subnet, dependsOn: [vpc] }], createWaves: [[vpc], [subnet]], ...
 */
export function orderDocument(
  out: PipelineOutput,
  observed: ReadonlyMap<string, JsonObject>,
  apiVersion: string,
): JsonObject {
  const desired = out.desired.resources ?? {};
  const states = new Map<string, ResourceState>();
  for (const [name, r] of Object.entries(desired)) {
    states.set(name, { desired: true, observed: observed.has(name), ready: r.ready === 'READY_TRUE' });
  }
  for (const name of observed.keys()) {
    if (!states.has(name)) states.set(name, { desired: false, observed: true, ready: false });
  }
  const { graph } = validateGraph(graphOf(out.dependencies ?? []), new Set(states.keys()));
  const dependsOn = new Map<string, string[]>();
  for (const e of graph.edges) dependsOn.set(e.resource, [...(dependsOn.get(e.resource) ?? []), e.dependsOn]);
  const waiting = gateCreates(graph, states).held.map((h) => ({ resource: h.resource, reason: h.reason }));
  return {
    apiVersion,
    kind: 'Order',
    dependencies: [...dependsOn].map(([resource, on]) => ({ resource, dependsOn: on })),
    createWaves: createWaves(graph, Object.keys(desired)),
    deleteWaves: deleteWaves(graph, states.keys()),
    waiting,
  };
}
