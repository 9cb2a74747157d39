// A Configuration's and a ConfigurationRevision's conditions, as Crossplane's (apis/pkg/v1/conditions.go): Installed
// and Healthy on the package, RevisionHealthy on the revision. A Configuration has no runtime, so its Healthy follows
// its current revision's RevisionHealthy alone (upstream's PackageHealth for a revision without a runtime).
import { conditionOf, health, installed, REASON } from '../conditions.js';
import type { Condition } from '../types.js';

export { installed };

/** Installed False, reason UnpackingPackage: the package could not be fetched or read. */
export const unpacking = (message: string): Condition => ({
  type: 'Installed',
  status: 'False',
  reason: 'UnpackingPackage',
  message,
});

/** Healthy False, reason UnhealthyPackageRevision. */
export const unhealthy = (message: string): Condition => health('Healthy', false, message);

/** A revision's RevisionHealthy: True, or False with why. */
export const revisionHealth = (message?: string): Condition =>
  message === undefined ? health('RevisionHealthy', true) : health('RevisionHealthy', false, message);

/** A Configuration's Healthy from its current revision's conditions, worded as upstream's. */
export function configurationHealth(revision: readonly Condition[] | undefined): Condition {
  const c = conditionOf(revision, 'RevisionHealthy');
  if (c?.status === 'True') return health('Healthy', true);
  const status = c?.status ?? 'Unknown';
  return health(
    'Healthy',
    false,
    `Package revision health is "${status}"` + (c?.message ? ` with message: ${c.message}` : ''),
  );
}

export { REASON };
