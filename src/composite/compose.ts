import type { StatusDraft, Xr, XrType } from '../controller/index.js';
import type { Discovery, EventInput, EventSink } from '../kube/index.js';
import type { ComposedObject } from './composed.js';
import type { ComposedCache } from './composedCache.js';
import type { ComposedResources } from './composedClient.js';
import type { CompositionSelector } from './compositionSelector.js';
import { defaultSecretRef } from './connection.js';
import { refOf, renderDesired } from './desired.js';
import { sortedResourceRefs } from './fieldOwners.js';
import type { CompositionPipeline } from './functionPipeline.js';
import type { RequiredWatch } from './requiredResources.js';
import type { ResultPublisher } from './resultPublisher.js';
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
  /** What those writes returned, for those whose echo is tracked: the next look waits for their echoes. */
  written: ComposedObject[];
  readyOverride: 'READY_TRUE' | 'READY_FALSE' | undefined;
}

export interface ComposerOptions {
  steps: CompositeSteps;
  xrType: XrType;
  composed: ComposedCache;
  discovery: Discovery;
  events: EventSink;
}

/**
 * One compose pass of an XR that is neither paused nor being deleted (docs/architecture.md#the-reconcile-order-of-an-xr,
 * steps 6 to 14): select, observe, run the pipeline, render, collect garbage, store resourceRefs, watch, apply, then
 * copy what the pipeline said about the XR into its status draft.
 */
export class Composer {
  constructor(private readonly options: ComposerOptions) {}

  async compose(key: string, xr: Xr, status: StatusDraft, signal: AbortSignal): Promise<Composed> {
    const { steps, xrType } = this.options;
    const machinery = machineryOf(xr, xrType.legacy);
    const selected = await steps.selector.select(xr, machinery, signal);
    const secretRef = xrType.legacy ? defaultSecretRef(xr, selected.revision) : undefined;
    if (secretRef) selected.machinery.writeConnectionSecretToRef = secretRef;
    const observed = await steps.resources.observe(xr, machinery.resourceRefs ?? []);
    const required: RequiredWatch[] = [];
    const out = await steps.pipeline.run(xr, selected.revision, observed, { signal, required });
    const warn = (event: EventInput): void => {
      this.options.events.event(xr, event);
    };
    const desired = await renderDesired({ discovery: this.options.discovery, xrType, warn }, xr, out.desired, observed);

    await steps.resources.collectGarbage(xr, observed, desired, signal);
    // The refs are stored before any composed resource is created, so a crash never leaves an untracked resource.
    const refs = sortedResourceRefs(desired.map(({ object }) => refOf(object, xrType)));
    await steps.writer.applyMachinery(xr, { ...selected.machinery, resourceRefs: refs }, signal);
    await this.watchKinds(key, refs, required);
    const applied = await steps.resources.apply(xr, desired, observed, signal);

    const composite = out.desired.composite;
    status.replaceFields((composite?.resource?.status ?? {}) as Record<string, unknown>);
    steps.publisher.setConditions(status, out.conditions);
    await steps.publisher.emitEvents(xr, out.events, signal);
    if (xrType.legacy) {
      await steps.publisher.publishConnectionDetails(xr, composite?.connectionDetails, { status, signal });
    }
    const ready = composite?.ready;
    return {
      ttlMs: out.ttlMs,
      unready: desired.filter((d) => !d.ready).map((d) => d.name),
      unsynced: applied.unsynced,
      wrote: applied.wrote,
      written: applied.written,
      readyOverride: ready === 'READY_TRUE' || ready === 'READY_FALSE' ? ready : undefined,
    };
  }

  /**
   * Records the kinds this XR composes or requires and makes sure each is watched before anything is applied, so
   * no change after this reconcile's reads goes unseen.
   */
  private async watchKinds(key: string, refs: readonly ResourceRef[], required: RequiredWatch[]): Promise<void> {
    const { composed } = this.options;
    const kinds = [...new Set([...refs, ...required].map((r) => `${r.apiVersion}/${r.kind}`))];
    composed.setKinds(key, kinds, required);
    await Promise.all(
      kinds.map((gvk) => {
        const slash = gvk.lastIndexOf('/');
        return composed.watch(gvk.slice(0, slash), gvk.slice(slash + 1));
      }),
    );
  }
}
