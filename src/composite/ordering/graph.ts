import type { Dependency } from '../../functions/index.js';

// The dependency graph of one XR's composed resources, by composition resource name, built from the pairs the
// pipeline declared (the protocol's `dependencies`) or read back from resourceRefs. Pure: no clock, no client.

/** `resource` is created after, and deleted before, `dependsOn`; both are composition resource names. */
export interface Edge {
  resource: string;
  dependsOn: string;
  /** `resource` may be created before `dependsOn` is deleted, and must be Ready before it is. */
  createBeforeDestroy: boolean;
}

/** `resource` is created only once the resources a step required under `requirement` are ready. */
export interface RequiredEdge {
  resource: string;
  requirement: string;
  /** One matched resource; absent means every one the requirement matched. */
  name?: string;
  namespace?: string;
}

export interface Graph {
  /** Sorted by resource then dependsOn, one per pair. */
  edges: readonly Edge[];
  /** Sorted by resource then requirement; creation order only (the engine never deletes what it did not compose). */
  required: readonly RequiredEdge[];
}

export const EMPTY_GRAPH: Graph = { edges: [], required: [] };

/** A dependency the protocol cannot mean: no resource, no target, or both targets. Names what it saw. */
export class InvalidDependencyError extends Error {
  constructor(
    readonly dependency: Dependency,
    detail: string,
  ) {
    super(`invalid composed resource dependencies: ${detail}`);
    this.name = 'InvalidDependencyError';
  }
}

/** The declared graph has a cycle; `cycle` starts and ends with the same name. */
export class DependencyCycleError extends Error {
  constructor(readonly cycle: readonly string[]) {
    // Upstream's prototype words it so (its Go %v of the path).
    super(`invalid composed resource dependencies: dependency cycle: [${cycle.join(' ')}]`);
    this.name = 'DependencyCycleError';
  }
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function requiredEdgeOf(d: Dependency, resource: string): RequiredEdge {
  const r = d.requiredResource ?? {};
  if (!r.requirementName) throw new InvalidDependencyError(d, `"${resource}" depends on a requirement without a name`);
  if (d.createResourceBeforeDestroyingDependency === true) {
    // Nothing the engine did not compose is ever deleted, so there is no delete order to relax.
    throw new InvalidDependencyError(
      d,
      `"${resource}" sets create-before-destroy on requirement "${r.requirementName}", which only composed resources allow`,
    );
  }
  const edge: RequiredEdge = { resource, requirement: r.requirementName };
  if (r.name) edge.name = r.name;
  if (r.namespace) edge.namespace = r.namespace;
  return edge;
}

/**
 * The graph of the declared pairs. Duplicates collapse (create-before-destroy if any copy says so); a self-dependency
 * is kept and reported by `findCycle`.
 *
 * @example
 * graphOf([{ resource: 'subnet', composedResource: 'vpc' }]).edges // [{ resource: 'subnet', dependsOn: 'vpc', ... }]
 */
export function graphOf(dependencies: readonly Dependency[]): Graph {
  const edges = new Map<string, Edge>();
  const required = new Map<string, RequiredEdge>();
  for (const d of dependencies) {
    const resource = d.resource ?? '';
    if (resource === '') throw new InvalidDependencyError(d, 'a dependency names no resource');
    const composed = d.composedResource ?? '';
    if (composed !== '' && d.requiredResource !== undefined) {
      throw new InvalidDependencyError(d, `"${resource}" depends on both a composed and a required resource`);
    }
    if (d.requiredResource !== undefined) {
      const edge = requiredEdgeOf(d, resource);
      required.set(JSON.stringify([edge.resource, edge.requirement, edge.namespace, edge.name]), edge);
      continue;
    }
    if (composed === '') throw new InvalidDependencyError(d, `"${resource}" depends on nothing`);
    const key = JSON.stringify([resource, composed]);
    const cbd = d.createResourceBeforeDestroyingDependency === true || edges.get(key)?.createBeforeDestroy === true;
    edges.set(key, { resource, dependsOn: composed, createBeforeDestroy: cbd });
  }
  return {
    edges: [...edges.values()].sort((a, b) => byText(a.resource, b.resource) || byText(a.dependsOn, b.dependsOn)),
    required: [...required.values()].sort(
      (a, b) => byText(a.resource, b.resource) || byText(a.requirement, b.requirement),
    ),
  };
}

/** What each name depends on (composed edges only), each list sorted. */
export function dependenciesByName(graph: Graph): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of graph.edges) out.set(e.resource, [...(out.get(e.resource) ?? []), e.dependsOn]);
  return out;
}

/** What depends on each name (composed edges only), each list sorted. */
export function dependentsByName(graph: Graph): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of graph.edges) out.set(e.dependsOn, [...(out.get(e.dependsOn) ?? []), e.resource]);
  for (const list of out.values()) list.sort(byText);
  return out;
}

/**
 * A cycle of the composed edges as the path that closes it (`[a, b, a]`), or undefined for a DAG. Deterministic:
 * names are visited in sorted order, so the same graph always names the same cycle. Iterative, so a long chain
 * cannot exhaust the stack.
 */
export function findCycle(graph: Graph): string[] | undefined {
  const deps = dependenciesByName(graph);
  const done = new Set<string>();
  const names = [...new Set(graph.edges.flatMap((e) => [e.resource, e.dependsOn]))].sort(byText);
  for (const start of names) {
    if (done.has(start)) continue;
    const path: string[] = [start];
    const onPath = new Set<string>([start]);
    const next: number[] = [0];
    while (path.length > 0) {
      const top = path.length - 1;
      const name = path[top] ?? '';
      const children = deps.get(name) ?? [];
      const i = next[top] ?? 0;
      if (i >= children.length) {
        done.add(name);
        onPath.delete(name);
        path.pop();
        next.pop();
        continue;
      }
      next[top] = i + 1;
      const child = children[i] ?? '';
      if (onPath.has(child)) return [...path.slice(path.indexOf(child)), child];
      if (done.has(child)) continue;
      path.push(child);
      onPath.add(child);
      next.push(0);
    }
  }
  return undefined;
}

export interface Validated {
  graph: Graph;
  /** Edges dropped because a name is neither desired nor observed: a finished teardown, or a typo. */
  pruned: Edge[];
}

/**
 * The graph the engine acts on: edges naming a resource that is neither desired nor observed are pruned, as
 * upstream's prototype does (a function returning fixed rules keeps declaring edges for resources long deleted, and a
 * typo looks the same), then a cycle is an error naming it. A requirement no step declared is an error too.
 */
export function validateGraph(
  graph: Graph,
  known: ReadonlySet<string>,
  requirements: ReadonlySet<string> = new Set(),
): Validated {
  const pruned: Edge[] = [];
  const edges: Edge[] = [];
  for (const e of graph.edges) (known.has(e.resource) && known.has(e.dependsOn) ? edges : pruned).push(e);
  const required: RequiredEdge[] = [];
  for (const r of graph.required) {
    if (!requirements.has(r.requirement)) {
      throw new InvalidDependencyError(
        { resource: r.resource, requiredResource: { requirementName: r.requirement } },
        `"${r.resource}" depends on requirement "${r.requirement}", which no step declared`,
      );
    }
    if (known.has(r.resource)) required.push(r);
  }
  const kept: Graph = { edges, required };
  const cycle = findCycle(kept);
  if (cycle !== undefined) throw new DependencyCycleError(cycle);
  return { graph: kept, pruned };
}

/** "a -> b, c -> d": pruned edges for an event, sorted, each once. */
export function edgeList(edges: readonly Edge[]): string {
  return [...new Set(edges.map((e) => `${e.resource} -> ${e.dependsOn}`))].sort(byText).join(', ');
}
