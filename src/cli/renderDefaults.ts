// The defaults of the XR's schema, applied to the XR file as the API server would apply them on create: crank's
// render does so when given --xrd (cmd/crank/render/xrd.go DefaultValues: xcrd.ForCompositeResource, then
// k8s.io/apiextensions-apiserver structural defaulting of the version the XR's apiVersion names).
import type { JsonObject } from '../functions/index.js';
import { renderXrCrd, type CompositeResourceDefinition, type JsonSchema } from '../definition/index.js';

interface CrdVersionSchema {
  name: string;
  schema?: { openAPIV3Schema?: JsonSchema };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The defaults of the object's own properties: set when absent, or when null and the property is not nullable. */
function defaultProperties(value: Record<string, unknown>, properties: Record<string, JsonSchema>): void {
  for (const [key, property] of Object.entries(properties)) {
    if (property.default === undefined) continue;
    if (!(key in value) || (value[key] === null && property.nullable !== true)) {
      value[key] = structuredClone(property.default);
    }
  }
}

/**
 * apiextensions-apiserver pkg/apiserver/schema/defaulting algorithm.go Default: the object's properties first, then
 * every value with a schema in turn (defaults included). Nothing creates a missing parent object: a nested default
 * applies only under a value that is there, or that a default put there.
 */
export function applyStructuralDefaults(value: unknown, schema: JsonSchema | undefined): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) applyStructuralDefaults(item, schema.items);
    return;
  }
  if (!isObject(value)) return;
  const properties = schema.properties ?? {};
  defaultProperties(value, properties);
  const additional = isObject(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : undefined;
  for (const [key, item] of Object.entries(value)) {
    applyStructuralDefaults(item, key in properties ? properties[key] : additional);
  }
}

/**
 * A copy of the XR with the defaults of its version's schema in the CRD the XRD generates. Throws when the XRD has
 * no version the XR's apiVersion names, with upstream's text.
 *
 * @example withSchemaDefaults(xr, xrd).spec.crossplane.compositionUpdatePolicy === 'Automatic'
 */
export function withSchemaDefaults(xr: JsonObject, xrd: CompositeResourceDefinition): JsonObject {
  const spec = renderXrCrd(xrd).spec as { group: string; versions: CrdVersionSchema[] };
  const apiVersion = typeof xr.apiVersion === 'string' ? xr.apiVersion : '';
  const version = spec.versions.find((v) => `${spec.group}/${v.name}` === apiVersion);
  if (version === undefined) throw new Error(`the specified API version '${apiVersion}' does not exist in the XRD`);
  const defaulted = structuredClone(xr);
  applyStructuralDefaults(defaulted, version.schema?.openAPIV3Schema);
  return defaulted;
}
