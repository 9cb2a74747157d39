// The chart's RBAC is what compositor runs with in every scenario; this checks it is also no more than it needs:
// composed kinds only as granted, XR kinds only through the aggregated per-XRD role.
import { expect } from 'chai';
import { compositeRoleName } from '../src/definition/index.js';
import type { KubeObject } from '../src/kube/index.js';
import { apply, get, remove } from '../test/integration/engine.js';
import { GROUP, installApi } from './harness/api.js';
import { RELEASE_NAMESPACE, renderChart, serviceAccountName } from './harness/chart.js';
import { target } from './harness/setup.js';

interface Attributes {
  verb: string;
  group?: string;
  resource: string;
  subresource?: string;
  namespace?: string;
}

describe("e2e: the chart's RBAC", function () {
  let user: string;

  before(async () => {
    await installApi();
    user = `system:serviceaccount:${RELEASE_NAMESPACE}:${serviceAccountName(await renderChart())}`;
  });

  function allowed(attributes: Attributes): Promise<boolean> {
    return allowedFor(user, attributes);
  }

  it('grants the XR kind through a per-XRD ClusterRole aggregated into compositor', async () => {
    const role = await get(target().client, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `compositor:composite:xconfigsets.${GROUP}` },
    });
    expect(role?.metadata.name).to.equal(compositeRoleName({ metadata: { name: `xconfigsets.${GROUP}` } } as never));
    expect(await allowed({ verb: 'patch', group: GROUP, resource: 'xconfigsets', namespace: 'default' })).to.equal(
      true,
    );
  });

  it('grants the composed kinds the values list, and not others', async () => {
    expect(await allowed({ verb: 'patch', resource: 'configmaps', namespace: 'default' })).to.equal(true);
    expect(await allowed({ verb: 'create', resource: 'pods', namespace: 'default' })).to.equal(false);
    expect(await allowed({ verb: 'create', group: 'apps', resource: 'deployments', namespace: 'default' })).to.equal(
      false,
    );
    expect(await allowed({ verb: 'delete', resource: 'nodes' })).to.equal(false);
    expect(await allowed({ verb: 'patch', group: 'other.example.org', resource: 'things' })).to.equal(false);
  });
});

/** Whether `user` may do what `attributes` say, as the API server's authorizer answers a SubjectAccessReview. */
async function allowedFor(user: string, attributes: Attributes): Promise<boolean> {
  const review = await target().client.request<{ status?: { allowed?: boolean } }>(
    'POST',
    '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user, resourceAttributes: { group: '', ...attributes } },
      },
    },
  );
  return review.status?.allowed === true;
}

// The chart's RBAC with providers.enabled, as the API server's authorizer reads it: its roles rendered with
// providers.enabled are installed under names of their own and bound to a ServiceAccount of this test, which must
// then be allowed what the Provider controllers do (and the RBAC manager's escalate and bind), and no more.
describe("e2e: the chart's RBAC with providers.enabled", function () {
  const PREFIX = 'e2e-providers-';
  const account = `${PREFIX}compositor`;
  const user = `system:serviceaccount:${RELEASE_NAMESPACE}:${account}`;
  const installed: KubeObject[] = [];

  before(async () => {
    const client = target().client;
    const rendered = await renderChart({ providers: { enabled: true } });
    for (const role of rendered.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')) {
      const name = `${PREFIX}${role.metadata.name}`;
      const namespaced = role.kind === 'Role';
      const copy = { ...role, metadata: { ...role.metadata, name, labels: {} } } as KubeObject;
      const binding = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: namespaced ? 'RoleBinding' : 'ClusterRoleBinding',
        metadata: { name, ...(namespaced ? { namespace: role.metadata.namespace } : {}) },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: role.kind, name },
        subjects: [{ kind: 'ServiceAccount', name: account, namespace: RELEASE_NAMESPACE }],
      } as KubeObject;
      installed.push(await apply(client, copy), await apply(client, binding));
    }
  });

  after(async () => {
    for (const object of installed.reverse()) await remove(target().client, object).catch(() => undefined);
  });

  const may = (attributes: Attributes): Promise<boolean> => allowedFor(user, attributes);

  it('allows what the Provider, revision, MRD, runtime and RBAC controllers do', async () => {
    const pkg = 'pkg.crossplane.io';
    expect(await may({ verb: 'create', group: pkg, resource: 'providerrevisions' })).to.equal(true);
    expect(await may({ verb: 'patch', group: pkg, resource: 'providerrevisions', subresource: 'status' })).to.equal(
      true,
    );
    expect(
      await may({ verb: 'patch', group: 'apiextensions.crossplane.io', resource: 'managedresourcedefinitions' }),
    ).to.equal(true);
    expect(
      await may({ verb: 'patch', group: 'admissionregistration.k8s.io', resource: 'validatingwebhookconfigurations' }),
    ).to.equal(true);
    const rbac = 'rbac.authorization.k8s.io';
    expect(await may({ verb: 'escalate', group: rbac, resource: 'clusterroles' })).to.equal(true);
    expect(await may({ verb: 'bind', group: rbac, resource: 'clusterroles' })).to.equal(true);
    expect(await may({ verb: 'patch', group: rbac, resource: 'clusterrolebindings' })).to.equal(true);
    expect(await may({ verb: 'patch', group: 'apps', resource: 'deployments', namespace: RELEASE_NAMESPACE })).to.equal(
      true,
    );
  });

  it('allows no more: no runtime outside its namespace, no pods, nodes or other kinds', async () => {
    expect(await may({ verb: 'patch', group: 'apps', resource: 'deployments', namespace: 'default' })).to.equal(false);
    expect(await may({ verb: 'create', resource: 'pods', namespace: RELEASE_NAMESPACE })).to.equal(false);
    expect(await may({ verb: 'delete', resource: 'nodes' })).to.equal(false);
    expect(await may({ verb: 'patch', group: 'other.example.org', resource: 'things' })).to.equal(false);
    expect(await may({ verb: 'delete', group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' })).to.equal(
      false,
    );
  });
});
