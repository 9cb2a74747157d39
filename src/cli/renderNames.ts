// The check upstream makes of every composed resource's name before it records resource references or applies
// anything (crossplane internal/names/validate.go ValidateName, called by the function composer since
// crossplane#6535 and #6689): a name must be an RFC 1123 subdomain; RBAC kinds may also hold colons.
import type { JsonObject } from '../functions/index.js';

const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** names.ValidateName: apimachinery's IsDNS1123Subdomain, with colons allowed for the RBAC kinds. */
export function isValidComposedName(name: string, apiVersion: string, kind: string): boolean {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const checked = group === RBAC_GROUP && RBAC_KINDS.has(kind) ? name.replaceAll(':', '') : name;
  return checked.length <= 253 && DNS1123_SUBDOMAIN.test(checked);
}

/**
 * Throws upstream's compose error for the first composed resource (by composition resource name) whose name is not
 * valid; the text is the one crossplane#6704 quotes from the composer.
 */
export function checkComposedNames(composed: readonly JsonObject[], resourceNames: readonly string[]): void {
  composed.forEach((object, i) => {
    const metadata = object.metadata as JsonObject | undefined;
    const name = str(metadata?.name);
    if (isValidComposedName(name, str(object.apiVersion), str(object.kind))) return;
    throw new Error(
      `cannot compose resources: cannot apply composed resource "${resourceNames[i] ?? ''}" because it has an invalid name "${name}". Must be a valid RFC 1123 subdomain name.`,
    );
  });
}
