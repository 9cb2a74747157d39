// The identity compositor runs as in the scenarios: ServiceAccount crossplane-system/crossplane, the one upstream
// e2e manifests bind extra roles to (lack-of-rights). Its base rights are what a Crossplane install grants its core
// service account; rights on each XR kind are granted when its XRD is applied, as Crossplane's RBAC manager does.
import type { KubeObject } from '../../../src/kube/index.js';

export const SYSTEM_NAMESPACE = 'crossplane-system';
export const SERVICE_ACCOUNT = 'crossplane';
const ALL = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

function bindingTo(role: string): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: role },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: SERVICE_ACCOUNT, namespace: SYSTEM_NAMESPACE }],
  };
}

/** Namespace, ServiceAccount, and the base ClusterRole with its binding. */
export function baseIdentity(): KubeObject[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SYSTEM_NAMESPACE } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SERVICE_ACCOUNT, namespace: SYSTEM_NAMESPACE } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'compositor' },
      rules: [
        { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ALL },
        { apiGroups: ['apiextensions.crossplane.io', 'pkg.crossplane.io'], resources: ['*'], verbs: ALL },
        {
          apiGroups: [''],
          resources: ['configmaps', 'secrets', 'services', 'serviceaccounts', 'events'],
          verbs: ALL,
        },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ALL },
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ALL },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ALL },
        // Usages (--enable-usages, on by default) and the admission policy compositor applies for them at start.
        { apiGroups: ['protection.crossplane.io'], resources: ['*'], verbs: ALL },
        {
          apiGroups: ['admissionregistration.k8s.io'],
          resources: ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'],
          verbs: ALL,
        },
        // The built-in nop provider (--enable-nop-provider) stands in for provider-nop.
        { apiGroups: ['nop.crossplane.io', 'nop.compositor.crossplane.io'], resources: ['*'], verbs: ALL },
      ],
    },
    bindingTo('compositor'),
  ];
}

/** Rights on the XR kind an XRD defines, and its claim kind (with status and finalizers), bound to compositor. */
export function compositeRights(xrd: KubeObject): KubeObject[] {
  const spec =
    (xrd as { spec?: { group?: string; names?: { plural?: string }; claimNames?: { plural?: string } } }).spec ?? {};
  const plural = spec.names?.plural ?? '';
  const plurals = [plural, ...(spec.claimNames?.plural ? [spec.claimNames.plural] : [])];
  const role = `compositor:composite:${plural}.${spec.group ?? ''}`;
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: role },
      rules: [
        {
          apiGroups: [spec.group ?? ''],
          resources: plurals.flatMap((p) => [p, `${p}/status`, `${p}/finalizers`]),
          verbs: ALL,
        },
      ],
    },
    bindingTo(role),
  ];
}
