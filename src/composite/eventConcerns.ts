import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../kube/index.js';
import { invalidPipeline } from './selection.js';

// What the event pipeline reads of a Function, an XR and a CompositionRevision to tell which XRs an event concerns.

/** Whether a Function is Healthy True. */
export function isHealthy(fn: KubeObject): boolean {
  const conditions = (fn.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions;
  return conditions?.some((c) => c.type === 'Healthy' && c.status === 'True') === true;
}

/** Whether an XR is Synced False naming the Function (as FunctionCallError words it: `function "<name>"`). */
export function failedOn(xr: KubeObject, fn: string): boolean {
  const conditions = (xr.status as { conditions?: { type: string; status: string; message?: string }[] } | undefined)
    ?.conditions;
  const synced = conditions?.find((c) => c.type === 'Synced');
  return synced?.status === 'False' && (synced.message ?? '').toLowerCase().includes(`function "${fn}"`);
}

/** The Function names a composition revision's pipeline calls. */
export function pipelineFunctions(revision: KubeObject): string[] {
  const pipeline = (revision.spec as { pipeline?: { functionRef?: { name?: string } }[] } | undefined)?.pipeline;
  return (pipeline ?? []).flatMap((step) => (step.functionRef?.name ? [step.functionRef.name] : []));
}

/**
 * Whether two versions of a CompositionRevision look the same to an XR's reconcile, which reads its labels (for
 * revision selectors and the Composition it belongs to), its spec and whether its pipeline is refused.
 */
export function sameForXrs(before: KubeObject, after: KubeObject): boolean {
  const seen = (revision: KubeObject): unknown => ({
    labels: revision.metadata.labels ?? {},
    spec: revision.spec ?? {},
    refused: invalidPipeline(revision),
    deleting: revision.metadata.deletionTimestamp !== undefined,
  });
  return isDeepStrictEqual(seen(before), seen(after));
}
