import { expect } from 'chai';
import { adoptionOf, statusAdoptionOf } from '../../../src/composite/adoptMachinery.js';
import { MACHINERY_FIELD_OWNER, STATUS_FIELD_OWNER, XR_FIELD_OWNER } from '../../../src/composite/index.js';
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

  it("co-owns a legacy XR's updated status fields an earlier release applied under Crossplane's name", () => {
    const xr: Xr = {
      apiVersion: 'example.org/v1',
      kind: 'XDatabase',
      metadata: {
        name: 'db',
        managedFields: [
          {
            manager: XR_FIELD_OWNER,
            operation: 'Apply',
            subresource: 'status',
            fieldsV1: { 'f:status': { 'f:image': {}, 'f:connectionDetails': { 'f:lastPublishedTime': {} } } },
          },
        ],
      },
      status: {
        image: 'postgres:17',
        connectionDetails: { lastPublishedTime: '2026-03-01T11:00:00Z' },
        claimConditionTypes: ['DatabaseReady'],
      },
    };
    // Only what that apply owns, with the values stored today: claimConditionTypes is Crossplane's update's alone.
    expect(statusAdoptionOf(xr)).to.deep.equal({
      apiVersion: 'example.org/v1',
      kind: 'XDatabase',
      metadata: { name: 'db' },
      status: { connectionDetails: { lastPublishedTime: '2026-03-01T11:00:00Z' } },
    });
    const adopted = {
      manager: STATUS_FIELD_OWNER,
      operation: 'Apply',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:connectionDetails': { 'f:lastPublishedTime': {} } } },
    };
    const managedFields = [...(xr.metadata.managedFields as unknown[]), adopted];
    expect(statusAdoptionOf({ ...xr, metadata: { name: 'db', managedFields } }), 'adopted already').to.equal(undefined);
    const crossplane = { manager: 'crossplane', operation: 'Update', subresource: 'status', fieldsV1: {} };
    expect(statusAdoptionOf({ ...xr, metadata: { name: 'db', managedFields: [crossplane] } })).to.equal(undefined);
  });
});
