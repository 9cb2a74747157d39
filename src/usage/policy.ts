import { IN_USE_LABEL, isSubset } from '../controller/index.js';
import { serverSideApply, getIfExists, type Discovery, type KubeClient, type KubeObject } from '../kube/index.js';
import { IN_USE_MESSAGE_ANNOTATION } from './types.js';

/** Named as Crossplane's webhook is, so a refusal reads the same: `... 'nousages.protection.crossplane.io' ...`. */
export const USAGE_POLICY_NAME = 'nousages.protection.crossplane.io';

/** The field manager of the policy and its binding when compositor applies them at start. */
export const USAGE_POLICY_FIELD_MANAGER = 'compositor/usages';

const MESSAGE = `string(oldObject.metadata.annotations['${IN_USE_MESSAGE_ANNOTATION}'])`;

// Deletion is refused while the object carries the in-use label: the label is the whole decision, as the
// webhook's objectSelector is in Crossplane, and the usage controller removes it only once no Usage names the
// object. The message is the one the controller computed from every Usage naming the object (Crossplane's text).
// Forbidden, so clients see 403 rather than the default Invalid (422); Crossplane's webhook answers 409, which an
// admission policy cannot.
const policy = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: USAGE_POLICY_NAME },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: {
      resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['DELETE'], scope: '*' }],
      objectSelector: { matchLabels: { [IN_USE_LABEL]: 'true' } },
    },
    validations: [
      {
        expression: 'false',
        messageExpression:
          `has(oldObject.metadata.annotations) && '${IN_USE_MESSAGE_ANNOTATION}' in oldObject.metadata.annotations ` +
          `? ${MESSAGE} : 'This resource is in-use.'`,
        reason: 'Forbidden',
      },
    ],
  },
};

const binding = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: USAGE_POLICY_NAME },
  spec: { policyName: USAGE_POLICY_NAME, validationActions: ['Deny'] },
};

/**
 * The ValidatingAdmissionPolicy and its binding that protect objects in use, in place of Crossplane's webhook: no
 * server, no certificate. The Helm chart renders the same two (charts/compositor/templates/usage-policy.yaml).
 * Unlike the webhook, the policy cannot record a refused attempt (usage.crossplane.io/deletion-attempt-with-policy):
 * an admission policy writes nothing, so compositor's own deleters record theirs (docs/usages.md).
 */
export function usagePolicyManifests(): KubeObject[] {
  return [structuredClone(policy), structuredClone(binding)];
}

/**
 * Applies the policy and its binding (server-side, forced) when they are missing or differ, as `compositor start`
 * does unless --install-crds=false; a restart that finds them in place writes nothing.
 */
export async function ensureUsagePolicy(client: KubeClient, discovery: Discovery, signal?: AbortSignal): Promise<void> {
  for (const object of usagePolicyManifests()) {
    const path = await discovery.path(object.apiVersion, object.kind, object.metadata.name);
    const current = await getIfExists<KubeObject>(client, path, signal);
    if (current && isSubset(object.spec, current.spec)) continue;
    await serverSideApply(client, discovery, object, { fieldManager: USAGE_POLICY_FIELD_MANAGER, signal });
  }
}
