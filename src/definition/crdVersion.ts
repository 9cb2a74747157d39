import type { CustomResourceDefinition } from '../apis/index.js';
import { asJsonSchemaProps } from './jsonSchemaProps.js';
import { xrdOwnerReferences, type CompositeResourceDefinition, type JsonSchema, type XrdVersion } from './xrd.js';

/** XR and claim names become label values, which Kubernetes caps at 63 characters. */
const MAX_NAME_LENGTH = 63;

/** One version of a generated CRD, with the spec and status objects the XR or claim fields are merged into. */
export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema: { openAPIV3Schema: JsonSchema & { properties: { spec: SchemaObject; status: SchemaObject } } };
  additionalPrinterColumns: Record<string, unknown>[];
  subresources: { status: Record<string, never>; scale?: Record<string, unknown> };
}

type SchemaObject = JsonSchema & { properties: Record<string, JsonSchema> };

/**
 * A version of an XR or claim CRD before its XR or claim fields are added, built as Crossplane builds it. Of the
 * user's schema it keeps: at the root the description and x-kubernetes-validations; of spec the description,
 * required, x-kubernetes-preserve-unknown-fields, x-kubernetes-validations, oneOf and properties; of status the
 * description, required, x-kubernetes-validations, oneOf and properties; of metadata only a name maxLength stricter
 * than 63. Anything else there is dropped, as upstream drops it, so both engines render the same CRD.
 */
export function baseVersion(version: XrdVersion): CrdVersion {
  const user = asJsonSchemaProps(version.schema?.openAPIV3Schema ?? {});
  const rendered: CrdVersion = {
    name: version.name,
    served: version.served,
    storage: version.referenceable,
    schema: {
      openAPIV3Schema: {
        type: 'object',
        required: ['spec'],
        ...pick(user, ['description', 'x-kubernetes-validations']),
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: 'object', properties: { name: { type: 'string', maxLength: nameLimit(user) } } },
          spec: carried(user.properties?.spec, SPEC_KEYWORDS),
          status: carried(user.properties?.status, STATUS_KEYWORDS),
        },
      },
    },
    additionalPrinterColumns: [...(version.additionalPrinterColumns ?? [])],
    subresources: { status: {}, ...(version.subresources?.scale ? { scale: version.subresources.scale } : {}) },
  };
  // Upstream's deprecated is a plain bool: false is the same as absent, and the API server stores neither.
  if (version.deprecated === true) rendered.deprecated = true;
  if (version.deprecationWarning !== undefined) rendered.deprecationWarning = version.deprecationWarning;
  return rendered;
}

const SPEC_KEYWORDS = [
  'description',
  'required',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-validations',
  'oneOf',
] as const;
const STATUS_KEYWORDS = ['description', 'required', 'x-kubernetes-validations', 'oneOf'] as const;

function carried(user: JsonSchema | undefined, keywords: readonly string[]): SchemaObject {
  return { type: 'object', ...pick(user ?? {}, keywords), properties: { ...user?.properties } };
}

/** The named keywords of a schema that are set; empty lists count as unset, as they do for the API server. */
function pick(schema: JsonSchema, keywords: readonly string[]): JsonSchema {
  const picked: JsonSchema = {};
  for (const keyword of keywords) {
    const value = schema[keyword];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    picked[keyword] = value;
  }
  return picked;
}

/** The user's metadata.name maxLength when it is stricter than 63. */
function nameLimit(user: JsonSchema): number {
  const limit = user.properties?.metadata?.properties?.name?.maxLength;
  return typeof limit === 'number' && limit < MAX_NAME_LENGTH ? limit : MAX_NAME_LENGTH;
}

/**
 * A generated CRD's metadata: the XRD's labels merged with spec.metadata.labels, spec.metadata.annotations (not the
 * XRD's own annotations), and a controller reference to the XRD so the garbage collector deletes it with the XRD.
 */
export function crdMetadata(xrd: CompositeResourceDefinition, name: string): CustomResourceDefinition['metadata'] {
  const labels = { ...xrd.metadata.labels, ...xrd.spec.metadata?.labels };
  const annotations = xrd.spec.metadata?.annotations ?? {};
  return {
    name,
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    ...xrdOwnerReferences(xrd, true),
  };
}

/** The XRD's names with a category appended, as upstream appends it (no de-duplication). */
export function namesWithCategory<T extends { categories?: string[] }>(names: T, category: string): T {
  return { ...names, categories: [...(names.categories ?? []), category] };
}
