// When a stored role or binding already says what the revision wants, and when it may not be written at all. A role
// Crossplane's RBAC manager made for the same revision has the same name, labels, rules and controller, so taking
// it over writes nothing. As upstream (MustBeControllableBy), an object another owner controls is never written.
import {
  isSubset,
  sameRules,
  type ClusterRole,
  type ClusterRoleBinding,
  type Subject,
} from '../../controller/index.js';
import type { OwnerReference } from '../../apis/index.js';

/** A role or binding another object controls: refused, nothing written. */
export class NotControllableError extends Error {
  override readonly name = 'NotControllableError';
}

/** Throws NotControllableError when the stored object has a controller other than `uid`; none is controllable. */
export function checkControllable(stored: { metadata: { ownerReferences?: OwnerReference[] } }, uid: string): void {
  const controller = stored.metadata.ownerReferences?.find((ref) => ref.controller === true);
  if (controller !== undefined && controller.uid !== uid) {
    throw new NotControllableError(`existing object is not controlled by UID "${uid}"`);
  }
}

/** Whether `stored` holds each of `desired`'s owner references (the revision's controller reference). */
function hasOwners(
  desired: readonly OwnerReference[] | undefined,
  stored: readonly OwnerReference[] | undefined,
): boolean {
  return (desired ?? []).every((want) => (stored ?? []).some((got) => isSubset(want, got)));
}

/**
 * Whether the stored role needs no write: upstream compares labels and rules; compositor also wants its controller
 * reference there, so a role someone else made without one still goes when the revision goes. Labels others added
 * are left alone (an apply would leave them too).
 */
export function isRoleCurrent(desired: ClusterRole, stored: ClusterRole): boolean {
  return (
    isSubset(desired.metadata.labels, stored.metadata.labels ?? {}) &&
    sameRules(desired.rules, stored.rules) &&
    hasOwners(desired.metadata.ownerReferences, stored.metadata.ownerReferences)
  );
}

/** Whether the stored binding needs no write: the same role, the same subjects in order and the same controller. */
export function isBindingCurrent(desired: ClusterRoleBinding, stored: ClusterRoleBinding): boolean {
  const subject = (s: Subject): string[] => [s.kind, s.namespace ?? '', s.name];
  return (
    JSON.stringify((desired.subjects ?? []).map(subject)) === JSON.stringify((stored.subjects ?? []).map(subject)) &&
    isSubset(desired.roleRef, stored.roleRef) &&
    hasOwners(desired.metadata.ownerReferences, stored.metadata.ownerReferences)
  );
}
