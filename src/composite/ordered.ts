import type { XrType } from '../controller/index.js';
import type { PipelineOutput, Resources } from '../functions/index.js';
import type { EventInput } from '../kube/index.js';
import type { ComposedObject } from './composed.js';
import type { DesiredResource } from './composedClient.js';
import { refOf } from './desired.js';
import { sortedResourceRefs } from './fieldOwners.js';
import {
  deleteWaves,
  DependencyCycleError,
  edgeList,
  graphOfRefs,
  orderedRefs,
  planCompose,
  planTeardown,
  requiredObjectReady,
  teardownMessage,
  waveMessage,
  type ComposePlan,
  type RequiredMatch,
  type TeardownPlan,
} from './ordering/index.js';
import type { ResourceRef } from './xr.js';

// A compose pass with composed resource ordering on (docs/ordering.md): what the graph the pipeline declared lets
// this reconcile apply, delete and reference, and what the XR is told about it.

interface Meta {
  name?: string;
  namespace?: string;
}

/** What each requirement matched, as the gate reads it. */
function matches(sent: ReadonlyMap<string, Resources>): Map<string, RequiredMatch[]> {
  const out = new Map<string, RequiredMatch[]>();
  for (const [requirement, resources] of sent) {
    out.set(
      requirement,
      (resources.items ?? []).map((item) => {
        const object = (item.resource ?? {}) as { metadata?: Meta; status?: { conditions?: unknown } };
        const match: RequiredMatch = { name: object.metadata?.name ?? '', ready: requiredObjectReady(object) };
        if (object.metadata?.namespace) match.namespace = object.metadata.namespace;
        return match;
      }),
    );
  }
  return out;
}

/** Requirement names any step declared: in its responses, or sent to it (bootstrap requirements). */
function declared(out: PipelineOutput, sent: ReadonlyMap<string, Resources>): Set<string> {
  const names = new Set(sent.keys());
  for (const r of Object.values(out.requirements)) {
    for (const name of Object.keys({ ...r.resources, ...r.extraResources })) names.add(name);
  }
  return names;
}

/** The plan of this pass; throws on a cycle or an invalid dependency (the pass fails, nothing is written). */
export function planPass(
  pass: { out: PipelineOutput; desired: readonly DesiredResource[]; sent: ReadonlyMap<string, Resources> },
  observed: ReadonlyMap<string, ComposedObject>,
  refs: readonly ResourceRef[],
): ComposePlan {
  return planCompose({
    persisted: graphOfRefs(refs).graph,
    desired: pass.desired,
    observed,
    dependencies: pass.out.dependencies ?? [],
    requirements: declared(pass.out, pass.sent),
    required: matches(pass.sent),
  });
}

/** The observed resources garbage collection may see: those held back from deletion are left out. */
export function collectable(
  observed: ReadonlyMap<string, ComposedObject>,
  plan: ComposePlan,
  desired: readonly DesiredResource[],
): Map<string, ComposedObject> {
  const wanted = new Set(desired.map((d) => d.name));
  return new Map([...observed].filter(([name]) => wanted.has(name) || plan.deletable.has(name)));
}

/**
 * resourceRefs with the graph: what is applied or exists, and what is still there though undesired (a deferred
 * deletion stays referenced, or it would never be observed, collected or reported again).
 */
export function plannedRefs(
  desired: readonly DesiredResource[],
  observed: ReadonlyMap<string, ComposedObject>,
  plan: ComposePlan,
  xrType: XrType,
): ResourceRef[] {
  const entries = desired
    .filter((d) => plan.referenced.has(d.name))
    .map(({ name, object }) => ({ ref: refOf(object, xrType), name }));
  const wanted = new Set(desired.map((d) => d.name));
  for (const [name, object] of observed) {
    if (!wanted.has(name)) entries.push({ ref: refOf(object, xrType), name });
  }
  return sortedResourceRefs(orderedRefs(entries, plan.graph));
}

/**
 * The events of this pass: pruned edges (upstream's words), a garbage collection wave when the graph orders it, and
 * one Warning per contradiction that waiting cannot resolve.
 */
export function planEvents(
  plan: ComposePlan,
  observed: ReadonlyMap<string, ComposedObject>,
  desired: readonly DesiredResource[],
): EventInput[] {
  const events: EventInput[] = [];
  if (plan.pruned.length > 0) {
    const message = `Ignored ${plan.pruned.length} dependency edge(s) naming resources that are neither desired nor observed: ${edgeList(plan.pruned)}`;
    events.push({ type: 'Normal', reason: 'ComposeResources', message });
  }
  const fresh = [...plan.deletable].filter((name) => observed.get(name)?.metadata.deletionTimestamp === undefined);
  if (fresh.length > 0 && plan.graph.edges.length > 0) {
    const wanted = new Set(desired.map((d) => d.name));
    const waves = deleteWaves(
      plan.graph,
      [...observed.keys()].filter((name) => !wanted.has(name)),
    );
    events.push({
      type: 'Normal',
      reason: 'ComposeResources',
      message: waveMessage(fresh, Math.max(0, waves.length - 1)),
    });
  }
  for (const hold of plan.held) {
    if (!hold.deadlocked) continue;
    const message = `composed resource "${hold.resource}" ${hold.reason}; the pipeline's desired state and its dependencies contradict each other`;
    events.push({ type: 'Warning', reason: 'ComposeResources', message });
  }
  return events;
}

/** One reconcile of an XR being deleted in order: what to delete now, and what to say. */
export interface Teardown {
  /** Composed resources to delete now (not already being deleted). */
  doomed: (readonly [string, ComposedObject])[];
  /** The Ready condition's message: what waits for what. */
  message: string | undefined;
  events: EventInput[];
  /** The graph in resourceRefs could not be used (a cycle): nothing is deleted, the XR says why. */
  refused?: string;
}

/**
 * The teardown step from the graph persisted in resourceRefs alone (the pipeline does not run for an XR being
 * deleted): the next wave is deleted once the one before is gone; one without graph data goes at once.
 */
export function teardownStep(
  refs: readonly ResourceRef[],
  ours: readonly (readonly [string, ComposedObject])[],
): Teardown {
  let plan: TeardownPlan;
  try {
    plan = planTeardown(refs, new Map(ours));
  } catch (err) {
    if (!(err instanceof DependencyCycleError)) throw err;
    const refused = `cannot delete composed resources in order: ${err.message}`;
    return {
      doomed: [],
      message: refused,
      events: [{ type: 'Warning', reason: 'DeleteCompositeResource', message: refused }],
      refused,
    };
  }
  const doomed = ours.filter(([name, object]) => plan.deletable.has(name) && !object.metadata.deletionTimestamp);
  const events: EventInput[] = [];
  if (doomed.length > 0 && plan.graph.edges.length > 0) {
    const message = waveMessage(
      doomed.map(([name]) => name),
      Math.max(0, plan.waves.length - 1),
    );
    events.push({ type: 'Normal', reason: 'DeleteCompositeResource', message });
  }
  const deleting = ours
    .filter(([, object]) => object.metadata.deletionTimestamp !== undefined)
    .map(([name, object]) => ({ name, deletionTimestamp: object.metadata.deletionTimestamp }));
  const message = plan.held.length + deleting.length > 0 ? teardownMessage(plan.held, deleting) : undefined;
  return { doomed, message, events };
}
