import { expect } from 'chai';
import { claimSpecFromComposite, compositeFromClaim, type Claim } from '../../../src/claim/index.js';
import type { Xr } from '../../../src/controller/index.js';

const claim: Claim = {
  apiVersion: 'example.org/v1',
  kind: 'App',
  metadata: { name: 'my-app', namespace: 'team-a' },
  spec: {},
};

function xr(spec: Record<string, unknown>): Xr {
  return { apiVersion: 'example.org/v1', kind: 'XApp', metadata: { name: 'my-app-1a2b3' }, spec };
}

describe('claim/claimSpecFromComposite', () => {
  it("records the XR's composition and, with the Automatic policy, its revision, as Crossplane's claim syncer", () => {
    const spec = claimSpecFromComposite(
      claim,
      xr({
        compositionRef: { name: 'apps' },
        compositionRevisionRef: { name: 'apps-abc1234' },
        compositionUpdatePolicy: 'Automatic',
      }),
    );
    expect(spec).to.deep.equal({
      resourceRef: { apiVersion: 'example.org/v1', kind: 'XApp', name: 'my-app-1a2b3' },
      compositionRef: { name: 'apps' },
      compositionRevisionRef: { name: 'apps-abc1234' },
    });
  });

  it('leaves the revision to the claim when the XR is pinned (Manual), and a composition the claim chose', () => {
    const spec = claimSpecFromComposite(
      { ...claim, spec: { compositionRef: { name: 'chosen' } } },
      xr({
        compositionRef: { name: 'chosen' },
        compositionRevisionRef: { name: 'chosen-abc1234' },
        compositionUpdatePolicy: 'Manual',
      }),
    );
    expect(spec).to.deep.equal({
      resourceRef: { apiVersion: 'example.org/v1', kind: 'XApp', name: 'my-app-1a2b3' },
    });
  });
});

describe('claim/compositeFromClaim', () => {
  const xrType = { apiVersion: 'example.org/v1', kind: 'XApp', namespaced: false, legacy: true };
  const pinnedClaim: Claim = {
    ...claim,
    spec: { size: 3, compositionRevisionRef: { name: 'apps-abc1234' }, resourceRef: undefined },
  };

  it("carries the claim's revision to the XR only while the XR's policy is Manual, as Crossplane's syncer", () => {
    const automatic = compositeFromClaim(
      pinnedClaim,
      xrType,
      'my-app-1a2b3',
      xr({ compositionUpdatePolicy: 'Automatic' }),
    );
    expect(automatic.spec?.compositionRevisionRef).to.equal(undefined);
    expect(compositeFromClaim(pinnedClaim, xrType, 'my-app-1a2b3').spec?.compositionRevisionRef).to.equal(undefined);
    const manual = compositeFromClaim(pinnedClaim, xrType, 'my-app-1a2b3', xr({ compositionUpdatePolicy: 'Manual' }));
    expect(manual.spec?.compositionRevisionRef).to.deep.equal({ name: 'apps-abc1234' });
    expect(manual.spec?.size).to.equal(3);
  });

  it("keeps the XR's external name in the apply, as Crossplane's syncer does, whatever the claim carries", () => {
    const existing = {
      ...xr({}),
      metadata: { name: 'my-app-1a2b3', annotations: { 'crossplane.io/external-name': 'db-7' } },
    };
    const claimed = { ...claim, metadata: { ...claim.metadata, annotations: { team: 'a' } } };
    expect(compositeFromClaim(claimed, xrType, 'my-app-1a2b3', existing).metadata.annotations).to.deep.equal({
      team: 'a',
      'crossplane.io/external-name': 'db-7',
    });
    expect(compositeFromClaim(claimed, xrType, 'my-app-1a2b3', xr({})).metadata.annotations).to.deep.equal({
      team: 'a',
    });
  });
});
