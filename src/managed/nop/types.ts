import type { ManagedResource } from '../types.js';

// The APIs of compositor's built-in nop provider. It serves two, with the same spec and status:
// - nop.compositor.crossplane.io/v1alpha1 NopResource, namespaced: compositor's own, which can never clash with a
//   real provider;
// - nop.crossplane.io/v1alpha1 NopResource, cluster-scoped: Crossplane's provider-nop API (v0.3, v0.4) unchanged,
//   so upstream compositions and conformance scenarios that compose it run as they are.

export const NOP_KIND = 'NopResource';
export const NOP_PLURAL = 'nopresources';

/** compositor's own group. */
export const NOP_GROUP = 'nop.compositor.crossplane.io';
export const NOP_API_VERSION = `${NOP_GROUP}/v1alpha1`;

/** Crossplane's provider-nop group, served unchanged. */
export const PROVIDER_NOP_GROUP = 'nop.crossplane.io';
export const PROVIDER_NOP_API_VERSION = `${PROVIDER_NOP_GROUP}/v1alpha1`;

/** One kind the nop provider serves; `namespaced` is its CRD's scope. */
export interface NopType {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export const NOP_TYPE: NopType = { apiVersion: NOP_API_VERSION, kind: NOP_KIND, plural: NOP_PLURAL, namespaced: true };
export const PROVIDER_NOP_TYPE: NopType = {
  apiVersion: PROVIDER_NOP_API_VERSION,
  kind: NOP_KIND,
  plural: NOP_PLURAL,
  namespaced: false,
};
/** Every kind the nop provider serves: one managed controller each. */
export const NOP_TYPES: readonly NopType[] = [NOP_TYPE, PROVIDER_NOP_TYPE];

/** `<plural>.<group>`: the CRD's name. */
export function nopCrdName(type: NopType): string {
  return `${type.plural}.${type.apiVersion.slice(0, type.apiVersion.indexOf('/'))}`;
}

/** The value of CRD_FEATURE_LABEL on both NopResource CRDs. */
export const NOP_FEATURE = 'nop-provider';
/** The `provider` label of external_calls_total. */
export const NOP_PROVIDER = 'nop';

/** Report condition `conditionType` with `conditionStatus` once `time` (a Go duration) has passed since creation. */
export interface ConditionAfter {
  time: string;
  conditionType: string;
  conditionStatus: 'True' | 'False' | 'Unknown';
  conditionReason?: string;
}

// A type alias, not an interface, so it fits ManagedSpec's Record<string, unknown> forProvider.
export type NopParameters = {
  conditionAfter?: ConditionAfter[];
  connectionDetails?: { name: string; value: string }[];
  /** Any value; the external resource holds it, and status.atProvider.fields echoes it. */
  fields?: unknown;
  /** A non-empty message makes the call fail with it; absent or empty lets the call succeed. */
  failCreate?: string;
  failObserve?: string;
  failUpdate?: string;
  failDelete?: string;
};

/** A NopResource of either API: the same spec and status. */
export interface NopResource extends ManagedResource {
  spec?: NonNullable<ManagedResource['spec']> & { forProvider?: NopParameters };
}
