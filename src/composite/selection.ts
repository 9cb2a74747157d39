import type { Condition } from '../controller/index.js';
import type { PipelineStep } from '../functions/index.js';
import type { LabelSelector, Machinery, NamedRef } from './xr.js';

// Which Composition and which CompositionRevision an XR uses (Crossplane's selector chain: enforced, default,
// label selector; then the revision by update policy). Pure: the caller passes the cached objects in.

export const COMPOSITION_NAME_LABEL = 'crossplane.io/composition-name';

export interface TypeRef {
  apiVersion: string;
  kind: string;
}

export interface CompositionObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; uid?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { compositeTypeRef?: TypeRef; mode?: string; pipeline?: PipelineStep[] };
}

export interface RevisionObject {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    ownerReferences?: { uid: string; controller?: boolean }[];
  };
  spec?: { revision?: number; compositeTypeRef?: TypeRef; mode?: string; pipeline?: PipelineStep[] };
  status?: { conditions?: Condition[] };
}

/** The XR cannot be composed until the user fixes something; the message says what. */
export class SelectionError extends Error {
  constructor(
    message: string,
    /** The event reason: SelectComposition or ComposeResources, as upstream. */
    readonly reason: 'SelectComposition' | 'ComposeResources',
  ) {
    super(message);
    this.name = 'SelectionError';
  }
}

/** Not an error: the revision controller has not written the Composition's revision yet. */
export class RevisionPendingError extends Error {
  constructor(readonly composition: string) {
    super(`waiting for Composition "${composition}" to get its first CompositionRevision`);
    this.name = 'RevisionPendingError';
  }
}

export interface SelectionEvent {
  reason: string;
  message: string;
}

export interface CompositionChoice {
  compositionRef: NamedRef;
  revisionSelector: LabelSelector | undefined;
  events: SelectionEvent[];
}

export interface XrdDefaults {
  enforcedCompositionRef?: NamedRef;
  defaultCompositionRef?: NamedRef;
  defaultCompositionRevisionSelector?: LabelSelector;
  /** Legacy XRs publish only these connection details when the XRD lists any. */
  connectionSecretKeys?: string[];
}

function matchesLabels(labels: Record<string, string> | undefined, selector: LabelSelector | undefined): boolean {
  return Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels?.[key] === value);
}

/** Whether a Composition's (or revision's) compositeTypeRef names the XR type: the same apiVersion and kind. */
export function sameType(a: TypeRef | undefined, b: TypeRef): boolean {
  return a?.apiVersion === b.apiVersion && a.kind === b.kind;
}

interface SelectionInput {
  machinery: Machinery;
  xrd: XrdDefaults;
  xrType: TypeRef;
  compositions: readonly CompositionObject[];
  random: () => number;
}

/** Enforced, then default, then a random compatible Composition matching the XR's selector. */
export function selectComposition(input: SelectionInput): CompositionChoice {
  const { machinery, xrd } = input;
  const events: SelectionEvent[] = [];
  let ref = machinery.compositionRef;
  const enforced = xrd.enforcedCompositionRef?.name;
  if (enforced && ref?.name !== enforced) {
    ref = { name: enforced };
    events.push({ reason: 'CompositionSelection', message: 'Enforced composition has been selected' });
  }
  if (!ref && !machinery.compositionSelector && xrd.defaultCompositionRef?.name) {
    ref = { name: xrd.defaultCompositionRef.name };
    events.push({ reason: 'CompositionSelection', message: 'Default composition has been selected' });
  }
  ref ??= { name: selectByLabels(input) };
  if (ref.name !== machinery.compositionRef?.name) {
    events.push({ reason: 'SelectComposition', message: `Successfully selected composition: ${ref.name}` });
  }
  return { compositionRef: ref, revisionSelector: revisionSelectorOf(machinery, xrd, events), events };
}

/** The XR's revision selector, or the XRD's default when the XR names neither a selector nor a revision. */
function revisionSelectorOf(
  machinery: Machinery,
  xrd: XrdDefaults,
  events: SelectionEvent[],
): LabelSelector | undefined {
  if (machinery.compositionRevisionSelector || machinery.compositionRevisionRef) {
    return machinery.compositionRevisionSelector;
  }
  if (xrd.defaultCompositionRevisionSelector) {
    events.push({ reason: 'CompositionSelection', message: 'Default revision selector has been selected' });
  }
  return xrd.defaultCompositionRevisionSelector;
}

/** A random Composition for the XR's kind matching its compositionSelector, as upstream picks. */
function selectByLabels(input: SelectionInput): string {
  const { machinery, xrType } = input;
  const candidates = input.compositions
    .filter((c) => sameType(c.spec?.compositeTypeRef, xrType))
    .filter((c) => matchesLabels(c.metadata.labels, machinery.compositionSelector))
    .map((c) => c.metadata.name)
    .sort();
  const picked = candidates[Math.floor(input.random() * candidates.length)] ?? candidates[0];
  if (picked !== undefined) return picked;
  const selector = machinery.compositionSelector ? ` matching ${JSON.stringify(machinery.compositionSelector)}` : '';
  throw new SelectionError(
    `cannot select Composition: no compatible Compositions found for ${xrType.kind} (${xrType.apiVersion})${selector}; create one with spec.compositeTypeRef naming this kind`,
    'SelectComposition',
  );
}

/**
 * The revision to compose with. Manual with a ref: that revision. Otherwise the highest revision controlled by the
 * Composition (filtered by the XR's revision selector under the Automatic policy).
 */
export function selectRevision(input: {
  machinery: Machinery;
  compositionRef: NamedRef;
  revisionSelector: LabelSelector | undefined;
  composition: CompositionObject | undefined;
  revisions: readonly RevisionObject[];
  xrType: TypeRef;
}): RevisionObject {
  const { machinery, compositionRef, composition } = input;
  const manual = machinery.compositionUpdatePolicy === 'Manual';
  const pinned = machinery.compositionRevisionRef?.name;
  if (manual && pinned) {
    const revision = input.revisions.find((r) => r.metadata.name === pinned);
    if (!revision) {
      throw new SelectionError(
        `cannot fetch CompositionRevision "${pinned}": not found; fix compositionRevisionRef or set compositionUpdatePolicy to Automatic`,
        'ComposeResources',
      );
    }
    return checked(revision, input.xrType);
  }
  if (!composition) {
    throw new SelectionError(
      `cannot fetch Composition "${compositionRef.name}": not found; create it or fix compositionRef`,
      'ComposeResources',
    );
  }
  const uid = composition.metadata.uid;
  const candidates = input.revisions
    .filter((r) => r.metadata.labels?.[COMPOSITION_NAME_LABEL] === compositionRef.name)
    .filter((r) => manual || matchesLabels(r.metadata.labels, input.revisionSelector))
    .filter((r) => r.metadata.ownerReferences?.some((o) => o.controller === true && o.uid === uid) ?? false);
  if (candidates.length === 0) {
    if (input.revisionSelector?.matchLabels && !manual) {
      throw new SelectionError(
        `cannot fetch Composition "${compositionRef.name}": no compatible CompositionRevisions found matching ${JSON.stringify(input.revisionSelector)}`,
        'ComposeResources',
      );
    }
    throw new RevisionPendingError(compositionRef.name);
  }
  const latest = candidates.reduce((a, b) => ((b.spec?.revision ?? 0) > (a.spec?.revision ?? 0) ? b : a));
  return checked(latest, input.xrType);
}

/** A revision the XR can use: a Pipeline for this XR type with a valid pipeline. */
function checked(revision: RevisionObject, xrType: TypeRef): RevisionObject {
  const problem = revisionProblem(revision, xrType);
  if (problem !== undefined) throw new SelectionError(problem, 'ComposeResources');
  return revision;
}

function revisionProblem(revision: RevisionObject, xrType: TypeRef): string | undefined {
  const name = revision.metadata.name;
  const spec = revision.spec ?? {};
  const type = spec.compositeTypeRef;
  if (type && !sameType(type, xrType)) {
    return `CompositionRevision "${name}" composes ${type.kind} (${type.apiVersion}), not ${xrType.kind} (${xrType.apiVersion}); select a Composition for this kind`;
  }
  const mode = spec.mode ?? 'Pipeline';
  if (mode !== 'Pipeline') {
    return `CompositionRevision "${name}" uses mode ${mode}, which Crossplane v2 and compositor do not support; convert the Composition to mode Pipeline`;
  }
  if (!spec.pipeline?.length) return `CompositionRevision "${name}" has no pipeline steps`;
  return invalidPipeline(revision);
}

/** Only an explicit ValidPipeline False refuses a revision: compositor's revisions are written valid. */
export function invalidPipeline(revision: RevisionObject): string | undefined {
  const valid = revision.status?.conditions?.find((c) => c.type === 'ValidPipeline');
  if (valid?.status !== 'False') return undefined;
  return `selected CompositionRevision ${revision.metadata.name} does not have a valid function pipeline: ${valid.message ?? valid.reason}`;
}
