import { dependenciesByName, type Graph, type RequiredEdge } from './graph.js';

// Create gating: which desired composed resources may be applied this reconcile. Upstream's rule: a resource that
// exists is applied whatever its edges say (ordering gates creation, not updates, so an operator can always push a
// fix); one that does not exist yet waits until everything it depends on is Ready by the pipeline's own verdict.

/** What the reconciler knows of one composed resource, by composition resource name. */
export interface ResourceState {
  /** In the pipeline's final desired state. */
  desired: boolean;
  /** Exists (listed in resourceRefs and found); a resource being deleted still exists. */
  observed: boolean;
  /** The pipeline's readiness verdict (desired resources only). */
  ready: boolean;
}

/** A resource a requirement matched, and whether it counts as ready (see `requiredObjectReady`). */
export interface RequiredMatch {
  name: string;
  namespace?: string;
  ready: boolean;
}

/** Why a resource is not applied, or not deleted, this reconcile. */
export interface Hold {
  resource: string;
  /** What it waits on, sorted: composition resource names and "requirement <name>". */
  waitsOn: string[];
  /** "waits on a, b", or why waiting cannot help. */
  reason: string;
  /** Waiting cannot resolve it: the pipeline's desired state and the graph contradict each other. */
  deadlocked: boolean;
}

export interface CreateGate {
  /** Desired resources that may be applied, sorted. */
  apply: string[];
  /** Desired resources held back, sorted by name. */
  held: Hold[];
}

interface Condition {
  type?: unknown;
  status?: unknown;
}

/**
 * Whether an object a step required counts as ready for an edge to it: its Ready condition is True, or it has no
 * Ready condition at all (a ConfigMap, a Secret), where existing is all the readiness it has (upstream's rule).
 */
export function requiredObjectReady(object: { status?: { conditions?: unknown } }): boolean {
  const conditions = Array.isArray(object.status?.conditions) ? (object.status.conditions as Condition[]) : [];
  const ready = conditions.find((c) => c.type === 'Ready');
  return ready === undefined || ready.status === 'True';
}

function requiredWait(edge: RequiredEdge, required: ReadonlyMap<string, readonly RequiredMatch[]>): boolean {
  const matches = required.get(edge.requirement) ?? [];
  // A requirement that matched nothing is not vacuously satisfied: what is waited for is not there yet.
  if (matches.length === 0) return true;
  if (edge.name === undefined) return matches.some((m) => !m.ready);
  const match = matches.find((m) => m.name === edge.name && (m.namespace ?? '') === (edge.namespace ?? ''));
  return match?.ready !== true;
}

function holdFor(
  name: string,
  composed: readonly string[],
  states: ReadonlyMap<string, ResourceState>,
  createBeforeDestroy: ReadonlySet<string>,
): { waits: string[]; leaving: string[] } {
  const waits: string[] = [];
  const leaving: string[] = [];
  for (const dep of composed) {
    const s = states.get(dep);
    // A replacement need not wait for its predecessor to go away.
    if (s?.desired !== true && createBeforeDestroy.has(`${name}->${dep}`)) continue;
    // Dropped from desired but still there: it will never be Ready again and cannot go while this one wants it.
    if (s?.desired !== true && s?.observed === true) leaving.push(dep);
    else if (s?.desired !== true || !s.ready) waits.push(dep);
  }
  return { waits, leaving };
}

/**
 * The create gate for every desired resource.
 *
 * @example
 * gateCreates(graphOf([{ resource: 'subnet', composedResource: 'vpc' }]), states).held
 * // [{ resource: 'subnet', waitsOn: ['vpc'], reason: 'waits on vpc', deadlocked: false }] while vpc is not Ready
 */
export function gateCreates(
  graph: Graph,
  states: ReadonlyMap<string, ResourceState>,
  required: ReadonlyMap<string, readonly RequiredMatch[]> = new Map(),
): CreateGate {
  const deps = dependenciesByName(graph);
  const cbd = new Set(graph.edges.filter((e) => e.createBeforeDestroy).map((e) => `${e.resource}->${e.dependsOn}`));
  const apply: string[] = [];
  const held: Hold[] = [];
  for (const name of [...states.keys()].sort()) {
    const s = states.get(name);
    if (s?.desired !== true) continue;
    if (s.observed) {
      apply.push(name);
      continue;
    }
    const { waits, leaving } = holdFor(name, deps.get(name) ?? [], states, cbd);
    for (const edge of graph.required) {
      if (edge.resource === name && requiredWait(edge, required)) waits.push(`requirement ${edge.requirement}`);
    }
    if (leaving.length > 0) {
      const why = leaving.map((d) => `${d} is being deleted by the pipeline`).join('; ');
      held.push({ resource: name, waitsOn: leaving, reason: `cannot be created: ${why}`, deadlocked: true });
    } else if (waits.length > 0) {
      const waitsOn = [...new Set(waits)].sort();
      held.push({ resource: name, waitsOn, reason: `waits on ${waitsOn.join(', ')}`, deadlocked: false });
    } else {
      apply.push(name);
    }
  }
  return { apply, held };
}
