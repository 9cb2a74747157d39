import { expect } from 'chai';
import { compositeFromClaim, type Claim } from '../../../src/claim/index.js';

// crossplane#7626: copying a claim to its XR never copies the XR's machinery. A claim whose schema keeps unknown fields
// can carry them; the XR must not get them, whatever its update policy.
const claim: Claim = {
  apiVersion: 'example.org/v1',
  kind: 'App',
  metadata: { name: 'my-app', namespace: 'team-a' },
  spec: {
    parameters: { size: 'small' },
    compositionRef: { name: 'apps' },
    resourceRefs: [{ apiVersion: 'v1', kind: 'Secret', name: 'someone-elses' }],
    crossplane: { resourceRefs: [{ apiVersion: 'v1', kind: 'Secret', name: 'someone-elses' }] },
  },
};
const xrType = { apiVersion: 'example.org/v1', kind: 'XApp', namespaced: false, legacy: true };

describe('claim/compositeFromClaim: XR machinery', () => {
  const policies: Record<string, { reason: string; policy: string | undefined }> = {
    'no XR yet': { reason: 'a new XR', policy: undefined },
    Automatic: { reason: 'an XR following its Composition', policy: 'Automatic' },
    Manual: { reason: 'a pinned XR', policy: 'Manual' },
  };
  for (const [name, { reason, policy }] of Object.entries(policies)) {
    it(`drops resourceRefs and the crossplane stanza, keeps the claim's own fields (${name})`, () => {
      const existing =
        policy === undefined
          ? undefined
          : { ...xrType, metadata: { name: 'my-app-1a2b3' }, spec: { compositionUpdatePolicy: policy } };
      const spec = compositeFromClaim(claim, xrType, 'my-app-1a2b3', existing).spec ?? {};
      expect(spec, reason).not.to.have.any.keys('resourceRefs', 'crossplane');
      expect(spec, reason).to.deep.include({ parameters: { size: 'small' }, compositionRef: { name: 'apps' } });
    });
  }
});
