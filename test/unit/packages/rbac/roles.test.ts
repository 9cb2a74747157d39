import { expect } from 'chai';
import type { ClusterRole, PolicyRule } from '../../../../src/controller/index.js';
import type { ConfigurationRevision, ObjectRef } from '../../../../src/packages/configuration/index.js';
import {
  definedResources,
  grantedResources,
  orgDiffers,
  renderProviderRoles,
  systemRoleName,
  type Resource,
} from '../../../../src/packages/rbac/index.js';

// The roles of a ProviderRevision against Crossplane v2.3's RenderClusterRoles (roles_test.go's cases): names,
// labels, rules merged by group in sorted order, the system role's extras, the controller reference.
const NAME = 'revised';
const UID = 'no-you-id';
const CONTROLLER = {
  apiVersion: 'pkg.crossplane.io/v1',
  kind: 'ProviderRevision',
  name: NAME,
  uid: UID,
  controller: true,
  blockOwnerDeletion: true,
};
const EXTRA: PolicyRule = {
  apiGroups: ['', 'coordination.k8s.io'],
  resources: ['secrets', 'configmaps', 'events', 'leases'],
  verbs: ['*'],
};

function revision(options: { capabilities?: string[]; refs?: ObjectRef[]; image?: string; uid?: string } = {}) {
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'ProviderRevision',
    metadata: { name: NAME, uid: options.uid ?? UID },
    spec: { desiredState: 'Active', image: options.image ?? 'xpkg.example.org/acme/provider:v1', revision: 1 },
    status: {
      ...(options.capabilities ? { capabilities: options.capabilities } : {}),
      ...(options.refs ? { objectRefs: options.refs } : {}),
    },
  } satisfies ConfigurationRevision;
}

function role(suffix: string, labels: Record<string, string>, rules: PolicyRule[]): ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: `crossplane:provider:${NAME}:${suffix}`, labels, ownerReferences: [CONTROLLER] },
    rules,
  };
}

const EDIT_LABELS = {
  'rbac.crossplane.io/aggregate-to-crossplane': 'true',
  'rbac.crossplane.io/aggregate-to-admin': 'true',
  'rbac.crossplane.io/aggregate-to-edit': 'true',
};
const VIEW_LABELS = { 'rbac.crossplane.io/aggregate-to-view': 'true' };
const SYSTEM_LABELS = { 'rbac.crossplane.io/system': NAME };
const SYSTEM_VERBS = ['get', 'list', 'watch', 'update', 'patch', 'create'];
const VIEW_VERBS = ['get', 'list', 'watch'];

describe('packages/rbac roles', () => {
  const cases: Record<
    string,
    { reason: string; args: { capabilities?: string[]; resources: Resource[] }; want: ClusterRole[] }
  > = {
    EmptyResources: {
      reason: 'no resources (yet): no roles',
      args: { resources: [] },
      want: [],
    },
    MergeGroups: {
      reason: 'resources are sorted by plural then group and merged into one rule per group',
      args: {
        resources: [
          { group: 'example.org', plural: 'examples' },
          { group: 'example.net', plural: 'examples' },
          { group: 'example.org', plural: 'demonstrations' },
        ],
      },
      want: (() => {
        const rules = [
          {
            apiGroups: ['example.org'],
            resources: ['demonstrations', 'demonstrations/status', 'examples', 'examples/status'],
          },
          { apiGroups: ['example.net'], resources: ['examples', 'examples/status'] },
        ];
        const verbs = (v: string[]): PolicyRule[] => rules.map((r) => ({ ...r, verbs: v }));
        return [
          role('aggregate-to-edit', EDIT_LABELS, verbs(['*'])),
          role('aggregate-to-view', VIEW_LABELS, verbs(VIEW_VERBS)),
          role('system', SYSTEM_LABELS, [
            ...verbs(SYSTEM_VERBS),
            { apiGroups: ['example.org', 'example.net'], resources: ['*/finalizers'], verbs: ['update'] },
            EXTRA,
          ]),
        ];
      })(),
    },
    SafeStart: {
      reason: 'a safe-start provider (matched fuzzily, as upstream) may also view CRDs',
      args: { capabilities: ['SafeStart'], resources: [{ group: 'example.org', plural: 'demonstrations' }] },
      want: (() => {
        const rule = { apiGroups: ['example.org'], resources: ['demonstrations', 'demonstrations/status'] };
        return [
          role('aggregate-to-edit', EDIT_LABELS, [{ ...rule, verbs: ['*'] }]),
          role('aggregate-to-view', VIEW_LABELS, [{ ...rule, verbs: VIEW_VERBS }]),
          role('system', SYSTEM_LABELS, [
            { ...rule, verbs: SYSTEM_VERBS },
            { apiGroups: ['example.org'], resources: ['*/finalizers'], verbs: ['update'] },
            EXTRA,
            { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: VIEW_VERBS },
          ]),
        ];
      })(),
    },
  };
  for (const [name, { reason, args, want }] of Object.entries(cases)) {
    it(`${name}: ${reason}`, () => {
      const rev = revision(args.capabilities ? { capabilities: args.capabilities } : {});
      expect(renderProviderRoles(rev, args.resources), reason).to.deep.equal(want);
    });
  }

  it('names the system role crossplane:provider:<revision>:system', () => {
    expect(systemRoleName('provider-nop-abc')).to.equal('crossplane:provider:provider-nop-abc:system');
  });

  it('takes resources from the CRDs and MRDs among objectRefs only, split at the first dot of the name', () => {
    const refs: ObjectRef[] = [
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: 'providerconfigs.nop.crossplane.io',
      },
      {
        apiVersion: 'apiextensions.crossplane.io/v1alpha1',
        kind: 'ManagedResourceDefinition',
        name: 'nopresources.nop.crossplane.io',
      },
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', name: 'a.b' },
      { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'CompositeResourceDefinition', name: 'xs.example.org' },
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'nodot' },
    ];
    expect(definedResources(refs)).to.deep.equal([
      { plural: 'providerconfigs', group: 'nop.crossplane.io' },
      { plural: 'nopresources', group: 'nop.crossplane.io' },
    ]);
  });

  it('grants a family member the kinds of the other members of its registry and organisation only', () => {
    const crd = (name: string): ObjectRef[] => [
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name },
    ];
    const rev = revision({ refs: crd('buckets.s3.acme.io') });
    const sibling = revision({
      uid: 'b',
      refs: crd('providerconfigs.acme.io'),
      image: 'xpkg.example.org/acme/family:v2',
    });
    const stranger = revision({ uid: 'c', refs: crd('secrets.evil.io'), image: 'xpkg.example.org/evil/provider:v1' });
    expect(grantedResources(rev, [rev, sibling, stranger])).to.deep.equal([
      { plural: 'buckets', group: 's3.acme.io' },
      { plural: 'providerconfigs', group: 'acme.io' },
    ]);
  });

  const orgs: Record<string, { reason: string; a: string; b: string; want: boolean }> = {
    SameOrg: {
      reason: 'same registry and first path segment',
      a: 'r.io/acme/a:v1',
      b: 'r.io/acme/b@sha256:' + '0'.repeat(64),
      want: false,
    },
    OtherOrg: { reason: 'another organisation', a: 'r.io/acme/a:v1', b: 'r.io/other/a:v1', want: true },
    OtherRegistry: { reason: 'another registry', a: 'r.io/acme/a:v1', b: 'q.io/acme/a:v1', want: true },
    Unparsable: {
      reason: 'a reference that does not parse differs',
      a: 'r.io/acme/a:v1',
      b: 'not a reference',
      want: true,
    },
  };
  for (const [name, { reason, a, b, want }] of Object.entries(orgs)) {
    it(`orgDiffers ${name}: ${reason}`, () => {
      expect(orgDiffers(a, b), reason).to.equal(want);
    });
  }
});
