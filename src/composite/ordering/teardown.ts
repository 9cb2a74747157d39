import type { Hold, ResourceState } from './gate.js';
import { DependencyCycleError, dependenciesByName, dependentsByName, findCycle, type Graph } from './graph.js';

// Delete order: a composed resource is deleted once nothing that depends on it remains, so an XR is torn down in
// reverse topological order, one wave per reconcile as the previous wave disappears. The same rule serves garbage
// collection (what the pipeline stopped desiring) and the XR's own deletion (everything).

export interface DeleteGate {
  /** Candidates that may be deleted now, sorted. */
  delete: string[];
  /** Candidates held back, sorted by name. */
  held: Hold[];
}

const gone = (s: ResourceState | undefined): boolean => s?.observed !== true;

interface Waits {
  waiting: string[];
  replacing: string[];
  kept: string[];
}

function waitsFor(
  name: string,
  dependents: readonly string[],
  states: ReadonlyMap<string, ResourceState>,
  cbd: ReadonlySet<string>,
): Waits {
  const w: Waits = { waiting: [], replacing: [], kept: [] };
  for (const dep of dependents) {
    const s = states.get(dep);
    // Create-before-destroy: while the replacement is desired it must exist and be Ready first. Checked before the
    // not-observed case: a replacement not created yet is the reason to wait. A dependent that is itself going away
    // is an ordinary edge (upstream's prototype would wait for a replacement that never comes).
    if (s?.desired === true && cbd.has(`${dep}->${name}`)) {
      if (!s.observed || !s.ready) w.replacing.push(dep);
      continue;
    }
    if (gone(s)) continue;
    w.waiting.push(dep);
    if (s?.desired === true) w.kept.push(dep);
  }
  return w;
}

function holdOf(name: string, w: Waits): Hold | undefined {
  if (w.kept.length > 0) {
    return {
      resource: name,
      waitsOn: w.kept,
      reason: `cannot be deleted: the pipeline still desires ${w.kept.join(', ')}, which depends on it`,
      deadlocked: true,
    };
  }
  const reasons: string[] = [];
  if (w.waiting.length > 0) reasons.push(`waits for ${w.waiting.join(', ')} to be deleted`);
  if (w.replacing.length > 0) reasons.push(`waits for ${w.replacing.join(', ')} to be created and Ready`);
  if (reasons.length === 0) return undefined;
  return {
    resource: name,
    waitsOn: [...w.waiting, ...w.replacing].sort(),
    reason: reasons.join('; '),
    deadlocked: false,
  };
}

/**
 * Which of `candidates` (present resources to delete) may be deleted now. A name the graph does not know (a
 * reference written without graph data) has no dependents, so it goes at once, as without ordering.
 *
 * @example
 * gateDeletes(graph, states, ['vpc', 'subnet']).delete // ['subnet'] while subnet depends on vpc
 */
export function gateDeletes(
  graph: Graph,
  states: ReadonlyMap<string, ResourceState>,
  candidates: Iterable<string>,
): DeleteGate {
  const dependents = dependentsByName(graph);
  const cbd = new Set(graph.edges.filter((e) => e.createBeforeDestroy).map((e) => `${e.resource}->${e.dependsOn}`));
  const out: DeleteGate = { delete: [], held: [] };
  for (const name of [...new Set(candidates)].sort()) {
    const hold = holdOf(name, waitsFor(name, dependents.get(name) ?? [], states, cbd));
    if (hold === undefined) out.delete.push(name);
    else out.held.push(hold);
  }
  return out;
}

/** Kahn's layering of `names` along `next` (what must come before each name), each layer sorted. */
function layers(names: Iterable<string>, before: ReadonlyMap<string, readonly string[]>): string[][] {
  const set = new Set(names);
  const pending = new Map<string, number>();
  const after = new Map<string, string[]>();
  for (const name of set) {
    const firsts = (before.get(name) ?? []).filter((b) => set.has(b) && b !== name);
    pending.set(name, firsts.length);
    for (const b of firsts) after.set(b, [...(after.get(b) ?? []), name]);
  }
  const out: string[][] = [];
  let layer = [...set].filter((n) => pending.get(n) === 0).sort();
  while (layer.length > 0) {
    out.push(layer);
    const next: string[] = [];
    for (const done of layer) {
      for (const n of after.get(done) ?? []) {
        const left = (pending.get(n) ?? 0) - 1;
        pending.set(n, left);
        if (left === 0) next.push(n);
      }
    }
    layer = next.sort();
  }
  return out;
}

function acyclic(graph: Graph): void {
  const cycle = findCycle(graph);
  if (cycle !== undefined) throw new DependencyCycleError(cycle);
}

/** Creation waves of `names`: the first holds what depends on nothing among them. Throws on a cycle. */
export function createWaves(graph: Graph, names: Iterable<string>): string[][] {
  acyclic(graph);
  return layers(names, dependenciesByName(graph));
}

/** Deletion waves of `names`, the reverse order: the first holds what nothing among them depends on. */
export function deleteWaves(graph: Graph, names: Iterable<string>): string[][] {
  acyclic(graph);
  return layers(names, dependentsByName(graph));
}
