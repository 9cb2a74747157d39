import type { ReconciledObject } from './object.js';

// What the composite and claim controllers both know of an XR: its kind, its labels and the claim it is bound to.
// The machinery only the composite reconciler reads (composition refs, resourceRefs) stays in src/composite.

export const COMPOSITE_LABEL = 'crossplane.io/composite';
export const CLAIM_NAME_LABEL = 'crossplane.io/claim-name';
export const CLAIM_NAMESPACE_LABEL = 'crossplane.io/claim-namespace';

/** A composite resource, as every controller reads it. */
export type Xr = ReconciledObject;

/** The XR kind a controller reconciles or a claim asks for. */
export interface XrType {
  apiVersion: string;
  kind: string;
  namespaced: boolean;
  /** LegacyCluster: machinery directly under spec. */
  legacy: boolean;
}

/** The claim a legacy XR is bound to (spec.claimRef). */
export interface ClaimRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
}

/** The claim a legacy XR is bound to, when its spec.claimRef is complete. */
export function claimOf(xr: Xr): ClaimRef | undefined {
  const ref = xr.spec?.claimRef as Partial<ClaimRef> | undefined;
  if (!ref?.apiVersion || !ref.kind || !ref.name || !ref.namespace) return undefined;
  return ref as ClaimRef;
}
