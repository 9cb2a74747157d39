import type { ManagedResource } from '../types.js';

// The API of compositor's built-in nop provider: nop.compositor.crossplane.io/v1alpha1 NopResource, shaped like
// Crossplane's provider-nop NopResource so upstream compositions move over by changing the apiVersion.

export const NOP_GROUP = 'nop.compositor.crossplane.io';
export const NOP_API_VERSION = `${NOP_GROUP}/v1alpha1`;
export const NOP_KIND = 'NopResource';
export const NOP_PLURAL = 'nopresources';
/** The value of CRD_FEATURE_LABEL on the NopResource CRD. */
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

export interface NopResource extends ManagedResource {
  spec?: NonNullable<ManagedResource['spec']> & { forProvider?: NopParameters };
}
