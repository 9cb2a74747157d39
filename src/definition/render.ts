import type { CustomResourceDefinition } from '../apis/index.js';
import { compositionMachinery, legacySpecFields, statusFields } from './machinery.js';
import {
  xrdOwnerReferences,
  xrdScope,
  type CompositeResourceDefinition,
  type JsonSchema,
  type XrdVersion,
} from './xrd.js';

const MAX_NAME_LENGTH = 63;

/**
 * The CRD that serves an XRD's composite resources: names and versions from the XRD, the user's spec and status
 * schema merged with the fields every XR carries, and a controller reference to the XRD so it is garbage
 * collected with it. Pure: call validateXrd first.
 */
export function renderXrCrd(xrd: CompositeResourceDefinition): CustomResourceDefinition {
  const scope = xrdScope(xrd);
  const { spec } = xrd;
  const labels = { ...xrd.metadata.labels, ...spec.metadata?.labels };
  const crdSpec: Record<string, unknown> = {
    group: spec.group,
    names: { ...spec.names, categories: [...new Set([...(spec.names.categories ?? []), 'composite'])] },
    scope: scope === 'Namespaced' ? 'Namespaced' : 'Cluster',
    versions: spec.versions.map((version) => renderVersion(xrd, version)),
  };
  if (spec.conversion) crdSpec.conversion = spec.conversion;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: xrd.metadata.name,
      labels,
      ...(spec.metadata?.annotations ? { annotations: spec.metadata.annotations } : {}),
      ...xrdOwnerReferences(xrd, true),
    },
    spec: crdSpec,
  };
}

function renderVersion(xrd: CompositeResourceDefinition, version: XrdVersion): Record<string, unknown> {
  const rendered: Record<string, unknown> = {
    name: version.name,
    served: version.served,
    storage: version.referenceable,
    schema: { openAPIV3Schema: renderSchema(xrd, version.schema?.openAPIV3Schema ?? {}) },
    additionalPrinterColumns: [
      ...(version.additionalPrinterColumns ?? []),
      ...defaultColumns(xrdScope(xrd) === 'LegacyCluster'),
    ],
    subresources: { status: {}, ...(version.subresources?.scale ? { scale: version.subresources.scale } : {}) },
  };
  if (version.deprecated !== undefined) rendered.deprecated = version.deprecated;
  if (version.deprecationWarning !== undefined) rendered.deprecationWarning = version.deprecationWarning;
  return rendered;
}

function renderSchema(xrd: CompositeResourceDefinition, user: JsonSchema): JsonSchema {
  const scope = xrdScope(xrd);
  const legacy = scope === 'LegacyCluster';
  const machinery = compositionMachinery({
    defaultUpdatePolicy: xrd.spec.defaultCompositionUpdatePolicy ?? 'Automatic',
    namespacedRefs: scope !== 'Namespaced',
  });
  const userSpec = user.properties?.spec ?? {};
  const userStatus = user.properties?.status ?? {};
  const specProperties: Record<string, JsonSchema> = legacy
    ? { ...userSpec.properties, ...machinery, ...legacySpecFields }
    : {
        ...userSpec.properties,
        crossplane: {
          type: 'object',
          description: 'Configures how Crossplane will reconcile this composite resource',
          properties: machinery,
        },
      };
  return {
    type: 'object',
    required: ['spec'],
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string', maxLength: nameLimit(user) } } },
      spec: { ...userSpec, type: 'object', properties: specProperties },
      status: { ...userStatus, type: 'object', properties: { ...userStatus.properties, ...statusFields(legacy) } },
    },
  };
}

/** The user's metadata.name maxLength when it is stricter than Kubernetes' 63. */
function nameLimit(user: JsonSchema): number {
  const limit = user.properties?.metadata?.properties?.name?.maxLength;
  return typeof limit === 'number' && limit < MAX_NAME_LENGTH ? limit : MAX_NAME_LENGTH;
}

function defaultColumns(legacy: boolean): Record<string, unknown>[] {
  const prefix = legacy ? '.spec' : '.spec.crossplane';
  return [
    { name: 'SYNCED', type: 'string', jsonPath: ".status.conditions[?(@.type=='Synced')].status" },
    { name: 'READY', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
    { name: 'COMPOSITION', type: 'string', jsonPath: `${prefix}.compositionRef.name` },
    { name: 'COMPOSITIONREVISION', type: 'string', jsonPath: `${prefix}.compositionRevisionRef.name`, priority: 1 },
    { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ];
}
