import { expect } from 'chai';
import { AGGREGATE_TO_COMPOSITOR_LABEL, renderCompositeRole } from '../../../src/definition/index.js';
import type { CompositeResourceDefinition } from '../../../src/definition/index.js';

function xrd(claimNames?: Record<string, unknown>): CompositeResourceDefinition {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'CompositeResourceDefinition',
    metadata: { name: 'xbuckets.example.org', uid: 'uid-1' },
    spec: {
      group: 'example.org',
      names: { kind: 'XBucket', plural: 'xbuckets' },
      versions: [],
      ...(claimNames ? { claimNames } : {}),
    },
  } as unknown as CompositeResourceDefinition;
}

describe('definition/rbac', () => {
  it('grants every verb compositor uses on the XR kind, its status and finalizers, in a role aggregated into compositor and owned by the XRD', () => {
    const role = renderCompositeRole(xrd());
    expect(role.metadata.name).to.equal('compositor:composite:xbuckets.example.org');
    expect(role.metadata.labels).to.deep.equal({ [AGGREGATE_TO_COMPOSITOR_LABEL]: 'true' });
    expect(role.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'apiextensions.crossplane.io/v1',
        kind: 'CompositeResourceDefinition',
        name: 'xbuckets.example.org',
        uid: 'uid-1',
        controller: true,
      },
    ]);
    expect(role.rules).to.deep.equal([
      {
        apiGroups: ['example.org'],
        resources: ['xbuckets', 'xbuckets/status', 'xbuckets/finalizers'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
    ]);
  });

  it('also grants the claim kind when the XRD offers one', () => {
    const role = renderCompositeRole(xrd({ kind: 'Bucket', plural: 'buckets' }));
    expect(role.rules[0]?.resources).to.include.members(['buckets', 'buckets/status', 'buckets/finalizers']);
  });
});
