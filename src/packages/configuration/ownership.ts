// Who owns and who controls an object a package revision installs, decided as Crossplane v2.3's establisher does
// (internal/controller/pkg/revision/establisher.go), without the API server. Every revision of a package is an owner
// of each of its objects, and so is the package itself (never its controller): an object stays while any of them
// exists, so an older revision being garbage collected, or a newer one leaving the object out, never deletes it. The
// active revision is also its controller; an object controlled by anything else is refused with crossplane-runtime's
// message (meta.AddControllerReference) and nothing of it is changed. An inactive revision is an owner only (it
// drops the controller flag it may have had) and creates nothing: so it cannot race the active one to create an object.
import type { OwnerReference } from './types.js';

export interface OwnershipInput {
  /** The object's name, for the refusal message. */
  name: string;
  /** Its owner references as stored; undefined when it does not exist yet. */
  current: readonly OwnerReference[] | undefined;
  /** The revision establishing it. */
  revision: OwnerReference;
  /** The package that owns the revision, if the revision names one. */
  owningPackage: OwnerReference | undefined;
  /** Whether the revision is to control it (it is Active). */
  control: boolean;
}

export type OwnershipDecision =
  /** Write the object (its content too when `control`) with these owner references. */
  | { action: 'write'; ownerReferences: OwnerReference[] }
  /** Leave it alone: an inactive revision does not create. */
  | { action: 'skip' }
  /** Refused: controlled by something else. */
  | { action: 'refuse'; message: string };

export function decideOwnership(input: OwnershipInput): OwnershipDecision {
  const { current, revision, control } = input;
  const packageRef = input.owningPackage ? { ...input.owningPackage, controller: false } : undefined;
  if (current === undefined) {
    if (!control) return { action: 'skip' };
    return { action: 'write', ownerReferences: [asController(revision), ...(packageRef ? [packageRef] : [])] };
  }
  const refs = packageRef ? withOwner(current, packageRef) : [...current];
  if (!control) return { action: 'write', ownerReferences: withOwner(refs, asOwner(revision)) };
  const controller = refs.find((r) => r.controller === true);
  if (controller !== undefined && controller.uid !== revision.uid) {
    return {
      action: 'refuse',
      message: `${input.name} is already controlled by ${controller.kind} ${controller.name} (UID ${controller.uid})`,
    };
  }
  return { action: 'write', ownerReferences: withOwner(refs, asController(revision)) };
}

/**
 * The owner references of an object a revision no longer controls: its own reference kept as an owner's, added if it
 * was missing (upstream's ReleaseObjects). Undefined when nothing changes.
 */
export function released(current: readonly OwnerReference[], revision: OwnerReference): OwnerReference[] | undefined {
  const own = current.find((r) => r.uid === revision.uid);
  if (own !== undefined && own.controller !== true) return undefined;
  return withOwner(current, asOwner(revision));
}

/** Adds `ref`, or replaces the reference of the same uid (meta.AddOwnerReference). */
function withOwner(refs: readonly OwnerReference[], ref: OwnerReference): OwnerReference[] {
  const index = refs.findIndex((r) => r.uid === ref.uid);
  if (index < 0) return [...refs, ref];
  return refs.map((r, i) => (i === index ? ref : r));
}

function asController(ref: OwnerReference): OwnerReference {
  return { ...ref, controller: true, blockOwnerDeletion: true };
}

function asOwner(ref: OwnerReference): OwnerReference {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid };
}
