import { expect } from 'chai';
import {
  composedFieldOwner,
  machineryOwnedByXrOwner,
  previousComposedFieldOwner,
  sortedResourceRefs,
  XR_FIELD_OWNER,
} from '../../../src/composite/index.js';

const xr = { apiVersion: 'example.org/v1', kind: 'XApp', metadata: { name: 'my-app' } };

describe('composite/fieldOwners', () => {
  it("names the composed field owner as Crossplane does: sha256 of the XR's name and the XR's Kind.group", () => {
    // sha256("my-app" + "XApp.example.org"), computed outside this code base.
    expect(composedFieldOwner(xr)).to.equal(
      'apiextensions.crossplane.io/composed/54a2349605824e75cd74ac633d9f8cfbad44c6a58cd0bebc2a5f493432bcfd55',
    );
    // The version is not part of it; the group and kind are.
    expect(composedFieldOwner({ ...xr, apiVersion: 'example.org/v2' })).to.equal(composedFieldOwner(xr));
    expect(composedFieldOwner({ ...xr, apiVersion: 'other.org/v1' })).to.not.equal(composedFieldOwner(xr));
  });

  it("names the previous releases' owner from the composed kind, the core group without a dot", () => {
    expect(previousComposedFieldOwner('my-app', { apiVersion: 'v1', kind: 'ConfigMap' })).to.equal(
      'apiextensions.crossplane.io/composed/a7644dcec4f5985b33f7e2923e84e34324a4b75f6fb602a34afaf16e0ef70692',
    );
    expect(previousComposedFieldOwner('my-app', { apiVersion: 'apps/v1', kind: 'Deployment' })).to.equal(
      'apiextensions.crossplane.io/composed/9f7564e681990a9e96fe4a913fd597f2f9a958e3b6f6ff32625204aff4ded962',
    );
  });

  it('sorts resourceRefs by apiVersion + kind + name, as bytes', () => {
    const refs = [
      { apiVersion: 'v1', kind: 'Secret', name: 'a' },
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'z' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'b' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'B' },
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'a' },
    ];
    expect(sortedResourceRefs(refs).map((r) => `${r.apiVersion} ${r.kind} ${r.name}`)).to.deep.equal([
      'apps/v1 Deployment a',
      'apps/v1 Deployment z',
      'v1 ConfigMap B',
      'v1 ConfigMap b',
      'v1 Secret a',
    ]);
    expect(refs[0]?.name).to.equal('a', 'the input is left as it was');
  });

  it("finds the machinery an earlier release applied under Crossplane's XR owner", () => {
    const entry = (fieldsV1: Record<string, unknown>, extra: Record<string, string> = {}) => ({
      manager: XR_FIELD_OWNER,
      operation: 'Apply',
      fieldsV1,
      ...extra,
    });
    const legacy = entry({
      'f:metadata': { 'f:finalizers': { 'v:"composite.apiextensions.crossplane.io"': {} }, 'f:labels': {} },
      'f:spec': { 'f:crossplane': { 'f:compositionRef': {}, 'f:compositionRevisionRef': {}, 'f:resourceRefs': {} } },
    });
    expect(machineryOwnedByXrOwner([legacy], false)).to.deep.equal([
      'finalizers',
      'labels',
      'compositionRef',
      'compositionRevisionRef',
    ]);
    // What Crossplane itself applies: resourceRefs only.
    const upstream = entry({ 'f:spec': { 'f:crossplane': { 'f:resourceRefs': {} } } });
    expect(machineryOwnedByXrOwner([upstream], false)).to.deep.equal([]);
    // The status subresource and other managers do not count.
    expect(machineryOwnedByXrOwner([{ ...legacy, subresource: 'status' }], false)).to.deep.equal([]);
    expect(machineryOwnedByXrOwner([{ ...legacy, manager: 'crossplane', operation: 'Update' }], false)).to.deep.equal(
      [],
    );
    // Legacy XRs keep the machinery directly under spec.
    const legacyXr = entry({ 'f:spec': { 'f:compositionRef': {}, 'f:resourceRefs': {} } });
    expect(machineryOwnedByXrOwner([legacyXr], true)).to.deep.equal(['compositionRef']);
    expect(machineryOwnedByXrOwner(undefined, false)).to.deep.equal([]);
  });
});
