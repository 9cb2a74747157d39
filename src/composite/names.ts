import { createHash } from 'node:crypto';

const MAX_NAME_LENGTH = 63;
const SUFFIX_LENGTH = 12;

/** apimachinery's IsDNS1123Subdomain: dot-separated RFC 1123 labels, at most 253 characters in all. */
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

/**
 * Crossplane's names.ValidateName, the check of every composed resource's name before anything is applied: an RFC 1123
 * subdomain, where the RBAC kinds may also hold colons.
 */
export function isValidComposedName(name: string, apiVersion: string, kind: string): boolean {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const checked = group === RBAC_GROUP && RBAC_KINDS.has(kind) ? name.replaceAll(':', '') : name;
  return checked.length <= 253 && DNS1123_SUBDOMAIN.test(checked);
}

/**
 * The deterministic name of a composed resource, as Crossplane's names.ChildName: the parent prefix (with a
 * trailing "-"), then the first 12 hex characters of sha256(parent UID + composition resource name). A prefix too
 * long for 63 characters is cut to 51, or to 50 plus "-" when the cut does not end in one. The same XR and
 * resource name always give the same name, so a restart or a lost write never composes a duplicate.
 *
 * @example childName('my-app-', '75e4a668-…', 'database') === 'my-app-38ce86992a27'
 */
export function childName(parentName: string, parentUid: string, compositionResourceName: string): string {
  const suffix = createHash('sha256')
    .update(parentUid + compositionResourceName)
    .digest('hex')
    .slice(0, SUFFIX_LENGTH);
  if (parentName === '') return suffix;
  const prefix = parentName.endsWith('-') ? parentName : `${parentName}-`;
  if (prefix.length + SUFFIX_LENGTH <= MAX_NAME_LENGTH) return prefix + suffix;
  const cut = prefix.slice(0, MAX_NAME_LENGTH - SUFFIX_LENGTH);
  return (cut.endsWith('-') ? cut : `${cut.slice(0, -1)}-`) + suffix;
}
