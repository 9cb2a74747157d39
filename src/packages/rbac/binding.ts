// The ClusterRoleBinding of one ProviderRevision, as Crossplane v2.3's RBAC manager renders it
// (internal/controller/rbac/provider/binding/reconciler.go): named as the system role, binding it to the
// ServiceAccount of every Deployment the revision owns, controlled by the revision.
import { RBAC_API_VERSION, RBAC_GROUP, type ClusterRoleBinding, type Subject } from '../../controller/index.js';
import type { ConfigurationRevision } from '../configuration/index.js';
import { revisionControllerRef, systemRoleName } from './roles.js';

/** A Deployment as far as the binding reads it: its owners and the ServiceAccount its pods run as. */
export interface RuntimeDeployment {
  metadata: { name: string; namespace?: string; ownerReferences?: { uid: string }[] };
  spec?: { template?: { spec?: { serviceAccountName?: string } } };
}

/**
 * The ServiceAccounts of the Deployments `rev` owns (by UID), in the Deployments' order. A revision runs at most one,
 * but several are harmless. A pod template naming no ServiceAccount binds nothing: its pods run as the namespace's
 * `default` ServiceAccount, which must not get a provider's rights (upstream would send an empty name, which the API
 * server refuses).
 */
export function runtimeSubjects(rev: ConfigurationRevision, deployments: readonly RuntimeDeployment[]): Subject[] {
  const uid = rev.metadata.uid;
  return deployments.flatMap((d) => {
    const name = d.spec?.template?.spec?.serviceAccountName;
    const owned = uid !== undefined && (d.metadata.ownerReferences ?? []).some((ref) => ref.uid === uid);
    if (!owned || name === undefined || name === '') return [];
    return [{ kind: 'ServiceAccount', namespace: d.metadata.namespace ?? '', name }];
  });
}

/**
 * The binding of the revision's system role to `subjects`. No subjects leaves the field out, as upstream's empty
 * list serializes, so a binding whose Deployment went loses its subject.
 */
export function renderProviderBinding(rev: ConfigurationRevision, subjects: readonly Subject[]): ClusterRoleBinding {
  const name = systemRoleName(rev.metadata.name);
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: { name, ownerReferences: [revisionControllerRef(rev)] },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    ...(subjects.length > 0 ? { subjects: [...subjects] } : {}),
  };
}

/** `namespace/name` of each subject, as upstream's BindClusterRole event lists them. */
export function subjectNames(subjects: readonly Subject[]): string {
  return subjects.map((s) => `${s.namespace ?? ''}/${s.name}`).join(', ');
}
