// The chart's RBAC is what compositor runs with in every scenario; this checks it is also no more than it needs:
// composed kinds only as granted, XR kinds only through the aggregated per-XRD role.
import { expect } from 'chai';
import { compositeRoleName } from '../src/definition/index.js';
import { get } from '../test/integration/engine.js';
import { GROUP, installApi } from './harness/api.js';
import { RELEASE_NAMESPACE, renderChart, serviceAccountName } from './harness/chart.js';
import { target } from './harness/setup.js';

interface Attributes {
  verb: string;
  group?: string;
  resource: string;
  namespace?: string;
}

describe("e2e: the chart's RBAC", function () {
  let user: string;

  before(async () => {
    await installApi();
    user = `system:serviceaccount:${RELEASE_NAMESPACE}:${serviceAccountName(await renderChart())}`;
  });

  async function allowed(attributes: Attributes): Promise<boolean> {
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
