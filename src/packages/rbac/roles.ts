// The ClusterRoles of one ProviderRevision, as Crossplane v2.3's RBAC manager renders them
// (internal/controller/rbac/provider/roles/roles.go): `aggregate-to-edit` and `aggregate-to-view`, which aggregate
// into Crossplane's (and, through rbac.crossplane.io/aggregate-to-crossplane, compositor's) roles, and `system`,
// which aggregates nowhere and is bound to the provider's ServiceAccount (binding.ts). All three grant the kinds of
// the CRDs and MRDs the revision installed, and are controlled by the revision, so they go when it goes.
import type { ClusterRole, PolicyRule } from '../../controller/index.js';
import { groupOf, type OwnerReference } from '../../apis/index.js';
import type { ConfigurationRevision, ObjectRef } from '../configuration/index.js';
import { hasCapability, SAFE_START } from '../provider/convert.js';
import { PROVIDER_REVISION } from '../provider/names.js';

const NAME_PREFIX = 'crossplane:provider:';

/** The aggregation labels of Crossplane's chart (rbac-manager-managed-clusterroles.yaml selects on them). */
export const LABELS = {
  aggregateToCrossplane: 'rbac.crossplane.io/aggregate-to-crossplane',
  aggregateToAdmin: 'rbac.crossplane.io/aggregate-to-admin',
  aggregateToEdit: 'rbac.crossplane.io/aggregate-to-edit',
  aggregateToView: 'rbac.crossplane.io/aggregate-to-view',
  /** On the system role, with the revision's name as its value. */
  system: 'rbac.crossplane.io/system',
} as const;

const VERBS_EDIT = ['*'];
const VERBS_VIEW = ['get', 'list', 'watch'];
const VERBS_SYSTEM = ['get', 'list', 'watch', 'update', 'patch', 'create'];

/**
 * What every provider's system role grants besides its own kinds: Secrets (credentials, connection details),
 * ConfigMaps and Leases (leader election), Events.
 */
const RULES_SYSTEM_EXTRA: PolicyRule[] = [
  {
    apiGroups: ['', 'coordination.k8s.io'],
    resources: ['secrets', 'configmaps', 'events', 'leases'],
    verbs: VERBS_EDIT,
  },
];

/** A safe-start provider watches CRDs to learn which of its MRDs are active. */
const RULES_SAFE_START: PolicyRule[] = [
  { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: VERBS_VIEW },
];

/** An API resource a revision defines: its group and plural. */
export interface Resource {
  group: string;
  plural: string;
}

/** The revision's role bound to its ServiceAccount: `crossplane:provider:<revision>:system`. */
export function systemRoleName(revision: string): string {
  return `${NAME_PREFIX}${revision}:system`;
}

/**
 * The resources a revision's objectRefs define: those of its CRDs and MRDs, each named `<plural>.<group>`. Any other
 * object, and a name without a dot (no CRD can have one), defines none.
 */
export function definedResources(refs: readonly ObjectRef[] | undefined): Resource[] {
  return (refs ?? []).flatMap((ref) => {
    const group = groupOf(ref.apiVersion);
    const defines =
      (group === 'apiextensions.k8s.io' && ref.kind === 'CustomResourceDefinition') ||
      (group === 'apiextensions.crossplane.io' && ref.kind === 'ManagedResourceDefinition');
    const dot = ref.name.indexOf('.');
    if (!defines || dot < 0) return [];
    return [{ plural: ref.name.slice(0, dot), group: ref.name.slice(dot + 1) }];
  });
}

/** The revision as the controller reference of what it owns: controller and blockOwnerDeletion, as upstream's. */
export function revisionControllerRef(rev: ConfigurationRevision): OwnerReference {
  return {
    ...PROVIDER_REVISION,
    name: rev.metadata.name,
    uid: rev.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * The revision's edit, view and system ClusterRoles, in that order, for `resources` (its own and its family's); none
 * when there are no resources. Rules are sorted by plural then group, so a reordered objectRefs changes nothing.
 *
 * @example
 * renderProviderRoles(rev, [{ group: 'nop.crossplane.io', plural: 'nopresources' }]).map((r) => r.metadata.name)
 * // ['crossplane:provider:<rev>:aggregate-to-edit', 'crossplane:provider:<rev>:aggregate-to-view',
 * //  'crossplane:provider:<rev>:system']
 */
export function renderProviderRoles(rev: ConfigurationRevision, resources: readonly Resource[]): ClusterRole[] {
  if (resources.length === 0) return [];
  const { groups, rules } = groupRules(resources);
  // Setting finalizers on its managed resources lets a provider's connection Secrets block their deletion when the
  // OwnerReferencesPermissionEnforcement admission plugin is on.
  const finalizers: PolicyRule = { apiGroups: groups, resources: ['*/finalizers'], verbs: ['update'] };
  const name = rev.metadata.name;
  const system = [...withVerbs(rules, VERBS_SYSTEM), finalizers, ...RULES_SYSTEM_EXTRA];
  if (hasCapability(rev.status?.capabilities, SAFE_START)) system.push(...RULES_SAFE_START);
  const roles: [string, Record<string, string>, PolicyRule[]][] = [
    [
      `${NAME_PREFIX}${name}:aggregate-to-edit`,
      { [LABELS.aggregateToCrossplane]: 'true', [LABELS.aggregateToAdmin]: 'true', [LABELS.aggregateToEdit]: 'true' },
      withVerbs(rules, VERBS_EDIT),
    ],
    [`${NAME_PREFIX}${name}:aggregate-to-view`, { [LABELS.aggregateToView]: 'true' }, withVerbs(rules, VERBS_VIEW)],
    [systemRoleName(name), { [LABELS.system]: name }, system],
  ];
  return roles.map(([roleName, labels, roleRules]) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: roleName, labels, ownerReferences: [revisionControllerRef(rev)] },
    rules: roleRules,
  }));
}

/** One rule per group, in the order of the sorted resources, each with `<plural>` and `<plural>/status`. */
function groupRules(resources: readonly Resource[]): { groups: string[]; rules: Omit<PolicyRule, 'verbs'>[] } {
  const sorted = [...resources].sort((a, b) => compare(a.plural + a.group, b.plural + b.group));
  const byGroup = new Map<string, string[]>();
  for (const { group, plural } of sorted) {
    const listed = byGroup.get(group) ?? [];
    listed.push(plural, `${plural}/status`);
    byGroup.set(group, listed);
  }
  const groups = [...byGroup.keys()];
  return { groups, rules: groups.map((group) => ({ apiGroups: [group], resources: byGroup.get(group) ?? [] })) };
}

function withVerbs(rules: readonly Omit<PolicyRule, 'verbs'>[], verbs: readonly string[]): PolicyRule[] {
  return rules.map((rule) => ({ ...rule, verbs: [...verbs] }));
}

/** Byte order, as Go compares strings (localeCompare would not). */
function compare(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
