// The conditions of ManagedResourceDefinitions and ManagedResourceActivationPolicies, as Crossplane v2.3's
// (apis/apiextensions/v1alpha1/conditions.go): an MRD's Established, an MRAP's Healthy.
import type { Condition } from '../types.js';

/** Established True: the MRD's CRD exists and is established. */
export const established = (): Condition => ({
  type: 'Established',
  status: 'True',
  reason: 'EstablishedManagedResource',
});

/** Established False: the MRD is Inactive, so it has no CRD. */
export const inactive = (): Condition => ({ type: 'Established', status: 'False', reason: 'InactiveManagedResource' });

/** Established Unknown: the CRD was applied and is not established yet. */
export const pending = (): Condition => ({ type: 'Established', status: 'Unknown', reason: 'PendingManagedResource' });

/** Established False with why: the CRD could not be read or applied (upstream's BlockedManaged, same reason). */
export const blocked = (message: string): Condition => ({
  type: 'Established',
  status: 'False',
  reason: 'PendingManagedResource',
  message,
});

/** An MRAP's Healthy True: every MRD it matches is Active. */
export const policyHealthy = (): Condition => ({ type: 'Healthy', status: 'True', reason: 'Running' });

/** An MRAP's Healthy Unknown with how many MRDs it could not activate. */
export const policyUnhealthy = (message: string): Condition => ({
  type: 'Healthy',
  status: 'Unknown',
  reason: 'EncounteredErrors',
  message,
});

/** An MRAP's Established False: its MRDs could not be listed. */
export const policyBlocked = (message: string): Condition => ({
  type: 'Established',
  status: 'False',
  reason: 'BlockedManagedResourceActivationPolicy',
  message,
});
