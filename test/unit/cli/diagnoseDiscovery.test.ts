import { expect } from 'chai';
import { apiResources, unknownResource } from '../../../src/cli/diagnose.js';
import { FakeApiServer } from '../fakes/index.js';

// `compositor diagnose <resource>` finds the resource through discovery, as kubectl does. An aggregated API whose
// server is down (metrics.k8s.io without its metrics-server) answers 503: the other groups are still searched, and a
// resource not found names the group versions that could not be looked in.

function server(): FakeApiServer {
  const api = new FakeApiServer([]);
  const list = (groupVersion: string, kind: string, name: string) => ({
    groupVersion,
    resources: [{ name, kind, namespaced: true }],
  });
  api.answer(
    (r) => r.path === '/apis',
    () => ({
      groups: [
        { preferredVersion: { groupVersion: 'example.org/v1' } },
        { preferredVersion: { groupVersion: 'metrics.k8s.io/v1beta1' } },
      ],
    }),
  );
  api.answer(
    (r) => r.path === '/api/v1',
    () => list('v1', 'ConfigMap', 'configmaps'),
  );
  api.answer(
    (r) => r.path === '/apis/example.org/v1',
    () => list('example.org/v1', 'XApp', 'xapps'),
  );
  return api;
}

describe('cli/diagnose discovery', () => {
  it('finds the resources of every group that answers, and names the one that failed', async () => {
    const api = server();
    api.failNext((r) => r.path === '/apis/metrics.k8s.io/v1beta1', 503);
    const { resources, undiscovered } = await apiResources(api.client);
    expect(resources.map((r) => `${r.plural}.${r.group}`)).to.deep.equal(['configmaps.', 'xapps.example.org']);
    expect(undiscovered).to.deep.equal(['metrics.k8s.io/v1beta1: injected failure']);
  });

  it('says which group versions it could not look in when the resource is not found', () => {
    expect(unknownResource('podmetrics', ['metrics.k8s.io/v1beta1: injected failure']).message).to.equal(
      'the server has no resource type "podmetrics" (discovery failed for 1 group version: metrics.k8s.io/v1beta1: injected failure)',
    );
    expect(unknownResource('nowhere', []).message).to.equal('the server has no resource type "nowhere"');
  });

  it('fails when the core group cannot be discovered: nothing can be diagnosed then', async () => {
    const api = server();
    api.failNext((r) => r.path === '/api/v1', 401);
    const err = await apiResources(api.client).catch((e: unknown) => e);
    expect(String(err)).to.include('injected failure');
  });
});
