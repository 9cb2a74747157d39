// An XRD's schema as Crossplane reads it: unmarshalled into apiextensions' JSONSchemaProps, which keeps the keywords
// that type declares and silently drops every other key (a misspelt "decription", say). compositor renders CRDs from
// the XRD's raw JSON, so it drops the same keys; otherwise the API server's typed server-side apply refuses the whole
// CRD ("field not declared in schema") where Crossplane installs it. Values (default, enum, example) are kept whole.
import type { JsonSchema } from './xrd.js';

/** The JSON names of JSONSchemaProps' fields (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1). */
const KEYWORDS = new Set([
  'id',
  '$schema',
  '$ref',
  'description',
  'type',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'patternProperties',
  'dependencies',
  'additionalItems',
  'definitions',
  'externalDocs',
  'example',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

/** Keywords whose value is a schema, a list of schemas, or a map of them; every other keyword's value is data. */
const SCHEMA = new Set(['items', 'not', 'additionalProperties', 'additionalItems']);
const SCHEMA_LISTS = new Set(['allOf', 'oneOf', 'anyOf']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', 'dependencies']);

/** The schema with every key JSONSchemaProps does not declare dropped, at every depth. */
export function asJsonSchemaProps(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!KEYWORDS.has(key)) continue;
    if (SCHEMA.has(key)) out[key] = subschema(value);
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map(subschema);
    else if (SCHEMA_MAPS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, subschema(s)]));
    } else out[key] = value;
  }
  return out;
}

/** A schema position: a schema is cleaned; a list (items, dependencies) cleans its schemas; a boolean is kept. */
function subschema(value: unknown): unknown {
  if (Array.isArray(value)) return (value as unknown[]).map((v) => (isObject(v) ? asJsonSchemaProps(v) : v));
  return isObject(value) ? asJsonSchemaProps(value) : value;
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
