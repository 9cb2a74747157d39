// The rbac.authorization.k8s.io objects compositor writes (the XR roles of --manage-composite-rbac, a Provider's
// roles and binding), as far as it writes them, and the one way it applies them: read, compare, apply only when the
// stored object differs, so a steady state (or a role Crossplane's RBAC manager made the same) writes nothing.
import type { OwnerReference } from '../apis/index.js';
import { getIfExists, serverSideApply, type KubeClient } from '../kube/index.js';

export const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';
export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const CLUSTER_ROLES_PATH = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
export const CLUSTER_ROLE_BINDINGS_PATH = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

interface RbacMetadata {
  name: string;
  labels?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  resourceVersion?: string;
  uid?: string;
}

export interface ClusterRole {
  apiVersion: typeof RBAC_API_VERSION;
  kind: 'ClusterRole';
  metadata: RbacMetadata;
  rules: PolicyRule[];
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface ClusterRoleBinding {
  apiVersion: typeof RBAC_API_VERSION;
  kind: 'ClusterRoleBinding';
  metadata: RbacMetadata;
  roleRef: { apiGroup: string; kind: string; name: string };
  subjects?: Subject[];
}

/**
 * Whether two rule lists grant the same, rule by rule in order, as Kubernetes compares them (an absent list and an
 * empty one are the same). The order counts: the API server keeps it, and a reordered list is a change to write.
 */
export function sameRules(a: readonly PolicyRule[] | undefined, b: readonly PolicyRule[] | undefined): boolean {
  const canonical = (rules: readonly PolicyRule[] | undefined): string =>
    JSON.stringify(
      (rules ?? []).map((r) => [
        r.apiGroups ?? [],
        r.resources ?? [],
        r.resourceNames ?? [],
        r.nonResourceURLs ?? [],
        r.verbs,
      ]),
    );
  return canonical(a) === canonical(b);
}

export interface ApplyIfChangedOptions<T> {
  fieldManager: string;
  /** Whether the stored object already says what `desired` does: then nothing is written. */
  isCurrent(stored: T): boolean;
  /** Throws to refuse writing over the stored object (one another owner controls); nothing is written then. */
  check?(stored: T): void;
  signal?: AbortSignal;
}

/**
 * Server-side applies `desired` at `path` unless the stored object is current; true when it wrote.
 *
 * @example
 * const wrote = await applyIfChanged(client, `${CLUSTER_ROLES_PATH}/${role.metadata.name}`, role, {
 *   fieldManager, isCurrent: (stored) => sameRules(stored.rules, role.rules) });
 */
export async function applyIfChanged<T extends { metadata: { name: string } }>(
  client: KubeClient,
  path: string,
  desired: T & { apiVersion: string; kind: string },
  options: ApplyIfChangedOptions<T>,
): Promise<boolean> {
  const { fieldManager, signal } = options;
  const stored = await getIfExists<T>(client, path, signal);
  if (stored !== undefined) {
    options.check?.(stored);
    if (options.isCurrent(stored)) return false;
  }
  await serverSideApply(client, path, desired, { fieldManager, ...(signal ? { signal } : {}) });
  return true;
}
