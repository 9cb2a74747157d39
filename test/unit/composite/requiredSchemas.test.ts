import { expect } from 'chai';
import { flatten } from '../../../src/composite/requiredSchemas.js';
import type { JsonObject, JsonValue } from '../../../src/functions/index.js';

// Required schemas are flattened as Crossplane's fetcher does: every $ref replaced by the schema it names,
// transitively; the API server's {allOf: [{$ref}]} wrapper merged into its parent; recursive types left referenced.
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const OWNER = 'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference';
const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const owner: JsonObject = { type: 'object', properties: { uid: { type: 'string' } } };
const metaProperties: JsonObject = { name: { type: 'string' }, ownerReferences: { type: 'array', items: ref(OWNER) } };
const meta: JsonObject = { type: 'object', properties: metaProperties };
const schemas: Record<string, JsonObject> = {
  [META]: meta,
  [OWNER]: owner,
  Loop: { properties: { self: ref('Loop') } },
};
const flatMeta = { ...meta, properties: { ...metaProperties, ownerReferences: { type: 'array', items: owner } } };

const cases: Record<string, { reason: string; args: JsonValue; want: JsonValue }> = {
  direct: {
    reason: 'a $ref is replaced by its schema, and the references inside it too',
    args: { properties: { metadata: ref(META) } },
    want: { properties: { metadata: flatMeta } },
  },
  allOfWrapper: {
    reason: "the API server's allOf wrapper is merged into its parent, keeping the parent's own keys",
    args: { properties: { metadata: { allOf: [ref(META)], description: 'meta', default: {} } } },
    want: { properties: { metadata: { ...flatMeta, description: 'meta', default: {} } } },
  },
  recursive: {
    reason: 'a reference back into its own path stays a reference',
    args: ref('Loop'),
    want: { properties: { self: ref('Loop') } },
  },
  unknown: { reason: 'an unknown reference is left as it is', args: ref('Nope'), want: ref('Nope') },
};

describe('composite/requiredSchemas: flatten', () => {
  for (const [name, { reason, args, want }] of Object.entries(cases)) {
    it(name, () => {
      expect(flatten(args, schemas, new Set()), reason).to.deep.equal(want);
    });
  }
});
