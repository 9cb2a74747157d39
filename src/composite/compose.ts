import { distinctKinds } from '../apis/index.js';
import { isApplied, type StatusDraft, type Xr, type XrType } from '../controller/index.js';
import type { PipelineOutput } from '../functions/index.js';
import type { Discovery, EventInput, EventSink } from '../kube/index.js';
import type { ComposedObject } from './composed.js';
import type { ComposedCache } from './composedCache.js';
import type { Applied, ComposedResources, DesiredResource } from './composedClient.js';
import type { CompositionSelector } from './compositionSelector.js';
import { defaultSecretRef } from './connection.js';
import { refOf, renderDesired } from './desired.js';
import { sortedResourceRefs } from './fieldOwners.js';
import type { CompositionPipeline } from './functionPipeline.js';
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
}

/** One run of the pipeline and the desired resources it rendered. */
interface Pass {
  out: PipelineOutput;
  desired: DesiredResource[];
  required: RequiredWatch[];
}

export interface ComposerOptions {
  steps: CompositeSteps;
  xrType: XrType;
  composed: ComposedCache;
  discovery: Discovery;
  events: EventSink;
  /** resourceRefs an XR may list (--max-composed-resources); 0 means no limit. */
  maxComposedResources: number;
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

    await steps.resources.collectGarbage(xr, observed, first.desired, signal);
    // The refs are stored before any composed resource is created, so a crash never leaves an untracked resource.
    const refs = sortedResourceRefs(first.desired.map(({ object }) => refOf(object, xrType)));
    await steps.writer.applyMachinery(xr, { ...selected.machinery, resourceRefs: refs }, signal);
    await this.watchKinds(key, refs, first.required);
    const applied = await steps.resources.apply(xr, first.desired, observed, signal);
    await this.publish(xr, status, first.out, signal);

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
    return outcome(last, applied, settling !== undefined);
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
    const out = await steps.pipeline.run(xr, revision, observed, { signal, required });
    const warn = (event: EventInput): void => {
      this.options.events.event(xr, event);
    };
    const desired = await renderDesired({ discovery, xrType, warn }, xr, out.desired, observed);
    return { out, desired, required };
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

/** What the compose pass reports, from its last pipeline run and the applies. */
function outcome(last: Pass, applied: Applied, settled: boolean): Composed {
  const ready = last.out.desired.composite?.ready;
  return {
    ttlMs: last.out.ttlMs,
    unready: last.desired.filter((d) => !d.ready).map((d) => d.name),
    unsynced: applied.unsynced,
    wrote: applied.wrote,
    settled,
    written: applied.written,
    readyOverride: ready === 'READY_TRUE' || ready === 'READY_FALSE' ? ready : undefined,
  };
}

/** As the informer caches keep objects (src/watch/trim.ts): managedFields, which no function needs, dropped. */
function withoutManagedFields(object: ComposedObject): ComposedObject {
  const { managedFields: _dropped, ...metadata } = object.metadata as ComposedObject['metadata'] & {
    managedFields?: unknown;
  };
  return { ...object, metadata };
}

function requiredKey(required: readonly RequiredWatch[]): string {
  return JSON.stringify(required.map((r) => JSON.stringify(r)).sort());
}
