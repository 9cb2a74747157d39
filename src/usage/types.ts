import type { ReconciledObject } from '../controller/index.js';

/** The group of Usage and ClusterUsage (Crossplane v2). */
export const PROTECTION_API_VERSION = 'protection.crossplane.io/v1beta1';

/** The two usage kinds compositor serves, with the scope each has. */
export const USAGE_KINDS = [
  { apiVersion: PROTECTION_API_VERSION, kind: 'Usage', namespaced: true },
  { apiVersion: PROTECTION_API_VERSION, kind: 'ClusterUsage', namespaced: false },
] as const;

export type UsageKind = (typeof USAGE_KINDS)[number]['kind'];

/** Crossplane's finalizer on a Usage, kept as is so a cluster can move between the two engines. */
export const USAGE_FINALIZER = 'usage.apiextensions.crossplane.io';

/** "<by kind>/<by name> uses <of kind>/<of name>", or the reason: the DETAILS column of `kubectl get usages`. */
export const USAGE_DETAILS_ANNOTATION = 'crossplane.io/usage-details';

/**
 * compositor's own: the message its admission policy returns when it refuses the deletion of an object in use,
 * written on that object by the usage controller (an admission policy cannot list the Usages itself).
 */
export const IN_USE_MESSAGE_ANNOTATION = 'compositor.crossplane.io/in-use-message';

export interface ResourceSelector {
  matchLabels?: Record<string, string>;
  matchControllerRef?: boolean;
  /** Usage's `of` only: another namespace to select in. */
  namespace?: string;
}

export interface UsageResource {
  apiVersion?: string;
  kind?: string;
  /** `namespace` only in a Usage's `of`: a used object in another namespace. */
  resourceRef?: { name: string; namespace?: string };
  resourceSelector?: ResourceSelector;
}

/** A Usage or ClusterUsage as compositor reads it. */
export interface Usage extends ReconciledObject {
  kind: UsageKind;
  spec: {
    of: UsageResource;
    by?: UsageResource;
    reason?: string;
    replayDeletion?: boolean;
  };
}

/** One object a Usage names, resolved: what the in-use label and the admission message are about. */
export interface UsedObject {
  apiVersion: string;
  kind: string;
  name: string;
  /** Undefined for a cluster-scoped kind. */
  namespace?: string;
}
