import type { CustomResourceDefinition } from '../apis/index.js';
import { compositionMachinery, conditionsSchema } from './machinery.js';
import { xrdOwnerReferences, type CompositeResourceDefinition, type JsonSchema, type XrdVersion } from './xrd.js';

/** The names a v1 XRD gives its claims (spec.claimNames), as in a CRD's names. */
export interface ClaimNames {
  kind: string;
  plural: string;
  singular?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export function claimNamesOf(xrd: CompositeResourceDefinition): ClaimNames | undefined {
  const names = xrd.spec.claimNames as Partial<ClaimNames> | undefined;
  if (!names?.kind || !names.plural) return undefined;
  return names as ClaimNames;
}

/** The claim CRD's name: <claim plural>.<group>. */
export function claimCrdName(xrd: CompositeResourceDefinition, names: ClaimNames): string {
  return `${names.plural}.${xrd.spec.group}`;
}

/** Fields every claim carries besides the user's: how its XR is chosen, bound, deleted and connected. */
function claimSpecFields(xrd: CompositeResourceDefinition): Record<string, JsonSchema> {
  const { resourceRefs: _resourceRefs, ...machinery } = compositionMachinery({
    defaultUpdatePolicy: xrd.spec.defaultCompositionUpdatePolicy ?? 'Automatic',
    namespacedRefs: false,
  });
  return {
    ...machinery,
    compositeDeletePolicy: {
      type: 'string',
      enum: ['Background', 'Foreground'],
      default: xrd.spec.defaultCompositeDeletePolicy ?? 'Background',
    },
    resourceRef: {
      type: 'object',
      description: 'The composite resource this claim is bound to.',
      required: ['apiVersion', 'kind', 'name'],
      properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' } },
    },
    writeConnectionSecretToRef: {
      type: 'object',
      description: "The Secret in the claim's namespace that receives its composite resource's connection details.",
      required: ['name'],
      properties: { name: { type: 'string' } },
    },
  };
}

const claimStatusFields: Record<string, JsonSchema> = {
  conditions: conditionsSchema,
  connectionDetails: {
    type: 'object',
    properties: { lastPublishedTime: { type: 'string', format: 'date-time' } },
  },
};

/**
 * The CRD that serves an XRD's claims (only v1 LegacyCluster XRDs with spec.claimNames offer them): namespaced,
 * the XRD's versions and user schema, plus the claim fields; owned by the XRD so it goes with it.
 */
export function renderClaimCrd(xrd: CompositeResourceDefinition, names: ClaimNames): CustomResourceDefinition {
  const { spec } = xrd;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: claimCrdName(xrd, names),
      labels: { ...xrd.metadata.labels, ...spec.metadata?.labels },
      ...(spec.metadata?.annotations ? { annotations: spec.metadata.annotations } : {}),
      ...xrdOwnerReferences(xrd, true),
    },
    spec: {
      group: spec.group,
      names: { ...names, categories: [...new Set([...(names.categories ?? []), 'claim'])] },
      scope: 'Namespaced',
      versions: spec.versions.map((version) => renderClaimVersion(xrd, version)),
      ...(spec.conversion ? { conversion: spec.conversion } : {}),
    },
  };
}

function renderClaimVersion(xrd: CompositeResourceDefinition, version: XrdVersion): Record<string, unknown> {
  const user = version.schema?.openAPIV3Schema ?? {};
  const userSpec = user.properties?.spec ?? {};
  const userStatus = user.properties?.status ?? {};
  const rendered: Record<string, unknown> = {
    name: version.name,
    served: version.served,
    storage: version.referenceable,
    schema: {
      openAPIV3Schema: {
        type: 'object',
        required: ['spec'],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: 'object' },
          spec: { ...userSpec, type: 'object', properties: { ...userSpec.properties, ...claimSpecFields(xrd) } },
          status: {
            ...userStatus,
            type: 'object',
            properties: { ...userStatus.properties, ...claimStatusFields },
          },
        },
      },
    },
    additionalPrinterColumns: [
      ...(version.additionalPrinterColumns ?? []),
      { name: 'SYNCED', type: 'string', jsonPath: ".status.conditions[?(@.type=='Synced')].status" },
      { name: 'READY', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
      { name: 'CONNECTION-SECRET', type: 'string', jsonPath: '.spec.writeConnectionSecretToRef.name' },
      { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    subresources: { status: {} },
  };
  if (version.deprecated !== undefined) rendered.deprecated = version.deprecated;
  if (version.deprecationWarning !== undefined) rendered.deprecationWarning = version.deprecationWarning;
  return rendered;
}
