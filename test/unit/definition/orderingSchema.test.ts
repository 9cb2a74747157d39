import { expect } from 'chai';
import { renderXrCrd, type CompositeResourceDefinition } from '../../../src/definition/index.js';

// With --enable-composed-resource-ordering the XR CRD keeps the two fields each resourceRefs entry gains in
// crossplane-runtime's ordering prototype (reference.Composed: resourceName, dependsOn); without it the CRD is
// Crossplane's, byte for byte (render.test.ts).

function xrd(scope: 'Namespaced' | 'Cluster' | 'LegacyCluster'): CompositeResourceDefinition {
  return {
    apiVersion: 'apiextensions.crossplane.io/v2',
    kind: 'CompositeResourceDefinition',
    metadata: { name: 'apps.example.org', uid: 'u' },
    spec: {
      group: 'example.org',
      names: { kind: 'App', listKind: 'AppList', plural: 'apps', singular: 'app' },
      scope,
      versions: [
        {
          name: 'v1',
          served: true,
          referenceable: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } },
        },
      ],
    },
  };
}

type Schema = { properties?: Record<string, Schema>; items?: Schema };

function refItem(crd: ReturnType<typeof renderXrCrd>, legacy: boolean): Schema | undefined {
  const versions = crd.spec.versions as { schema: { openAPIV3Schema: Schema } }[];
  const spec = versions[0]?.schema.openAPIV3Schema.properties?.spec;
  const machinery = legacy ? spec : spec?.properties?.crossplane;
  return machinery?.properties?.resourceRefs?.items;
}

describe('definition/render: resourceRefs ordering fields', () => {
  for (const scope of ['Namespaced', 'Cluster', 'LegacyCluster'] as const) {
    it(`adds resourceName and dependsOn to ${scope} XRs only with ordering on`, () => {
      const legacy = scope === 'LegacyCluster';
      const on = refItem(renderXrCrd(xrd(scope), { ordering: true }), legacy)?.properties ?? {};
      expect(on.resourceName).to.deep.equal({ type: 'string' });
      expect(on.dependsOn).to.deep.equal({ type: 'array', items: { type: 'string' } });
      const off = refItem(renderXrCrd(xrd(scope)), legacy)?.properties ?? {};
      expect(Object.keys(off).sort()).to.deep.equal(
        scope === 'Namespaced' ? ['apiVersion', 'kind', 'name'] : ['apiVersion', 'kind', 'name', 'namespace'],
      );
    });
  }
});
