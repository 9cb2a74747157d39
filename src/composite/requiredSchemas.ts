import type { JsonObject, JsonValue, Schema, SchemaSelector } from '../functions/index.js';
import type { KubeClient } from '../kube/index.js';

// Required schemas (Crossplane v2.2): the OpenAPI v3 schema of a kind, from the API server's /openapi/v3, with every
// $ref replaced by the schema it names, so a function gets one self-contained schema.

interface OpenApiIndex {
  paths?: Record<string, { serverRelativeURL?: string }>;
}

/** An OpenAPI v3 document of one group-version, as /openapi/v3 serves it. */
export interface OpenApiDocument {
  components?: { schemas?: Record<string, JsonObject> };
}

const REF_PREFIX = '#/components/schemas/';

/** Per-group-version OpenAPI documents, kept while the API server's hash for them stays the same. */
export class OpenApiSchemas {
  private readonly documents = new Map<string, { url: string; document: OpenApiDocument }>();

  constructor(private readonly client: KubeClient) {}

  /** The schema of the selected kind; an empty Schema when the API server does not serve it, as upstream answers. */
  async fetch(selector: SchemaSelector, signal?: AbortSignal): Promise<Schema> {
    const { apiVersion = '', kind = '' } = selector;
    const { group, version } = parseApiVersion(apiVersion);
    const document = await this.document(group === '' ? `api/${version}` : `apis/${apiVersion}`, signal);
    return schemaIn(document === undefined ? [] : [document], { apiVersion, kind });
  }

  private async document(key: string, signal?: AbortSignal): Promise<OpenApiDocument | undefined> {
    const index = await this.client.request<OpenApiIndex>('GET', '/openapi/v3', { signal });
    const url = index.paths?.[key]?.serverRelativeURL;
    if (url === undefined) return undefined;
    const cached = this.documents.get(key);
    if (cached?.url === url) return cached.document;
    const [path = '', search = ''] = url.split('?');
    const query = Object.fromEntries(new URLSearchParams(search));
    const document = await this.client.request<OpenApiDocument>('GET', path, { query, signal });
    this.documents.set(key, { url, document });
    return document;
  }
}

/**
 * The schema of the selected kind in the first document that has it, references flattened within that document; an
 * empty Schema when none does. `compositor render` reads the documents from files, the engine from the API server.
 */
export function schemaIn(documents: readonly OpenApiDocument[], selector: SchemaSelector): Schema {
  if (documents.length === 0) return {};
  const { apiVersion = '', kind = '' } = selector;
  const { group, version } = parseApiVersion(apiVersion);
  for (const document of documents) {
    const schemas = document.components?.schemas ?? {};
    const found = Object.values(schemas).find((s) => isKindSchema(s, group, version, kind));
    if (found !== undefined) return { openapiV3: flatten(found, schemas, new Set()) as JsonObject };
  }
  return {};
}

function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (apiVersion === '' || parts.length > 2) throw new Error(`cannot parse apiVersion "${apiVersion}"`);
  return parts.length === 2 ? { group: parts[0] ?? '', version: parts[1] ?? '' } : { group: '', version: apiVersion };
}

const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');

/** True for the schema that alone stands for group/version/kind (shared ones such as DeleteOptions are skipped). */
function isKindSchema(schema: JsonObject, group: string, version: string, kind: string): boolean {
  const gvks = schema['x-kubernetes-group-version-kind'];
  if (!Array.isArray(gvks) || gvks.length !== 1) return false;
  const gvk = gvks[0] as Record<string, JsonValue> | undefined;
  return (
    text(gvk?.group).toLowerCase() === group.toLowerCase() &&
    text(gvk?.version).toLowerCase() === version.toLowerCase() &&
    gvk?.kind === kind
  );
}

/**
 * Replaces every {$ref} with the schema it names, transitively. The API server wraps a reference with a description
 * or default as {allOf: [{$ref}], ...}; that single-element allOf is merged into its parent so, for instance,
 * `properties.metadata.properties` exists. A reference back into its own path (a recursive type) is left as it is.
 */
export function flatten(value: JsonValue, schemas: Record<string, JsonObject>, path: ReadonlySet<string>): JsonValue {
  if (Array.isArray(value)) return value.map((item) => flatten(item, schemas, path));
  if (value === null || typeof value !== 'object') return value;
  const ref = value.$ref;
  if (typeof ref === 'string' && ref.startsWith(REF_PREFIX)) {
    const name = ref.slice(REF_PREFIX.length);
    const target = schemas[name];
    if (target === undefined || path.has(name)) return value;
    return flatten(target, schemas, new Set([...path, name]));
  }
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) out[key] = flatten(child, schemas, path);
  return mergeSingleAllOf(out);
}

function mergeSingleAllOf(schema: JsonObject): JsonObject {
  const { allOf, ...rest } = schema;
  if (!Array.isArray(allOf) || allOf.length !== 1) return schema;
  const only = allOf[0];
  return isObject(only) && only.$ref === undefined ? { ...only, ...rest } : schema;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
