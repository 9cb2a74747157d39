import type { Dependency } from '../../functions/index.js';
import type { ResourceRef } from '../xr.js';
import { gateCreates, type Hold, type RequiredMatch, type ResourceState } from './gate.js';
import { graphOf, validateGraph, type Edge, type Graph } from './graph.js';
import { graphOfRefs } from './refs.js';
import { deleteWaves, gateDeletes } from './teardown.js';

// What ordering lets one reconcile do, in the terms of a compose pass: which desired resources to apply, which
// undesired ones to delete, which to reference. The reconciler asks once per pass and does only that.

/** An observed composed resource, as far as ordering reads it. */
export interface PresentResource {
  metadata: { deletionTimestamp?: string };
}

export interface ComposePlanInput {
  /** The pipeline's final desired resources with its readiness verdict. */
  desired: readonly { name: string; ready: boolean }[];
  /** The observed composed resources by composition resource name. */
  observed: ReadonlyMap<string, PresentResource>;
  /** The dependencies the pipeline accumulated. */
  dependencies: readonly Dependency[];
  /** Requirement names any step declared (for edges to required resources). */
  requirements?: ReadonlySet<string>;
  /** What each requirement matched, and whether each counts as ready. */
  required?: ReadonlyMap<string, readonly RequiredMatch[]>;
  /**
   * The graph persisted in resourceRefs by earlier passes. Its edges from resources the pipeline no longer desires
   * are kept, so garbage collection runs in order even when a function stops declaring a resource and its edges
   * together; edges between desired resources are the pipeline's to retract.
   */
  persisted?: Graph;
}

export interface ComposePlan {
  graph: Graph;
  /** Edges naming what is neither desired nor observed, dropped (report them). */
  pruned: Edge[];
  /** Desired resources that may be applied now. */
  apply: ReadonlySet<string>;
  /** Undesired observed resources that may be deleted now. */
  deletable: ReadonlySet<string>;
  /** Everything held back, creation and deletion, sorted by name. */
  held: Hold[];
  /**
   * Names to keep in resourceRefs: what may be applied or exists, and every undesired resource still there (a
   * deferred deletion must stay referenced or it is never observed, collected or reported again). A resource held
   * back from creation is not referenced: nothing of it exists.
   */
  referenced: ReadonlySet<string>;
}

const byResource = (a: Hold, b: Hold): number => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0);

/**
 * The plan of one compose pass. Throws DependencyCycleError or InvalidDependencyError (the pass fails, nothing is
 * applied or deleted).
 */
export function planCompose(input: ComposePlanInput): ComposePlan {
  const states = new Map<string, ResourceState>();
  for (const d of input.desired)
    states.set(d.name, { desired: true, observed: input.observed.has(d.name), ready: d.ready });
  for (const name of input.observed.keys()) {
    if (!states.has(name)) states.set(name, { desired: false, observed: true, ready: false });
  }
  const kept = (input.persisted?.edges ?? [])
    .filter((e) => states.get(e.resource)?.desired !== true)
    .map((e) => ({ resource: e.resource, composedResource: e.dependsOn }));
  const declared = graphOf([...input.dependencies, ...kept]);
  const { graph, pruned } = validateGraph(declared, new Set(states.keys()), input.requirements);
  const creates = gateCreates(graph, states, input.required);
  const undesired = [...input.observed.keys()].filter((name) => states.get(name)?.desired !== true);
  const deletes = gateDeletes(graph, states, undesired);
  const apply = new Set(creates.apply);
  return {
    graph,
    pruned,
    apply,
    deletable: new Set(deletes.delete),
    held: [...creates.held, ...deletes.held].sort(byResource),
    referenced: new Set([...apply, ...input.observed.keys()]),
  };
}

export interface TeardownPlan {
  graph: Graph;
  /** Present resources that may be deleted now (some may be deleting already). */
  deletable: ReadonlySet<string>;
  held: Hold[];
  /** The remaining deletion waves, first the one under way. */
  waves: string[][];
}

/**
 * The plan of one reconcile of an XR being deleted, from the graph persisted in its resourceRefs alone (the pipeline
 * does not run). `present` is every composed resource still there, by composition resource name; one without graph
 * data is deletable at once. Throws DependencyCycleError for a cycle written into resourceRefs.
 */
export function planTeardown(
  refs: readonly ResourceRef[],
  present: ReadonlyMap<string, PresentResource>,
): TeardownPlan {
  const states = new Map<string, ResourceState>(
    [...present.keys()].map((n) => [n, { desired: false, observed: true, ready: false }]),
  );
  const { graph } = validateGraph(graphOfRefs(refs).graph, new Set(states.keys()));
  const gate = gateDeletes(graph, states, states.keys());
  return { graph, deletable: new Set(gate.delete), held: gate.held, waves: deleteWaves(graph, states.keys()) };
}
