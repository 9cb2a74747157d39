import type { JsonSchema, XrdScope } from './xrd.js';

// The fields, columns and status every generated XR and claim CRD carries, as Crossplane v2.3 generates them (its
// xcrd schemas): the same properties, required lists, list types and defaults, and no descriptions beyond upstream's,
// so a CRD either engine wrote reads as unchanged to the other. compositor adds only COMPOSITOR_STATUS_PROPS
// (docs/crds.md).

const nameRef = (): JsonSchema => ({
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' } },
});

const labelSelector = (): JsonSchema => ({
  type: 'object',
  required: ['matchLabels'],
  properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
});

const enumOf = (values: string[], defaultValue?: string): JsonSchema => ({
  type: 'string',
  enum: values,
  ...(defaultValue === undefined ? {} : { default: defaultValue }),
});

/**
 * resourceRefs; namespaced XRs may not reference composed resources in other namespaces, so have no namespace. With
 * composed resource ordering each entry also keeps its composition resource name and what it depends on, the two
 * fields crossplane-runtime's ordering prototype adds, so teardown can run in order without the pipeline. Only then:
 * otherwise the CRD stays exactly Crossplane's.
 */
function resourceRefs(scope: XrdScope, ordering: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    apiVersion: { type: 'string' },
    name: { type: 'string' },
    ...(scope === 'Namespaced' ? {} : { namespace: { type: 'string' } }),
    kind: { type: 'string' },
    ...(ordering ? { resourceName: { type: 'string' }, dependsOn: { type: 'array', items: { type: 'string' } } } : {}),
  };
  return {
    type: 'array',
    items: { type: 'object', properties, required: ['apiVersion', 'kind'] },
    // Controllers replace the whole array.
    'x-kubernetes-list-type': 'atomic',
  };
}

/**
 * The spec properties of an XR: under spec.crossplane for Namespaced and Cluster XRs, directly under spec (with
 * claimRef and writeConnectionSecretToRef) for LegacyCluster ones. compositionUpdatePolicy defaults to the XRD's
 * defaultCompositionUpdatePolicy, and has no default when the XRD has none.
 */
export function compositeSpecProps(
  scope: XrdScope,
  defaultUpdatePolicy?: string,
  ordering = false,
): Record<string, JsonSchema> {
  const props: Record<string, JsonSchema> = {
    compositionRef: nameRef(),
    compositionSelector: labelSelector(),
    compositionRevisionRef: nameRef(),
    compositionRevisionSelector: labelSelector(),
    compositionUpdatePolicy: enumOf(['Automatic', 'Manual'], defaultUpdatePolicy),
    resourceRefs: resourceRefs(scope, ordering),
  };
  if (scope === 'LegacyCluster') {
    props.claimRef = {
      type: 'object',
      required: ['apiVersion', 'kind', 'namespace', 'name'],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        namespace: { type: 'string' },
        name: { type: 'string' },
      },
    };
    props.writeConnectionSecretToRef = {
      type: 'object',
      required: ['name', 'namespace'],
      properties: { name: { type: 'string' }, namespace: { type: 'string' } },
    };
    return props;
  }
  return {
    crossplane: {
      type: 'object',
      description: 'Configures how Crossplane will reconcile this composite resource',
      properties: props,
    },
  };
}

/**
 * The spec properties of a claim. Unlike an XR's, compositionUpdatePolicy has no default (the XR gets its default),
 * and compositeDeletePolicy defaults to the XRD's defaultCompositeDeletePolicy only when the XRD has one.
 */
export function claimSpecProps(defaultDeletePolicy?: string): Record<string, JsonSchema> {
  return {
    compositionRef: nameRef(),
    compositionSelector: labelSelector(),
    compositionRevisionRef: nameRef(),
    compositionRevisionSelector: labelSelector(),
    compositionUpdatePolicy: enumOf(['Automatic', 'Manual']),
    compositeDeletePolicy: enumOf(['Background', 'Foreground'], defaultDeletePolicy),
    resourceRef: {
      type: 'object',
      required: ['apiVersion', 'kind', 'name'],
      properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' } },
    },
    writeConnectionSecretToRef: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' } },
    },
  };
}

function conditions(): JsonSchema {
  return {
    description: 'Conditions of the resource.',
    type: 'array',
    'x-kubernetes-list-map-keys': ['type'],
    'x-kubernetes-list-type': 'map',
    items: {
      type: 'object',
      required: ['lastTransitionTime', 'reason', 'status', 'type'],
      properties: {
        lastTransitionTime: { type: 'string', format: 'date-time' },
        message: { type: 'string' },
        reason: { type: 'string' },
        status: { type: 'string' },
        type: { type: 'string' },
        observedGeneration: { type: 'integer', format: 'int64' },
      },
    },
  };
}

/**
 * The status properties of an XR (and, with LegacyCluster, of a claim, as upstream generates claims):
 * conditions, plus connectionDetails and claimConditionTypes for LegacyCluster.
 */
export function compositeStatusProps(scope: XrdScope): Record<string, JsonSchema> {
  const props: Record<string, JsonSchema> = { conditions: conditions() };
  if (scope !== 'LegacyCluster') return props;
  props.connectionDetails = {
    type: 'object',
    properties: { lastPublishedTime: { type: 'string', format: 'date-time' } },
  };
  props.claimConditionTypes = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } };
  return props;
}

/**
 * compositor's only additions to a generated CRD: two XR status fields it writes, which a schema without them
 * prunes. Claims do not carry them.
 */
export function compositorStatusProps(): Record<string, JsonSchema> {
  return {
    effectivePollInterval: {
      type: 'string',
      description: 'The poll interval in force, after crossplane.io/poll-interval and --min-poll-interval.',
    },
    lastHandledReconcileAt: {
      type: 'string',
      description: 'The last crossplane.io/reconcile-requested-at token that was handled.',
    },
  };
}

/** The printer columns every XR CRD ends with; LegacyCluster XRs keep the composition refs at spec. */
export function compositeColumns(scope: XrdScope): Record<string, unknown>[] {
  const prefix = scope === 'LegacyCluster' ? '.spec' : '.spec.crossplane';
  return [
    { name: 'SYNCED', type: 'string', jsonPath: ".status.conditions[?(@.type=='Synced')].status" },
    { name: 'READY', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
    { name: 'COMPOSITION', type: 'string', jsonPath: `${prefix}.compositionRef.name` },
    { name: 'COMPOSITIONREVISION', type: 'string', jsonPath: `${prefix}.compositionRevisionRef.name`, priority: 1 },
    { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ];
}

/** The printer columns every claim CRD ends with. */
export function claimColumns(): Record<string, unknown>[] {
  return [
    { name: 'SYNCED', type: 'string', jsonPath: ".status.conditions[?(@.type=='Synced')].status" },
    { name: 'READY', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
    { name: 'CONNECTION-SECRET', type: 'string', jsonPath: '.spec.writeConnectionSecretToRef.name' },
    { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ];
}
