import { expect } from 'chai';
import { adoptionOf } from '../../../src/composite/adoptMachinery.js';
import { MACHINERY_FIELD_OWNER, XR_FIELD_OWNER } from '../../../src/composite/index.js';
import type { Xr } from '../../../src/controller/index.js';

function xrWith(managedFields: unknown[]): Xr {
  return {
    apiVersion: 'example.org/v1',
    kind: 'XApp',
    metadata: {
      name: 'my-app',
      namespace: 'team-a',
      finalizers: ['composite.apiextensions.crossplane.io', 'other'],
      labels: { 'crossplane.io/composite': 'my-app', team: 'a' },
      managedFields,
    },
    spec: {
      size: 3,
      crossplane: {
        compositionRef: { name: 'apps' },
        compositionRevisionRef: { name: 'apps-abc1234' },
        compositionUpdatePolicy: 'Manual',
        resourceRefs: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'my-app-1' }],
      },
    },
  };
}

const earlierRelease = {
  manager: XR_FIELD_OWNER,
  operation: 'Apply',
  fieldsV1: {
    'f:metadata': { 'f:finalizers': {}, 'f:labels': { 'f:crossplane.io/composite': {} } },
    'f:spec': { 'f:crossplane': { 'f:compositionRef': {}, 'f:compositionRevisionRef': {}, 'f:resourceRefs': {} } },
  },
};

describe('composite/adoptMachinery', () => {
  it("co-owns, with the values stored today, the machinery an earlier release applied under Crossplane's name", () => {
    expect(adoptionOf(xrWith([earlierRelease]), false)).to.deep.equal({
      apiVersion: 'example.org/v1',
      kind: 'XApp',
      metadata: {
        name: 'my-app',
        namespace: 'team-a',
        finalizers: ['composite.apiextensions.crossplane.io'],
        labels: { 'crossplane.io/composite': 'my-app' },
      },
      spec: { crossplane: { compositionRef: { name: 'apps' }, compositionRevisionRef: { name: 'apps-abc1234' } } },
    });
  });

  it('writes nothing for XRs Crossplane wrote, or that compositor already co-owns', () => {
    const crossplane = { ...earlierRelease, fieldsV1: { 'f:spec': { 'f:crossplane': { 'f:resourceRefs': {} } } } };
    expect(adoptionOf(xrWith([crossplane]), false)).to.equal(undefined);
    const adopted = { manager: MACHINERY_FIELD_OWNER, operation: 'Apply', fieldsV1: {} };
    expect(adoptionOf(xrWith([earlierRelease, adopted]), false)).to.equal(undefined);
    expect(adoptionOf(xrWith([]), false)).to.equal(undefined);
  });
});
