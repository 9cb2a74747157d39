import { groupOf, type ObjectRef } from '../apis/index.js';
import type { KubeObject } from '../kube/index.js';
import { objectKey } from './events.js';
import type { IndexFunction } from './store.js';

// Secondary indexes the composite controllers put on shared informers, so an event maps to the XRs it concerns
// with a map read. XR fields sit under spec.crossplane (Crossplane v2) or directly under spec (legacy XRs).

/** On an XR informer: XRs by each composed resource they reference (value: composedRefKey). */
export const RESOURCE_REFS_INDEX = 'compositor/resource-refs';
/** On an XR informer: XRs by the CompositionRevision they use (value: revision name). */
export const COMPOSITION_REVISION_INDEX = 'compositor/composition-revision';
/** On an XR informer: XRs by the Composition they reference (value: composition name). */
export const COMPOSITION_INDEX = 'compositor/composition';

/** On any informer: objects by namespace (value: the namespace, "" for cluster-scoped objects). */
export const NAMESPACE_INDEX = 'compositor/namespace';

export const namespaceIndex: IndexFunction = (object) => [object.metadata.namespace ?? ''];

/** The index value of a composed resource: group (not version, which may change) + kind + namespace + name. */
export function composedRefKey(ref: ObjectRef): string {
  return `${groupOf(ref.apiVersion)}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}

function machinery(xr: KubeObject): Record<string, unknown> {
  const spec = (xr.spec ?? {}) as Record<string, unknown>;
  const crossplane = spec.crossplane as Record<string, unknown> | undefined;
  return crossplane ?? spec;
}

export const resourceRefsIndex: IndexFunction = (xr) => {
  const refs = machinery(xr).resourceRefs;
  if (!Array.isArray(refs)) return [];
  return (refs as Partial<ObjectRef>[]).flatMap((ref) =>
    ref.apiVersion && ref.kind && ref.name
      ? [
          composedRefKey({
            apiVersion: ref.apiVersion,
            kind: ref.kind,
            name: ref.name,
            // A namespaced XR's refs are in its own namespace, whatever they say (as the reconciler reads them).
            namespace: xr.metadata.namespace ?? ref.namespace,
          }),
        ]
      : [],
  );
};

function refName(xr: KubeObject, field: string): string[] {
  const ref = machinery(xr)[field] as { name?: unknown } | undefined;
  return typeof ref?.name === 'string' ? [ref.name] : [];
}

export const compositionRevisionIndex: IndexFunction = (xr) => refName(xr, 'compositionRevisionRef');

/** The COMPOSITION_INDEX value of an XR that has not selected a Composition yet (no Composition is named ""). */
export const NO_COMPOSITION_YET = '';

/**
 * XRs by the Composition they selected, and under NO_COMPOSITION_YET those that have not selected one: a new revision
 * also concerns an XR whose selection is in flight, since its cached copy does not name the Composition yet.
 */
export const compositionIndex: IndexFunction = (xr) => {
  const named = refName(xr, 'compositionRef');
  return named.length > 0 ? named : [NO_COMPOSITION_YET];
};

export interface XrKind {
  /** API group of the XR, e.g. "example.org". */
  group: string;
  kind: string;
  namespaced: boolean;
}

interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  controller?: boolean;
}

/** XR keys named by a composed resource's controller owner reference of the given XR kind. */
export function controllerOwnerKeys(object: KubeObject, xr: XrKind): string[] {
  const owners = (object.metadata.ownerReferences ?? []) as OwnerReference[];
  return owners
    .filter((owner) => owner.controller === true && owner.kind === xr.kind && groupOf(owner.apiVersion) === xr.group)
    .map((owner) =>
      objectKey({ metadata: { name: owner.name, namespace: xr.namespaced ? object.metadata.namespace : undefined } }),
    );
}
