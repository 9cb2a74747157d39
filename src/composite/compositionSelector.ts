import type { Xr, XrType } from '../controller/index.js';
import type { EventSink } from '../kube/index.js';
import type { ObjectStore } from '../watch/index.js';
import {
  RevisionPendingError,
  selectComposition,
  selectRevision,
  type CompositionObject,
  type RevisionObject,
  type XrdDefaults,
} from './selection.js';
import type { Machinery } from './xr.js';
import type { XrWriter } from './xrWriter.js';

/** The Composition revision an XR is composed with, and its machinery with the choice filled in. */
export interface Selected {
  revision: RevisionObject;
  machinery: Machinery;
}

/** Picks the Composition and revision of an XR (the selection step of the reconcile order). */
export interface CompositionSelector {
  /**
   * Throws a SelectionError when the user must fix something, and a RevisionPendingError (after persisting the
   * Composition chosen) while its revision is still on its way.
   */
  select(xr: Xr, machinery: Machinery, signal: AbortSignal): Promise<Selected>;
}

export interface CachedCompositionSelectorOptions {
  xrType: XrType;
  xrd: () => XrdDefaults;
  compositions: ObjectStore;
  revisions: ObjectStore;
  events: EventSink;
  /** Persists the Composition chosen while its revision is pending. */
  writer: Pick<XrWriter, 'applyMachinery'>;
  random: () => number;
}

/** Selects from the Composition and CompositionRevision caches (selection.ts), with upstream's Normal events. */
export class CachedCompositionSelector implements CompositionSelector {
  constructor(private readonly options: CachedCompositionSelectorOptions) {}

  async select(xr: Xr, machinery: Machinery, signal: AbortSignal): Promise<Selected> {
    const { options } = this;
    const choice = selectComposition({
      machinery,
      xrd: options.xrd(),
      xrType: options.xrType,
      compositions: options.compositions.list(),
      random: options.random,
    });
    for (const e of choice.events) this.event(xr, e.reason, e.message);
    const composition = options.compositions.get(choice.compositionRef.name) as unknown as
      CompositionObject | undefined;
    let revision: RevisionObject;
    try {
      revision = selectRevision({
        machinery,
        compositionRef: choice.compositionRef,
        revisionSelector: choice.revisionSelector,
        composition,
        revisions: options.revisions.list(),
        xrType: options.xrType,
      });
    } catch (err) {
      // Persist the choice so the revision's arrival maps to this XR through the composition index.
      if (err instanceof RevisionPendingError) {
        await options.writer.applyMachinery(xr, { ...machinery, compositionRef: choice.compositionRef }, signal);
      }
      throw err;
    }
    if (revision.metadata.name !== machinery.compositionRevisionRef?.name) {
      this.event(xr, 'SelectComposition', `Selected composition revision: ${revision.metadata.name}`);
    }
    const selected: Machinery = {
      ...machinery,
      compositionRef: choice.compositionRef,
      compositionRevisionRef: { name: revision.metadata.name },
    };
    if (choice.revisionSelector) selected.compositionRevisionSelector = choice.revisionSelector;
    return { revision, machinery: selected };
  }

  private event(xr: Xr, reason: string, message: string): void {
    this.options.events.event(xr, { type: 'Normal', reason, message });
  }
}
