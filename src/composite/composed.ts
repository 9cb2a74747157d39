import { controllerReference, type ObjectMeta, type OwnerReference } from '../apis/index.js';
import { CLAIM_NAME_LABEL, CLAIM_NAMESPACE_LABEL, COMPOSITE_LABEL, type Xr } from '../controller/index.js';
import type { JsonObject } from '../functions/index.js';
import type { KubeObject } from '../kube/index.js';
import { childName, isValidComposedName } from './names.js';

// Composed resources as compositor writes them: metadata rendered from the XR (Crossplane's
// RenderComposedResourceMetadata) and a deterministic name. Whether one needs applying at all is
// src/controller/applied.ts.

export const RESOURCE_NAME_ANNOTATION = 'crossplane.io/composition-resource-name';

export type { OwnerReference };

export interface ComposedObject extends KubeObject {
  metadata: KubeObject['metadata'] & ObjectMeta;
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
  return [...others, controllerReference(xr)];
}

function validateName(object: ComposedObject, resourceName: string): void {
  if (!isValidComposedName(object.metadata.name, object.apiVersion, object.kind)) {
    throw new ComposedResourceError(
      resourceName,
      `composed resource "${resourceName}" has an invalid name "${object.metadata.name}": it must be a lowercase RFC 1123 subdomain of at most 253 characters`,
    );
  }
}

/** As the informer caches keep objects (src/watch/trim.ts): managedFields, which no function needs, dropped. */
export function withoutManagedFields(object: ComposedObject): ComposedObject {
  const { managedFields: _dropped, ...metadata } = object.metadata as ComposedObject['metadata'] & {
    managedFields?: unknown;
  };
  return { ...object, metadata };
}
