import type { CrdNames, ObjectMeta, OwnerReference } from '../apis/index.js';
/** JSON schema as it appears in CRDs (openAPIV3Schema); open because users' schemas use every keyword. */
export type JsonSchema = Record<string, unknown> & {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
};

export type XrdScope = 'Namespaced' | 'Cluster' | 'LegacyCluster';

export interface XrdVersion {
  name: string;
  served: boolean;
  referenceable: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JsonSchema };
  additionalPrinterColumns?: Record<string, unknown>[];
  subresources?: { scale?: Record<string, unknown> };
}

/** apiextensions.crossplane.io CompositeResourceDefinition (v1 storage, v2 served), the fields compositor reads. */
export interface CompositeResourceDefinition {
  apiVersion: string;
  kind: 'CompositeResourceDefinition';
  metadata: ObjectMeta;
  spec: {
    group: string;
    names: CrdNames;
    scope?: XrdScope;
    versions: XrdVersion[];
    defaultCompositionRef?: { name: string };
    enforcedCompositionRef?: { name: string };
    defaultCompositionUpdatePolicy?: 'Automatic' | 'Manual';
    conversion?: Record<string, unknown>;
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    claimNames?: Record<string, unknown>;
    connectionSecretKeys?: string[];
    defaultCompositeDeletePolicy?: string;
  };
}

/** The scope an XRD stored without one gets: v1 defaulted to LegacyCluster, v2 to Namespaced. */
export function xrdScope(xrd: CompositeResourceDefinition): XrdScope {
  return xrd.spec.scope ?? (xrd.apiVersion.endsWith('/v1') ? 'LegacyCluster' : 'Namespaced');
}

/** The one version XRs are composed at (exactly one is referenceable). */
export function referenceableVersion(xrd: CompositeResourceDefinition): XrdVersion | undefined {
  return xrd.spec.versions.find((version) => version.referenceable);
}

/**
 * Owner references that make an object the XRD's (a controller reference), so the garbage collector deletes it
 * with the XRD; none before the XRD has a uid. blockOwnerDeletion only where the writer may set finalizers on XRDs.
 */
export function xrdOwnerReferences(
  xrd: CompositeResourceDefinition,
  blockOwnerDeletion: boolean,
): { ownerReferences?: OwnerReference[] } {
  if (!xrd.metadata.uid) return {};
  const reference: OwnerReference = {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'CompositeResourceDefinition',
    name: xrd.metadata.name,
    uid: xrd.metadata.uid,
    controller: true,
  };
  if (blockOwnerDeletion) reference.blockOwnerDeletion = true;
  return { ownerReferences: [reference] };
}

/** The Established reason while the XR CRD of the XRD's current generation is applied but not Established yet. */
export const WAITING_FOR_XR_CRD = 'WaitingForCompositeResource';

/** An XRD with the conditions the XRD controller reports on it. */
export type XrdWithConditions = CompositeResourceDefinition & {
  status?: { conditions?: { type: string; status: string; reason?: string; observedGeneration?: number }[] };
};

/**
 * True when the XRD controller reported that it cannot establish the XRD's current generation: Established False for
 * that generation for a reason other than waiting for the CRD (an invalid XRD, a CRD the API server refused). No
 * restart onto that generation is coming, so a running composite controller keeps serving the last good one.
 */
export function establishFailed(xrd: XrdWithConditions): boolean {
  const established = xrd.status?.conditions?.find((c) => c.type === 'Established');
  return (
    established?.status === 'False' &&
    established.observedGeneration === xrd.metadata.generation &&
    established.reason !== WAITING_FOR_XR_CRD
  );
}
