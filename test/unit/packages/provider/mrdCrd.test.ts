import { expect } from 'chai';
import { crdOf, type ManagedResourceDefinition } from '../../../../src/packages/provider/index.js';

// The CRD of an MRD as Crossplane v2.3's MRD controller forms it (internal/controller/apiextensions/managed/crd.go).
const REVISION = {
  apiVersion: 'pkg.crossplane.io/v1',
  kind: 'ProviderRevision',
  name: 'provider-nop-0123456789ab',
  uid: 'rev-uid',
  controller: true,
  blockOwnerDeletion: true,
};

function mrd(): ManagedResourceDefinition {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1alpha1',
    kind: 'ManagedResourceDefinition',
    metadata: { name: 'nopresources.nop.crossplane.io', uid: 'mrd-uid', ownerReferences: [REVISION] },
    spec: {
      group: 'nop.crossplane.io',
      names: { kind: 'NopResource', plural: 'nopresources', singular: '', shortNames: [], categories: ['crossplane'] },
      scope: 'Cluster',
      state: 'Active',
      versions: [
        { name: 'v1beta1', served: true, storage: false, subresources: {} },
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object' } },
          subresources: { status: { anything: true } },
          additionalPrinterColumns: [{ name: 'READY', type: 'string', jsonPath: '.status.ready' }],
        },
      ],
    },
  };
}

describe('packages/provider/crdOf: the CRD of an Active MRD', () => {
  it('carries only the fields upstream sets, versions sorted by name, owned by the MRD and its revision', () => {
    expect(crdOf(mrd())).to.deep.equal({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {
        name: 'nopresources.nop.crossplane.io',
        ownerReferences: [
          {
            apiVersion: 'apiextensions.crossplane.io/v1alpha1',
            kind: 'ManagedResourceDefinition',
            name: 'nopresources.nop.crossplane.io',
            uid: 'mrd-uid',
          },
          REVISION,
        ],
      },
      spec: {
        group: 'nop.crossplane.io',
        scope: 'Cluster',
        names: { kind: 'NopResource', plural: 'nopresources', categories: ['crossplane'] },
        versions: [
          {
            name: 'v1alpha1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object' } },
            subresources: { status: {} },
            additionalPrinterColumns: [{ name: 'READY', type: 'string', jsonPath: '.status.ready' }],
          },
          { name: 'v1beta1', served: true, storage: false },
        ],
      },
    });
  });

  it('is owned by the MRD alone when the MRD has no controller', () => {
    const input = mrd();
    input.metadata.ownerReferences = [{ ...REVISION, controller: false }];
    expect(crdOf(input).metadata.ownerReferences.map((r) => r.kind)).to.deep.equal(['ManagedResourceDefinition']);
  });
});
