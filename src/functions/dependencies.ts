// How ordering constraints (the protocol's `dependencies`) accumulate through a pipeline, as desired state does:
// each step is sent the set so far and returns the whole set it wants, and a step that leaves the field unset has no
// opinion, so the set is carried forward for it. Functions built before the field existed cannot echo it; treating
// unset as empty would let any one of them erase every constraint declared before it.
import type { Dependency, RunFunctionResponse, State } from './types.js';

/** One key per edge: the resource and what it depends on (a composed resource, or one a step required). */
export function dependencyKey(d: Dependency): string {
  const r = d.requiredResource;
  const target =
    r === undefined
      ? `composed/${d.composedResource ?? ''}`
      : `required/${r.requirementName ?? ''}/${r.namespace ?? ''}/${r.name ?? ''}`;
  return `${d.resource ?? ''}->${target}`;
}

/**
 * The set after one step. Unset in the response: the previous set, unchanged. Set: the response's set, plus every
 * previous edge it dropped whose composed target the step also dropped from desired state while it is still observed.
 * That is a deletion pending, the one moment the garbage collector needs the edge; a function that stops desiring a
 * resource naturally stops declaring its edges too (upstream's retention rule).
 */
export function nextDependencies(
  previous: readonly Dependency[],
  response: RunFunctionResponse,
  observed: State,
): Dependency[] {
  if (response.dependencies === undefined) return [...previous];
  const next = [...(response.dependencies.items ?? [])];
  const kept = new Set(next.map(dependencyKey));
  const desired = response.desired?.resources ?? {};
  const present = observed.resources ?? {};
  for (const edge of previous) {
    const target = edge.composedResource;
    if (target === undefined || kept.has(dependencyKey(edge))) continue;
    if (!Object.hasOwn(desired, target) && Object.hasOwn(present, target)) {
      next.push(edge);
      kept.add(dependencyKey(edge));
    }
  }
  return next;
}
