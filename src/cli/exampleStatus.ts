// What `compositor dev` says about its examples once they have composed: which of the applied manifests are XRs and
// claims (their kinds are defined by an XRD among the same manifests), whether each is Ready, and if not, why, from
// its conditions. Pure, so every wording is tested without a cluster.
import { groupOf } from '../apis/index.js';
import type { Condition } from '../controller/index.js';
import type { KubeObject } from '../kube/index.js';

/** One example XR or claim as last read. */
export interface ExampleState {
  /** "App default/example". */
  what: string;
  claim: boolean;
  ready: boolean;
  /** Why it is not Ready; empty when it is. */
  why: string;
}

interface XrdSpec {
  group?: string;
  names?: { kind?: string };
  claimNames?: { kind?: string };
}

/** An example to watch: the manifest, and whether its kind is an XRD's claim kind rather than its XR kind. */
export interface Composite {
  object: KubeObject;
  claim: boolean;
}

/** The XRs and claims among `objects`: those whose group and kind an XRD among them defines, in manifest order. */
export function compositesOf(objects: readonly KubeObject[]): Composite[] {
  const kinds = new Map<string, boolean>();
  for (const object of objects) {
    if (groupOf(object.apiVersion) !== 'apiextensions.crossplane.io' || object.kind !== 'CompositeResourceDefinition')
      continue;
    const spec = (object.spec ?? {}) as XrdSpec;
    if (spec.names?.kind) kinds.set(`${spec.group ?? ''}/${spec.names.kind}`, false);
    if (spec.claimNames?.kind) kinds.set(`${spec.group ?? ''}/${spec.claimNames.kind}`, true);
  }
  return objects.flatMap((object) => {
    const claim = kinds.get(`${groupOf(object.apiVersion)}/${object.kind}`);
    return claim === undefined ? [] : [{ object, claim }];
  });
}

/** "App default/example", or "Kind name" for a cluster-scoped object. */
export function describeObject(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return `${object.kind} ${namespace ? `${namespace}/` : ''}${name}`;
}

function conditionText(c: Condition): string {
  return `${c.type} ${c.status}${c.reason ? ` (${c.reason})` : ''}${c.message ? `: ${c.message}` : ''}`;
}

/**
 * Ready or not, and why not: a failing reconcile (Synced not True) explains more than the Ready condition it leaves
 * behind, so it comes first; `stored` undefined means the object does not exist (yet), a string says why it could
 * not be read.
 */
export function stateOf(composite: Composite, stored: KubeObject | string | undefined): ExampleState {
  const state = { what: describeObject(composite.object), claim: composite.claim };
  if (stored === undefined) return { ...state, ready: false, why: 'not created yet' };
  if (typeof stored === 'string') return { ...state, ready: false, why: stored };
  const conditions = ((stored.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).filter(
    (c) => typeof c.type === 'string',
  );
  const ready = conditions.find((c) => c.type === 'Ready');
  if (ready?.status === 'True') return { ...state, ready: true, why: '' };
  const synced = conditions.find((c) => c.type === 'Synced');
  if (synced !== undefined && synced.status !== 'True') return { ...state, ready: false, why: conditionText(synced) };
  return { ...state, ready: false, why: ready ? conditionText(ready) : 'no Ready condition yet' };
}

/** "XRs", "claims" or "XRs and claims", for what `states` holds. */
function noun(states: readonly ExampleState[]): string {
  const claims = states.some((s) => s.claim);
  const xrs = states.some((s) => !s.claim);
  if (claims && xrs) return 'XRs and claims';
  return claims ? 'claims' : 'XRs';
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The line (or, when some are not Ready, the lines) `compositor dev` prints about its examples.
 *
 * @example examplesSummary(states, 3100) // "examples: 2 of 2 XRs and claims Ready in 3.1 s\n"
 */
export function examplesSummary(states: readonly ExampleState[], elapsedMs: number): string {
  const ready = states.filter((s) => s.ready).length;
  const counted = `examples: ${ready} of ${states.length} ${noun(states)} Ready`;
  if (ready === states.length) return `${counted} in ${seconds(elapsedMs)}\n`;
  const notReady = states.filter((s) => !s.ready).map((s) => `  ${s.what}: ${s.why}\n`);
  return `${counted} after ${seconds(elapsedMs)}; not Ready:\n${notReady.join('')}`;
}
