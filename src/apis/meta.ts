// metav1.ObjectMeta and metav1.OwnerReference as far as compositor reads or writes them: one shape for the metadata of
// every object it types (operations, packages, revisions, composed resources, reconciled objects). Unknown fields are
// kept as the API server sent them by whoever holds the object; these are the ones code may rely on.

/** metadata.ownerReferences[]: the fields every owner reference compositor writes or reads carries. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** metadata, in metav1.ObjectMeta's order: every field optional but the name, as the API server may omit any. */
export interface ObjectMeta {
  name: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

/** An object as an owner reference names it. */
export interface OwnerObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; uid?: string };
}

/**
 * The controller reference to `owner`, controller and blockOwnerDeletion set as Crossplane's meta.AsController sets
 * them; an owner read without a uid is referenced with an empty one.
 *
 * @example
 * secret.metadata.ownerReferences = [controllerReference(xr)];
 */
export function controllerReference(owner: OwnerObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * A reference to one object by type and name, as spec.resourceRefs[] and status.appliedResourceRefs[] hold them; no
 * namespace for a cluster-scoped object.
 */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}
