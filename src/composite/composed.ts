import type { OwnerReference } from '../apis/index.js';
import { digest, type JsonObject } from '../functions/index.js';
import type { KubeObject } from '../kube/index.js';
import { childName } from './names.js';
import { COMPOSITE_LABEL, type Xr } from './xr.js';

// Composed resources as compositor writes them: metadata rendered from the XR (Crossplane's
// RenderComposedResourceMetadata), a deterministic name, and the test that lets a steady-state reconcile skip the
// server-side apply entirely.

export const RESOURCE_NAME_ANNOTATION = 'crossplane.io/composition-resource-name';
export const CLAIM_NAME_LABEL = 'crossplane.io/claim-name';
export const CLAIM_NAMESPACE_LABEL = 'crossplane.io/claim-namespace';
/** Digest of the object compositor last applied; lets it see that a function stopped returning a field. */
export const APPLIED_DIGEST_ANNOTATION = 'compositor.crossplane.io/applied-digest';

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

export type { OwnerReference };

export interface ComposedObject extends KubeObject {
  metadata: KubeObject['metadata'] & {
    uid?: string;
    generateName?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: OwnerReference[];
    resourceVersion?: string;
    deletionTimestamp?: string;
  };
}

/** A composed resource could not be rendered; the message names it and says why. */
export class ComposedResourceError extends Error {
  constructor(
    readonly resourceName: string,
    message: string,
  ) {
    super(message);
    this.name = 'ComposedResourceError';
  }
}

export function controllerOf(object: ComposedObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

export interface RenderContext {
  xr: Xr;
  /** The composition resource name (the key of desired.resources). */
  resourceName: string;
  /** The composed resource that exists today under that name, if any. */
  observed?: ComposedObject;
}

/**
 * A desired composed resource with the metadata every composed resource carries: the XR's composite (and claim)
 * labels, the composition-resource-name annotation, a controller reference to the XR and a deterministic name.
 * Namespaces are settled by the caller, which knows whether the kind is namespaced.
 */
export function renderComposed(desired: JsonObject, context: RenderContext): ComposedObject {
  const { xr, resourceName, observed } = context;
  const object = structuredClone(desired) as unknown as ComposedObject;
  if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string' || object.apiVersion === '') {
    throw new ComposedResourceError(resourceName, `composed resource "${resourceName}" has no apiVersion or kind`);
  }
  const metadata = {
    ...(object.metadata as Partial<ComposedObject['metadata']> | undefined),
  } as ComposedObject['metadata'];
  object.metadata = metadata;
  if (observed) {
    // Functions cannot rename what exists: the name it was created with stays.
    metadata.name = observed.metadata.name;
    if (observed.metadata.namespace !== undefined) metadata.namespace = observed.metadata.namespace;
    if (observed.metadata.generateName !== undefined) metadata.generateName = observed.metadata.generateName;
    else delete metadata.generateName;
  }
  const composite = xr.metadata.labels?.[COMPOSITE_LABEL] ?? xr.metadata.name;
  metadata.labels = { ...metadata.labels, ...inheritedLabels(xr, composite) };
  metadata.annotations = { ...metadata.annotations, [RESOURCE_NAME_ANNOTATION]: resourceName };
  metadata.ownerReferences = withController(object, xr, resourceName);
  if (!metadata.name) {
    // Upstream keeps generateName beside the deterministic name it derives from it.
    metadata.generateName ??= `${composite}-`;
    metadata.name = childName(metadata.generateName, xr.metadata.uid ?? '', resourceName);
  }
  validateName(object, resourceName);
  return object;
}

/** The composite label, and the claim labels when the XR has both (claimed legacy XRs). */
function inheritedLabels(xr: Xr, composite: string): Record<string, string> {
  const labels: Record<string, string> = { [COMPOSITE_LABEL]: composite };
  const claimName = xr.metadata.labels?.[CLAIM_NAME_LABEL];
  const claimNamespace = xr.metadata.labels?.[CLAIM_NAMESPACE_LABEL];
  if (claimName !== undefined && claimNamespace !== undefined) {
    labels[CLAIM_NAME_LABEL] = claimName;
    labels[CLAIM_NAMESPACE_LABEL] = claimNamespace;
  }
  return labels;
}

function withController(object: ComposedObject, xr: Xr, resourceName: string): OwnerReference[] {
  const uid = xr.metadata.uid ?? '';
  const others = (object.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== uid);
  const foreign = others.find((ref) => ref.controller === true);
  if (foreign) {
    throw new ComposedResourceError(
      resourceName,
      `composed resource "${resourceName}" is already controlled by ${foreign.kind} "${foreign.name}" (uid ${foreign.uid})`,
    );
  }
  const ref: OwnerReference = {
    apiVersion: xr.apiVersion,
    kind: xr.kind,
    name: xr.metadata.name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
  return [...others, ref];
}

function validateName(object: ComposedObject, resourceName: string): void {
  const group = object.apiVersion.split('/')[0];
  let name = object.metadata.name;
  if (group === 'rbac.authorization.k8s.io' && RBAC_KINDS.has(object.kind)) name = name.replace(/:/g, '');
  if (name.length > 253 || !SUBDOMAIN.test(name)) {
    throw new ComposedResourceError(
      resourceName,
      `composed resource "${resourceName}" has an invalid name "${object.metadata.name}": it must be a lowercase RFC 1123 subdomain of at most 253 characters`,
    );
  }
}

/** Stamps the digest of what is about to be applied, so the next reconcile can tell whether it changed. */
export function withAppliedDigest(object: ComposedObject): ComposedObject {
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
export function isApplied(desired: ComposedObject, observed: ComposedObject | undefined): boolean {
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
