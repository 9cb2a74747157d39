import type { ResourceRef } from '../xr.js';
import { graphOf, type Graph } from './graph.js';

// The graph persisted in an XR's resourceRefs, so teardown runs in order without the pipeline: a controller that
// never ran the pipeline for an XR (after a restart, or another replica) rebuilds the graph from the references.
// Each entry carries its composition resource name and the names it depends on, the two fields
// crossplane-runtime's prototype (`reference.Composed`) adds: `resourceName` and `dependsOn`.

/** A resourceRefs entry with the ordering fields. */
export interface OrderedRef extends ResourceRef {
  /** The composition resource name (the key of State.resources). */
  resourceName?: string;
  /** Composition resource names this one depends on, sorted; absent when none. */
  dependsOn?: string[];
}

/**
 * The references with their names and what each depends on among them. Edges to a name not referenced are left out
 * (nothing of it exists to order against); create-before-destroy is not persisted, since it only matters while the
 * replacement is desired, which a teardown without the pipeline never sees.
 *
 * @example
 * orderedRefs([{ ref: subnetRef, name: 'subnet' }, { ref: vpcRef, name: 'vpc' }], graph)
 * // [{ ...subnetRef, resourceName: 'subnet', dependsOn: ['vpc'] }, { ...vpcRef, resourceName: 'vpc' }]
 */
export function orderedRefs(entries: readonly { ref: ResourceRef; name: string }[], graph: Graph): OrderedRef[] {
  const names = new Set(entries.map((e) => e.name));
  const deps = new Map<string, Set<string>>();
  for (const e of graph.edges) {
    if (names.has(e.dependsOn)) deps.set(e.resource, (deps.get(e.resource) ?? new Set()).add(e.dependsOn));
  }
  return entries.map(({ ref, name }) => {
    const out: OrderedRef = { ...ref, resourceName: name };
    const on = deps.get(name);
    if (on !== undefined && on.size > 0) out.dependsOn = [...on].sort();
    return out;
  });
}

export interface RefGraph {
  graph: Graph;
  /** References by resourceName. */
  named: Map<string, OrderedRef>;
  /** References without graph data (written without ordering, or by an earlier release), or with a name twice:
   * torn down as without ordering. */
  unnamed: OrderedRef[];
}

const isName = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * The graph read back from resourceRefs. resourceRefs is the user's to edit, so malformed entries are tolerated:
 * a `dependsOn` that is not a list of names is ignored, and so is an edge to a name no reference carries. A cycle is
 * not resolved here: the caller validates the graph and reports it.
 */
export function graphOfRefs(refs: readonly ResourceRef[]): RefGraph {
  const all = refs as readonly OrderedRef[];
  const count = new Map<string, number>();
  for (const ref of all)
    if (isName(ref.resourceName)) count.set(ref.resourceName, (count.get(ref.resourceName) ?? 0) + 1);
  const named = new Map<string, OrderedRef>();
  const unnamed: OrderedRef[] = [];
  for (const ref of all) {
    if (isName(ref.resourceName) && count.get(ref.resourceName) === 1) named.set(ref.resourceName, ref);
    else unnamed.push(ref);
  }
  const pairs = [...named].flatMap(([name, ref]) =>
    (Array.isArray(ref.dependsOn) ? ref.dependsOn : [])
      .filter((on): on is string => isName(on) && named.has(on))
      .map((on) => ({ resource: name, composedResource: on })),
  );
  return { graph: graphOf(pairs), named, unnamed };
}
