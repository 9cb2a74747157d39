import { distinctKinds } from '../apis/index.js';
import { isApplied, type StatusDraft, type Xr, type XrType } from '../controller/index.js';
import type { PipelineOutput, Resources } from '../functions/index.js';
import type { Discovery, EventInput, EventSink } from '../kube/index.js';
import { withoutManagedFields, type ComposedObject } from './composed.js';
import type { ComposedCache } from './composedCache.js';
import type { Applied, ComposedResources, DesiredResource } from './composedClient.js';
import type { CompositionSelector } from './compositionSelector.js';
import { defaultSecretRef } from './connection.js';
import { refOf, renderDesired } from './desired.js';
import { sortedResourceRefs } from './fieldOwners.js';
import type { CompositionPipeline } from './functionPipeline.js';
import { collectable, planEvents, plannedRefs, planPass } from './ordered.js';
import type { ComposePlan, Hold } from './ordering/index.js';
import type { RequiredWatch } from './requiredResources.js';
import type { ResultPublisher } from './resultPublisher.js';
import type { RevisionObject } from './selection.js';
import { machineryOf, type ResourceRef } from './xr.js';
import type { XrWriter } from './xrWriter.js';

/** The steps of a compose pass, each behind its interface; the reconciler builds working defaults. */
export interface CompositeSteps {
  selector: CompositionSelector;
  pipeline: CompositionPipeline;
  resources: ComposedResources;
  writer: XrWriter;
  publisher: ResultPublisher;
}

/** What one compose pass produced, for conditions and the requeue decision. */
export interface Composed {
  ttlMs: number | undefined;
  unready: string[];
  unsynced: string[];
  /** Whether any composed resource was written. */
  wrote: boolean;
  /**
   * Whether what was written has been looked at already, in this reconcile (the settling pass): the outcome above
   * is what the next reconcile would find, so none is needed.
   */
  settled: boolean;
  /** What those writes returned, for those whose echo is tracked: the next look waits for their echoes. */
  written: ComposedObject[];
  readyOverride: 'READY_TRUE' | 'READY_FALSE' | undefined;
  /** With ordering: desired resources the graph holds back from creation, and what each waits on. */
  waiting: Hold[];
  /** With ordering: resources the graph and desired state hold back for good (docs/ordering.md). */
  deadlocked: Hold[];
}

/** One run of the pipeline and the desired resources it rendered. */
interface Pass {
  out: PipelineOutput;
  desired: DesiredResource[];
  required: RequiredWatch[];
  /** What each requirement name was last sent, for ordering's edges to required resources. */
  sent: Map<string, Resources>;
}

export interface ComposerOptions {
  steps: CompositeSteps;
  xrType: XrType;
  composed: ComposedCache;
  discovery: Discovery;
  events: EventSink;
  /** resourceRefs an XR may list (--max-composed-resources); 0 means no limit. */
  maxComposedResources: number;
  /** --enable-composed-resource-ordering: create, delete and reference as the declared graph allows. */
  ordering?: boolean;
}

/**
 * One compose pass of an XR that is neither paused nor being deleted (docs/architecture.md#the-reconcile-order-of-an-xr,
 * steps 6 to 14): select, observe, run the pipeline, render, collect garbage, store resourceRefs, watch, apply, then
 * copy what the pipeline said about the XR into its status draft. When it wrote composed resources, it runs the
 * pipeline once more over what the writes returned (the settling pass), as the next reconcile would over its caches:
 * when that pass desires exactly what was written, its readiness, XR status, conditions and events are this
 * reconcile's, and no second reconcile is needed to see the writes.
 */
export class Composer {
  constructor(private readonly options: ComposerOptions) {}

  async compose(key: string, xr: Xr, status: StatusDraft, signal: AbortSignal): Promise<Composed> {
    const { steps, xrType } = this.options;
    const machinery = machineryOf(xr, xrType.legacy);
    const selected = await steps.selector.select(xr, machinery, signal);
    const secretRef = xrType.legacy ? defaultSecretRef(xr, selected.revision) : undefined;
    if (secretRef) selected.machinery.writeConnectionSecretToRef = secretRef;
    const observed = await steps.resources.observe(xr, this.refsToObserve(machinery.resourceRefs));
    const first = await this.pass(xr, selected.revision, observed, signal).catch(async (err: unknown) => {
      // As upstream, the selection is stored even when the pipeline fails (a Function missing or unhealthy): the
      // XR records which Composition and revision it follows, and keeps the refs it has. Only the pipeline's error
      // is reported; a machinery write that fails too is retried with it.
      await steps.writer
        .applyMachinery(xr, { ...selected.machinery, resourceRefs: machinery.resourceRefs }, signal)
        .catch(() => undefined);
      throw err;
    });

    const { plan, collect, refs, toApply } = this.writes(first, observed, machinery.resourceRefs ?? []);
    await steps.resources.collectGarbage(xr, collect, first.desired, signal);
    // The refs are stored before any composed resource is created, so a crash never leaves an untracked resource.
    await steps.writer.applyMachinery(xr, { ...selected.machinery, resourceRefs: refs }, signal);
    await this.watchKinds(key, refs, first.required);
    const applied = await steps.resources.apply(xr, toApply, observed, signal);
    await this.publish(xr, status, first.out, signal);
    if (plan) this.report(xr, plan, observed, first.desired);

    const settling =
      applied.wrote && applied.unsynced.length === 0
        ? await this.settle(xr, status, { revision: selected.revision, observed, first, applied }, signal)
        : undefined;
    if (settling) await this.publish(xr, status, settling.out, signal);
    const last = settling ?? first;
    if (xrType.legacy) {
      const details = last.out.desired.composite?.connectionDetails;
      await steps.publisher.publishConnectionDetails(xr, details, { status, signal });
    }
    return outcome(last, applied, settling !== undefined, plan && heldOf(plan, first.desired));
  }

  /**
   * What this pass collects, references and applies: everything desired, or with ordering what the declared graph
   * allows now (ordered.ts). Throws on a cycle: nothing is written.
   */
  private writes(
    first: Pass,
    observed: ReadonlyMap<string, ComposedObject>,
    stored: readonly ResourceRef[],
  ): {
    plan: ComposePlan | undefined;
    collect: ReadonlyMap<string, ComposedObject>;
    refs: ResourceRef[];
    toApply: readonly DesiredResource[];
  } {
    const { xrType } = this.options;
    if (this.options.ordering !== true) {
      const refs = sortedResourceRefs(first.desired.map(({ object }) => refOf(object, xrType)));
      return { plan: undefined, collect: observed, refs, toApply: first.desired };
    }
    const plan = planPass(first, observed, stored);
    return {
      plan,
      collect: collectable(observed, plan, first.desired),
      refs: plannedRefs(first.desired, observed, plan, xrType),
      toApply: first.desired.filter((d) => plan.apply.has(d.name)),
    };
  }

  private report(
    xr: Xr,
    plan: ComposePlan,
    observed: ReadonlyMap<string, ComposedObject>,
    desired: readonly DesiredResource[],
  ): void {
    for (const event of planEvents(plan, observed, desired)) this.options.events.event(xr, event);
  }

  /**
   * The XR's resourceRefs, each of which is read (from a cache, or the API server for a kind not cached): a user may
   * write any number into the XR's spec, so past --max-composed-resources nothing is read and the reconcile fails.
   */
  private refsToObserve(refs: readonly ResourceRef[] | undefined): readonly ResourceRef[] {
    const max = this.options.maxComposedResources;
    const count = refs?.length ?? 0;
    if (max > 0 && count > max) {
      throw new Error(
        `cannot observe composed resources: resourceRefs lists ${count}, more than the ${max} allowed (--max-composed-resources)`,
      );
    }
    return refs ?? [];
  }

  /** Runs the pipeline over the XR and `observed`, and renders what it desires. */
  private async pass(
    xr: Xr,
    revision: RevisionObject,
    observed: ReadonlyMap<string, ComposedObject>,
    signal: AbortSignal,
  ): Promise<Pass> {
    const { steps, xrType, discovery } = this.options;
    const required: RequiredWatch[] = [];
    const sent = new Map<string, Resources>();
    const out = await steps.pipeline.run(xr, revision, observed, {
      signal,
      required,
      ...(this.options.ordering === true ? { sent } : {}),
    });
    const warn = (event: EventInput): void => {
      this.options.events.event(xr, event);
    };
    const desired = await renderDesired({ discovery, xrType, warn }, xr, out.desired, observed);
    return { out, desired, required, sent };
  }

  /** The XR's desired status, the pipeline's conditions and its events. */
  private async publish(xr: Xr, status: StatusDraft, out: PipelineOutput, signal: AbortSignal): Promise<void> {
    const { publisher } = this.options.steps;
    status.replaceFields((out.desired.composite?.resource?.status ?? {}) as Record<string, unknown>);
    publisher.setConditions(status, out.conditions);
    await publisher.emitEvents(xr, out.events, signal);
  }

  /**
   * The settling pass: the pipeline over what the applies returned (trimmed as the caches trim it) and the XR with
   * the status drafted so far, which is what the next reconcile would observe. It counts only when it desires the
   * very resources just written, each already as applied, and requires the same resources: then nothing is left to
   * apply, delete or watch. Otherwise undefined, and the next reconcile looks as before.
   */
  private async settle(
    xr: Xr,
    status: StatusDraft,
    context: { revision: RevisionObject; observed: ReadonlyMap<string, ComposedObject>; first: Pass; applied: Applied },
    signal: AbortSignal,
  ): Promise<Pass | undefined> {
    const { revision, first, applied } = context;
    const observed = new Map(context.observed);
    for (const [name, object] of applied.returned) observed.set(name, withoutManagedFields(object));
    const seen: Xr = { ...xr, status: status.toStatus() };
    const next = await this.pass(seen, revision, observed, signal);
    const names = new Set(first.desired.map((d) => d.name));
    const same =
      next.desired.length === first.desired.length &&
      next.desired.every((d) => names.has(d.name) && isApplied(d.object, observed.get(d.name))) &&
      requiredKey(next.required) === requiredKey(first.required);
    return same ? next : undefined;
  }
  /**
   * Records the kinds this XR composes or requires and makes sure each is watched before anything is applied, so
   * no change after this reconcile's reads goes unseen: through the watch, or, for a kind whose first list takes
   * long (after a restart in a large cluster), by one more reconcile once it is in.
   */
  private async watchKinds(key: string, refs: readonly ResourceRef[], required: RequiredWatch[]): Promise<void> {
    const { composed } = this.options;
    const kinds = distinctKinds([...refs, ...required]);
    composed.setKinds(key, kinds, required);
    await Promise.all(kinds.map((kind) => composed.watch(kind.apiVersion, kind.kind, key)));
  }
}

/** What the plan held back: creations still waiting, and contradictions on either side. */
function heldOf(plan: ComposePlan, desired: readonly DesiredResource[]): Pick<Composed, 'waiting' | 'deadlocked'> {
  const wanted = new Set(desired.map((d) => d.name));
  return {
    waiting: plan.held.filter((h) => !h.deadlocked && wanted.has(h.resource)),
    deadlocked: plan.held.filter((h) => h.deadlocked),
  };
}

/**
 * Desired resources not Ready: by the pipeline's verdict, and every one the graph holds back from creation, which does
 * not exist whatever a function says of it.
 */
function unreadyOf(desired: readonly DesiredResource[], held: Pick<Composed, 'waiting' | 'deadlocked'>): string[] {
  const wanted = new Set(desired.map((d) => d.name));
  const uncreated = [...held.waiting, ...held.deadlocked].map((h) => h.resource).filter((name) => wanted.has(name));
  return [...new Set([...desired.filter((d) => !d.ready).map((d) => d.name), ...uncreated])];
}

/** What the compose pass reports, from its last pipeline run, the applies and what ordering held back. */
function outcome(
  last: Pass,
  applied: Applied,
  settled: boolean,
  held: Pick<Composed, 'waiting' | 'deadlocked'> = { waiting: [], deadlocked: [] },
): Composed {
  const ready = last.out.desired.composite?.ready;
  return {
    ttlMs: last.out.ttlMs,
    unready: unreadyOf(last.desired, held),
    unsynced: applied.unsynced,
    wrote: applied.wrote,
    settled,
    written: applied.written,
    readyOverride: ready === 'READY_TRUE' || ready === 'READY_FALSE' ? ready : undefined,
    ...held,
  };
}

function requiredKey(required: readonly RequiredWatch[]): string {
  return JSON.stringify(required.map((r) => JSON.stringify(r)).sort());
}
