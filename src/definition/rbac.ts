// compositor's rights on the XR kind of each XRD, granted the way Crossplane's RBAC manager grants them to
// Crossplane core: one ClusterRole per XRD, labelled so the aggregation controller folds it into compositor's own
// aggregated ClusterRole (the Helm chart's). Owned by the XRD, so it goes when the XRD goes.
import { applyIfChanged, CLUSTER_ROLES_PATH, isSubset, type ClusterRole } from '../controller/index.js';
import { FIELD_MANAGERS, type KubeClient } from '../kube/index.js';
import { xrdOwnerReferences, type CompositeResourceDefinition } from './xrd.js';

export const AGGREGATE_TO_COMPOSITOR_LABEL = 'compositor.crossplane.io/aggregate-to-compositor';
const FIELD_MANAGER = FIELD_MANAGERS.rbac;
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

export type { ClusterRole };

export function compositeRoleName(xrd: CompositeResourceDefinition): string {
  return `compositor:composite:${xrd.metadata.name}`;
}

/** The ClusterRole granting compositor everything it does to the XRs (and claims) of one XRD. */
export function renderCompositeRole(xrd: CompositeResourceDefinition): ClusterRole {
  const plurals = [xrd.spec.names.plural];
  const claimPlural = (xrd.spec.claimNames as { plural?: string } | undefined)?.plural;
  if (claimPlural) plurals.push(claimPlural);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name: compositeRoleName(xrd),
      labels: { [AGGREGATE_TO_COMPOSITOR_LABEL]: 'true' },
      ...xrdOwnerReferences(xrd, false),
    },
    rules: [
      {
        apiGroups: [xrd.spec.group],
        resources: plurals.flatMap((plural) => [plural, `${plural}/status`, `${plural}/finalizers`]),
        verbs: VERBS,
      },
    ],
  };
}

/** Applies the XRD's role when the stored one differs; true when it wrote. */
export async function applyCompositeRole(client: KubeClient, xrd: CompositeResourceDefinition): Promise<boolean> {
  const role = renderCompositeRole(xrd);
  return applyIfChanged<ClusterRole>(client, `${CLUSTER_ROLES_PATH}/${role.metadata.name}`, role, {
    fieldManager: FIELD_MANAGER,
    isCurrent: (stored) => isSubset(role.rules, stored.rules) && isSubset(role.metadata, stored.metadata),
  });
}

/**
 * The verbs compositor lacks on the XR kind, asked of the API server itself (SelfSubjectAccessReview), so an XRD
 * whose rights are missing says so instead of its controller failing to list in a loop.
 */
export async function missingCompositeRights(client: KubeClient, xrd: CompositeResourceDefinition): Promise<string[]> {
  const checks = [
    { verb: 'list', subresource: '' },
    { verb: 'watch', subresource: '' },
    { verb: 'patch', subresource: '' },
    { verb: 'patch', subresource: 'status' },
  ];
  const answers = await Promise.all(
    checks.map(async ({ verb, subresource }) => {
      const review = await client.request<{ status?: { allowed?: boolean } }>(
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: { resourceAttributes: { group: xrd.spec.group, resource: xrd.spec.names.plural, subresource, verb } },
          },
        },
      );
      return review.status?.allowed === true
        ? undefined
        : `${verb} ${xrd.spec.names.plural}${subresource ? `/${subresource}` : ''}`;
    }),
  );
  return answers.filter((answer): answer is string => answer !== undefined);
}
