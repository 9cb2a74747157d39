import { createHash } from 'node:crypto';
import type { ResourceRef } from './xr.js';

// Who owns which field of an XR and of its composed resources. A cluster moves between Crossplane core and compositor
// in both directions, so every server-side apply either uses exactly the manager name and field set Crossplane v2
// uses, or a name of compositor's own that Crossplane never applies under. Sharing a name with a different field set
// is what breaks a switch: an apply releases every field its manager owned and left out, and the API server removes
// a released field nobody else owns. See docs/migration.md.

/**
 * Crossplane's manager of an XR's `resourceRefs` (an apply that holds nothing else) and of the status its pipeline
 * desires. compositor applies exactly those under it.
 */
export const XR_FIELD_OWNER = 'apiextensions.crossplane.io/composite';

/**
 * compositor's own manager of the rest of an XR's machinery: the finalizer, the composite label, the Composition and
 * revision references. Crossplane writes those with plain updates (manager `crossplane`), never with an apply, so a
 * Crossplane apply after a rollback cannot release them.
 */
export const MACHINERY_FIELD_OWNER = 'compositor/composite';

/**
 * The status fields of a legacy XR that Crossplane sets in memory and writes with a plain status update, never in its
 * status apply: when connection details were last published, and which conditions its claim shows (reconciler.go
 * SetConnectionDetailsLastPublishedTime and handleCommonCompositionResult's SetClaimConditionTypes, then
 * Status().Update).
 */
export const UPDATED_STATUS_FIELDS: readonly string[] = ['connectionDetails', 'claimConditionTypes'];

/**
 * compositor's own manager of UPDATED_STATUS_FIELDS (an apply on the status subresource). Under Crossplane's XR
 * manager they would be released by Crossplane's status apply, which leaves them out: the API server removes a
 * released field nobody else owns, and rejects the whole apply when that leaves status.connectionDetails, whose map
 * Crossplane's plain update owns, as null.
 */
export const STATUS_FIELD_OWNER = 'compositor/composite-status';

const COMPOSED_FIELD_OWNER_PREFIX = 'apiextensions.crossplane.io/composed';

/** "Kind.group" as Go's schema.GroupKind prints it ("Kind" for the core group). */
function groupKind(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? kind : `${kind}.${apiVersion.slice(0, slash)}`;
}

function composedOwner(name: string, gk: string): string {
  return `${COMPOSED_FIELD_OWNER_PREFIX}/${createHash('sha256')
    .update(name + gk)
    .digest('hex')}`;
}

/**
 * The manager of every field an XR applies to its composed resources, as Crossplane names it: sha256 of the XR's name
 * and the XR's own group and kind (not its version, so a version change keeps the owner).
 */
export function composedFieldOwner(xr: { apiVersion: string; kind: string; metadata: { name: string } }): string {
  return composedOwner(xr.metadata.name, groupKind(xr.apiVersion, xr.kind));
}

/**
 * The name earlier compositor releases used for the same fields: the XR's name hashed with the composed resource's
 * kind. A composed resource that still has an entry under it is released from it after the next apply, so a field
 * removed from a Composition disappears (docs/migration.md, "Upgrading from earlier compositor releases").
 */
export function previousComposedFieldOwner(xrName: string, composed: { apiVersion: string; kind: string }): string {
  return composedOwner(xrName, groupKind(composed.apiVersion, composed.kind));
}

/** resourceRefs in Crossplane's stable order: by apiVersion + kind + name, compared as bytes. */
export function sortedResourceRefs(refs: readonly ResourceRef[]): ResourceRef[] {
  const key = (ref: ResourceRef): string => ref.apiVersion + ref.kind + ref.name;
  return [...refs].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsV1?: Record<string, unknown>;
}

/**
 * Whether a server-side apply by `manager` (on the main resource, not a subresource) is recorded on the object.
 */
export function appliesAs(managedFields: readonly ManagedFieldsEntry[] | undefined, manager: string): boolean {
  return (managedFields ?? []).some(
    (entry) => entry.manager === manager && entry.operation === 'Apply' && (entry.subresource ?? '') === '',
  );
}

/**
 * The machinery fields (other than resourceRefs) that an apply by Crossplane's XR manager owns on the main resource.
 * Earlier compositor releases applied the whole machinery under that name; Crossplane's next apply, which holds only
 * resourceRefs, would release and so remove them unless another manager co-owns them.
 */
export function machineryOwnedByXrOwner(
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  legacy: boolean,
): string[] {
  const entry = (managedFields ?? []).find(
    (e) => e.manager === XR_FIELD_OWNER && e.operation === 'Apply' && (e.subresource ?? '') === '',
  );
  const fields = entry?.fieldsV1 ?? {};
  const metadata = objectAt(fields, 'f:metadata');
  const owned = ['finalizers', 'labels'].filter((field) => `f:${field}` in metadata);
  const spec = objectAt(fields, 'f:spec');
  const machinery = legacy ? spec : objectAt(spec, 'f:crossplane');
  for (const key of Object.keys(machinery)) {
    if (key.startsWith('f:') && key !== 'f:resourceRefs') owned.push(key.slice(2));
  }
  return owned;
}

/**
 * Which of UPDATED_STATUS_FIELDS an apply by `manager` (Crossplane's XR manager unless given) owns on the status
 * subresource. Earlier compositor releases applied them under Crossplane's name; its next status apply would release
 * them.
 */
export function statusFieldsOwnedByXrOwner(
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  manager = XR_FIELD_OWNER,
): string[] {
  const entry = (managedFields ?? []).find(
    (e) => e.manager === manager && e.operation === 'Apply' && e.subresource === 'status',
  );
  const status = objectAt(entry?.fieldsV1 ?? {}, 'f:status');
  return UPDATED_STATUS_FIELDS.filter((field) => `f:${field}` in status);
}

function objectAt(fields: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = fields[key];
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}
