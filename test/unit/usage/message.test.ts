import { expect } from 'chai';
import { inUseMessage, sameObject, usageDetails, usedObjectOf, type Usage } from '../../../src/usage/index.js';

// The refusal message and the details annotation as Crossplane words them (internal/webhook/protection/usage
// handler.go inUseMessage, internal/controller/protection/usage reconciler.go detailsAnnotation), and which object a
// Usage names.

function usage(name: string, spec: Usage['spec'], namespace?: string, kind: Usage['kind'] = 'Usage'): Usage {
  return {
    apiVersion: 'protection.crossplane.io/v1beta1',
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec,
  };
}

const of = { apiVersion: 'v1', kind: 'ConfigMap', resourceRef: { name: 'db' } };
const by = { apiVersion: 'v1', kind: 'Secret', resourceRef: { name: 'app' } };

describe('usage/message', () => {
  const messages: Record<string, { reason: string; args: Usage[]; want: string }> = {
    'namespaced Usage with a user': {
      reason: 'the user and the namespace are named',
      args: [usage('u', { of, by }, 'default')],
      want: 'This resource is in-use by 1 usage(s), including the *v1beta1.Usage "u" (in namespace "default") by resource Secret/app.',
    },
    'ClusterUsage with a reason': {
      reason: 'the reason is quoted as Go %q does',
      args: [usage('c', { of, reason: 'keep "it"' }, undefined, 'ClusterUsage')],
      want: 'This resource is in-use by 1 usage(s), including the *v1beta1.ClusterUsage "c" with reason: "keep \\"it\\"".',
    },
    'neither user nor reason': {
      reason: "the webhook's fallback",
      args: [usage('c', { of }, undefined, 'ClusterUsage')],
      want: 'This resource is in-use by 1 usage(s), including the *v1beta1.ClusterUsage "c".',
    },
    'several Usages': {
      reason: 'all are counted and the first by namespace and name is named, whatever their order',
      args: [usage('b', { of, reason: 'second' }, 'default'), usage('a', { of, by }, 'default')],
      want: 'This resource is in-use by 2 usage(s), including the *v1beta1.Usage "a" (in namespace "default") by resource Secret/app.',
    },
  };
  for (const [name, { reason, args, want }] of Object.entries(messages)) {
    it(`inUseMessage: ${name}`, () => {
      expect(inUseMessage(args), reason).to.equal(want);
    });
  }

  const details: Record<string, { reason: string; args: Usage; want: string }> = {
    reason: { reason: 'the reason wins', args: usage('u', { of, by, reason: 'audit' }), want: 'audit' },
    user: { reason: 'user uses used', args: usage('u', { of, by }), want: 'Secret/app uses ConfigMap/db' },
    'used in another namespace': {
      reason: 'the namespace is appended',
      args: usage('u', { of: { ...of, resourceRef: { name: 'db', namespace: 'data' } }, by }),
      want: 'Secret/app uses ConfigMap/db in namespace data',
    },
    neither: { reason: 'as Crossplane', args: usage('u', { of }), want: 'undefined' },
  };
  for (const [name, { reason, args, want }] of Object.entries(details)) {
    it(`usageDetails: ${name}`, () => {
      expect(usageDetails(args), reason).to.equal(want);
    });
  }

  it("names the used object in the Usage's namespace unless its reference says another", () => {
    expect(usedObjectOf(usage('u', { of, by }, 'team'), true)).to.deep.equal({ ...ref('db'), namespace: 'team' });
    const elsewhere = { ...of, resourceRef: { name: 'db', namespace: 'data' } };
    expect(usedObjectOf(usage('u', { of: elsewhere, by }, 'team'), true)?.namespace).to.equal('data');
    expect(usedObjectOf(usage('u', { of, by }, 'team'), false)).to.deep.equal(ref('db'));
  });

  it('names nothing before its selector is resolved', () => {
    const selecting = { apiVersion: 'v1', kind: 'ConfigMap', resourceSelector: { matchLabels: { a: 'b' } } };
    expect(usedObjectOf(usage('u', { of: selecting, by }, 'team'), true)).to.equal(undefined);
  });

  it('matches an object whatever version of its group names it', () => {
    const a = { apiVersion: 'example.org/v1', kind: 'Db', name: 'x', namespace: 'n' };
    expect(sameObject(a, { ...a, apiVersion: 'example.org/v2' })).to.equal(true);
    expect(sameObject(a, { ...a, namespace: 'm' })).to.equal(false);
    expect(sameObject(a, { ...a, apiVersion: 'other.org/v1' })).to.equal(false);
  });
});

function ref(name: string): { apiVersion: string; kind: string; name: string } {
  return { apiVersion: 'v1', kind: 'ConfigMap', name };
}
