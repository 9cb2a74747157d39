import type { JsonSchema } from './xrd.js';

// The spec and status fields every XR carries, merged into the user's schema. Field names match Crossplane v2 so
// XRs move between Crossplane and compositor; status also declares compositor's own fields, which the API server
// would otherwise prune (upstream v2.3 forgot lastHandledReconcileAt, so it never stuck).

const nameRef: JsonSchema = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };

const labelSelector: JsonSchema = {
  type: 'object',
  required: ['matchLabels'],
  properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
};

function resourceRefs(withNamespace: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    name: { type: 'string' },
  };
  if (withNamespace) properties.namespace = { type: 'string' };
  return {
    type: 'array',
    'x-kubernetes-list-type': 'atomic',
    items: { type: 'object', required: ['apiVersion', 'kind'], properties },
  };
}

/** compositionRef, selectors, update policy and resourceRefs: under spec.crossplane (modern) or spec (legacy). */
export function compositionMachinery(options: {
  defaultUpdatePolicy: string;
  namespacedRefs: boolean;
}): Record<string, JsonSchema> {
  return {
    compositionRef: nameRef,
    compositionSelector: labelSelector,
    compositionRevisionRef: nameRef,
    compositionRevisionSelector: labelSelector,
    compositionUpdatePolicy: { type: 'string', enum: ['Automatic', 'Manual'], default: options.defaultUpdatePolicy },
    resourceRefs: resourceRefs(options.namespacedRefs),
  };
}

/** Only legacy (LegacyCluster) XRs: claims and connection secrets. */
export const legacySpecFields: Record<string, JsonSchema> = {
  claimRef: {
    type: 'object',
    required: ['apiVersion', 'kind', 'namespace', 'name'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      namespace: { type: 'string' },
      name: { type: 'string' },
    },
  },
  writeConnectionSecretToRef: {
    type: 'object',
    required: ['name', 'namespace'],
    properties: { name: { type: 'string' }, namespace: { type: 'string' } },
  },
};

export const conditionsSchema: JsonSchema = {
  type: 'array',
  description: 'Conditions of the resource.',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['lastTransitionTime', 'reason', 'status', 'type'],
    properties: {
      type: { type: 'string' },
      status: { type: 'string' },
      reason: { type: 'string' },
      message: { type: 'string' },
      lastTransitionTime: { type: 'string', format: 'date-time' },
      observedGeneration: { type: 'integer', format: 'int64' },
    },
  },
};

export function statusFields(legacy: boolean): Record<string, JsonSchema> {
  const fields: Record<string, JsonSchema> = {
    conditions: conditionsSchema,
    lastHandledReconcileAt: {
      type: 'string',
      description: 'The last crossplane.io/reconcile-requested-at token that was handled.',
    },
    effectivePollInterval: {
      type: 'string',
      description: 'The poll interval in force, after crossplane.io/poll-interval and --min-poll-interval.',
    },
  };
  if (legacy) {
    fields.connectionDetails = {
      type: 'object',
      properties: { lastPublishedTime: { type: 'string', format: 'date-time' } },
    };
    fields.claimConditionTypes = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } };
  }
  return fields;
}
