import { expect } from 'chai';
import {
  apiVersionOf,
  preferredResources,
  resolveResourceArg,
  UnknownResourceTypeError,
} from '../../../src/cli/resourceArg.js';
import { FakeApiServer } from '../fakes/index.js';

// `compositor diagnose` and `compositor trace` find their resource type through discovery, as kubectl does. An
// aggregated API whose server is down (metrics.k8s.io without its metrics-server) answers 503: the other groups are
// still searched, and a type not found names the group versions that could not be looked in.

function server(): FakeApiServer {
  const api = new FakeApiServer([]);
  const list = (kind: string, name: string): unknown => ({ resources: [{ name, kind, namespaced: true }] });
  api.answer(
    (r) => r.path === '/apis',
    () => ({
      groups: [
        { name: 'example.org', preferredVersion: { version: 'v1' } },
        { name: 'metrics.k8s.io', preferredVersion: { version: 'v1beta1' } },
      ],
    }),
  );
  api.answer(
    (r) => r.path === '/api/v1',
    () => list('ConfigMap', 'configmaps'),
  );
  api.answer(
    (r) => r.path === '/apis/example.org/v1',
    () => list('XApp', 'xapps'),
  );
  return api;
}

const METRICS_DOWN = (r: { path: string }): boolean => r.path === '/apis/metrics.k8s.io/v1beta1';

describe('cli/resourceArg discovery', () => {
  it('lists the resources of every group that answers, and names the one that failed', async () => {
    const api = server();
    api.failNext(METRICS_DOWN, 503);
    const { resources, undiscovered } = await preferredResources(api.client);
    expect(resources.map((r) => `${r.plural} ${apiVersionOf(r)}`)).to.deep.equal([
      'configmaps v1',
      'xapps example.org/v1',
    ]);
    expect(undiscovered).to.deep.equal(['metrics.k8s.io/v1beta1: injected failure']);
  });

  it('resolves a type of a group that answers while another group is down', async () => {
    const api = server();
    api.failNext(METRICS_DOWN, 503);
    expect((await resolveResourceArg(api.client, 'xapps.example.org')).kind).to.equal('XApp');
  });

  it('names the group versions it could not look in when the type is not found', async () => {
    const api = server();
    api.failNext(METRICS_DOWN, 503);
    const err = await resolveResourceArg(api.client, 'podmetrics').catch((e: unknown) => e);
    expect(err).to.be.instanceOf(UnknownResourceTypeError);
    expect((err as Error).message).to.equal(
      `the server doesn't have a resource type "podmetrics" (discovery failed for 1 group version: metrics.k8s.io/v1beta1: injected failure)`,
    );
    const all = await resolveResourceArg(server().client, 'nowhere').catch((e: unknown) => e);
    expect((all as Error).message).to.equal(`the server doesn't have a resource type "nowhere"`);
  });

  it('fails when the core group cannot be discovered: nothing can be resolved then', async () => {
    const api = server();
    api.failNext((r) => r.path === '/api/v1', 401);
    const err = await preferredResources(api.client).catch((e: unknown) => e);
    expect(String(err)).to.include('injected failure');
  });
});
