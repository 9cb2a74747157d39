import { digest } from '../functions/index.js';
import type { KubeObject } from '../kube/index.js';

// Apply only when different: a reconcile stamps what it is about to server-side apply with a digest, and skips
// the apply when the cached object already carries every desired field and that same digest. A steady state then
// writes nothing. Used for composed resources (composite) and for the XR a claim asks for (claim).

/** Digest of the object compositor last applied; lets it see that a function stopped returning a field. */
export const APPLIED_DIGEST_ANNOTATION = 'compositor.crossplane.io/applied-digest';

type Annotated = KubeObject & { metadata: { annotations?: Record<string, string> } };

/** Stamps the digest of what is about to be applied, so the next reconcile can tell whether it changed. */
export function withAppliedDigest<T extends Annotated>(object: T): T {
  const stamped = structuredClone(object);
  delete stamped.metadata.annotations?.[APPLIED_DIGEST_ANNOTATION];
  const annotations = { ...stamped.metadata.annotations, [APPLIED_DIGEST_ANNOTATION]: digest(stamped).slice(0, 32) };
  stamped.metadata.annotations = annotations;
  return stamped;
}

/**
 * True when applying `desired` (already stamped) would change nothing: the observed object carries every desired
 * field with the same value, and was last applied from the same desired object (so no field compositor used to
 * set has since been dropped; server-side apply would remove it). A steady-state reconcile then writes nothing.
 */
export function isApplied(
  desired: KubeObject,
  observed: (KubeObject & { metadata: { deletionTimestamp?: string } }) | undefined,
): boolean {
  if (!observed || observed.metadata.deletionTimestamp) return false;
  return isSubset(desired, observed);
}

/**
 * Whether every field of `subset` is in `superset` with an equal value. Lists must have the same length and match
 * item by item, since the API server keeps list order; fields the server or other managers add are ignored.
 */
export function isSubset(subset: unknown, superset: unknown): boolean {
  if (subset === null || subset === undefined) return superset === null || superset === undefined;
  if (Array.isArray(subset)) {
    if (!Array.isArray(superset) || superset.length !== subset.length) return false;
    return subset.every((item, i) => isSubset(item, superset[i]));
  }
  if (typeof subset === 'object') {
    if (superset === null || typeof superset !== 'object' || Array.isArray(superset)) return false;
    const whole = superset as Record<string, unknown>;
    return Object.entries(subset).every(([key, value]) => isSubset(value, whole[key]));
  }
  return subset === superset;
}
