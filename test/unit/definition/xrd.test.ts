import { expect } from 'chai';
import { renderXrCrd, validateXrd, type CompositeResourceDefinition } from '../../../src/definition/index.js';

function xrd(
  overrides: Partial<CompositeResourceDefinition['spec']> = {},
  apiVersion = 'apiextensions.crossplane.io/v2',
): CompositeResourceDefinition {
  return {
    apiVersion,
    kind: 'CompositeResourceDefinition',
    metadata: { name: 'apps.example.org', uid: 'xrd-uid', labels: { team: 'platform' } },
    spec: {
      group: 'example.org',
      names: { kind: 'App', plural: 'apps' },
      versions: [
        {
          name: 'v1',
          served: true,
          referenceable: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', required: ['image'], properties: { image: { type: 'string' } } },
                status: { type: 'object', properties: { url: { type: 'string' } } },
              },
            },
          },
        },
      ],
      ...overrides,
    },
  };
}

type Schema = { properties: Record<string, Schema>; required?: string[]; default?: unknown; maxLength?: number };

function schemaOf(crd: ReturnType<typeof renderXrCrd>): Schema {
  const versions = crd.spec.versions as { schema: { openAPIV3Schema: Schema } }[];
  const first = versions[0];
  if (!first) throw new Error('no version rendered');
  return first.schema.openAPIV3Schema;
}

describe('definition/validateXrd', () => {
  it('accepts a valid XRD', () => {
    expect(validateXrd(xrd())).to.deep.equal([]);
  });

  const invalid: Record<string, { spec: Partial<CompositeResourceDefinition['spec']>; want: string }> = {
    'no versions': { spec: { versions: [] }, want: 'spec.versions must list at least one version' },
    'no schema': {
      spec: { versions: [{ name: 'v1', served: true, referenceable: true }] },
      want: 'version "v1" has no schema.openAPIV3Schema',
    },
    'two referenceable versions': {
      spec: {
        versions: [
          { name: 'v1', served: true, referenceable: true, schema: { openAPIV3Schema: {} } },
          { name: 'v2', served: true, referenceable: true, schema: { openAPIV3Schema: {} } },
        ],
      },
      want: 'exactly one version must be referenceable, found 2',
    },
    'unserved referenceable version': {
      spec: { versions: [{ name: 'v1', served: false, referenceable: true, schema: { openAPIV3Schema: {} } }] },
      want: 'referenceable version "v1" must be served',
    },
    'spec that is not an object': {
      spec: {
        versions: [
          {
            name: 'v1',
            served: true,
            referenceable: true,
            schema: { openAPIV3Schema: { properties: { spec: { type: 'string' } } } },
          },
        ],
      },
      want: 'version "v1": spec must be of type object, not string',
    },
    'name not plural.group': { spec: { group: 'other.org' }, want: 'metadata.name must be "apps.other.org"' },
    'claims on a namespaced XRD': {
      spec: { claimNames: { kind: 'AppClaim', plural: 'appclaims' } },
      want: 'spec.claimNames requires scope LegacyCluster',
    },
  };
  for (const [reason, { spec, want }] of Object.entries(invalid)) {
    it(`rejects ${reason}`, () => {
      expect(validateXrd(xrd(spec)).join('\n')).to.include(want);
    });
  }
});

describe('definition/renderXrCrd', () => {
  it('renders a namespaced CRD owned by the XRD with the composite category', () => {
    const crd = renderXrCrd(xrd());
    expect(crd.metadata.name).to.equal('apps.example.org');
    expect(crd.metadata.labels).to.deep.equal({ team: 'platform' });
    expect(crd.metadata.ownerReferences?.[0]).to.include({
      kind: 'CompositeResourceDefinition',
      uid: 'xrd-uid',
      controller: true,
    });
    expect(crd.spec).to.include({ group: 'example.org', scope: 'Namespaced' });
    expect((crd.spec.names as { categories: string[] }).categories).to.include('composite');
    expect(crd.spec.versions).to.have.length(1);
    expect((crd.spec.versions as Record<string, unknown>[])[0]).to.include({ storage: true, served: true });
  });

  it('keeps the user schema and adds spec.crossplane plus compositor status fields', () => {
    const schema = schemaOf(renderXrCrd(xrd()));
    expect(schema.required).to.deep.equal(['spec']);
    const spec = schema.properties.spec;
    expect(spec?.required).to.deep.equal(['image']);
    expect(spec?.properties).to.have.keys('image', 'crossplane');
    expect(spec?.properties.crossplane?.properties).to.include.keys(
      'compositionRef',
      'compositionSelector',
      'compositionUpdatePolicy',
      'resourceRefs',
    );
    // No default unless the XRD names one (the API server defaults the XRD's to Automatic).
    expect(spec?.properties.crossplane?.properties.compositionUpdatePolicy?.default).to.equal(undefined);
    expect(schema.properties.status?.properties).to.include.keys(
      'url',
      'conditions',
      'lastHandledReconcileAt',
      'effectivePollInterval',
    );
    expect(schema.properties.metadata?.properties.name?.maxLength).to.equal(63);
  });

  it('puts machinery at spec for legacy XRDs (v1 default scope), with claim and connection secret fields', () => {
    const crd = renderXrCrd(xrd({ defaultCompositionUpdatePolicy: 'Manual' }, 'apiextensions.crossplane.io/v1'));
    expect(crd.spec.scope).to.equal('Cluster');
    const schema = schemaOf(crd);
    expect(schema.properties.spec?.properties).to.include.keys(
      'compositionRef',
      'resourceRefs',
      'claimRef',
      'writeConnectionSecretToRef',
    );
    expect(schema.properties.spec?.properties).not.to.have.key('crossplane');
    expect(schema.properties.spec?.properties.compositionUpdatePolicy?.default).to.equal('Manual');
    expect(schema.properties.status?.properties).to.include.keys('connectionDetails', 'claimConditionTypes');
  });

  it('renders Cluster scope as a cluster-scoped CRD with modern machinery', () => {
    const crd = renderXrCrd(xrd({ scope: 'Cluster' }));
    expect(crd.spec.scope).to.equal('Cluster');
    expect(schemaOf(crd).properties.spec?.properties).to.include.keys('crossplane', 'image');
  });
});
