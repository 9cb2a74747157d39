import { expect } from 'chai';
import { readOverview } from '../../../src/cli/diagnose.js';
import { formatStuck, stuckXrs } from '../../../src/cli/stuckXrs.js';
import { FakeApiServer, type FakeKind } from '../fakes/index.js';

// `compositor diagnose --stuck` (and the overview) over every XR kind: one kind that cannot be listed (its
// conversion webhook down, no RBAC to list it) is named with why, and the other kinds are listed all the same.

const NOW = Date.parse('2026-11-29T12:00:00Z');
const XRD_KIND: FakeKind = {
  apiVersion: 'apiextensions.crossplane.io/v1',
  kind: 'CompositeResourceDefinition',
  plural: 'compositeresourcedefinitions',
  namespaced: false,
};
const APP: FakeKind = { apiVersion: 'example.org/v1', kind: 'XApp', plural: 'xapps', namespaced: true };
const DB: FakeKind = { apiVersion: 'example.org/v1', kind: 'XDatabase', plural: 'xdatabases', namespaced: true };

function xrd(
  kind: FakeKind,
): Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string } } {
  return {
    apiVersion: XRD_KIND.apiVersion,
    kind: XRD_KIND.kind,
    metadata: { name: `${kind.plural}.example.org` },
    spec: {
      group: 'example.org',
      names: { kind: kind.kind, plural: kind.plural },
      versions: [{ name: 'v1', served: true, referenceable: true }],
    },
  };
}

function server(): FakeApiServer {
  const api = new FakeApiServer([XRD_KIND, APP, DB]);
  api.put(xrd(APP));
  api.put(xrd(DB));
  api.put({
    apiVersion: APP.apiVersion,
    kind: APP.kind,
    metadata: { name: 'web', namespace: 'team-a', creationTimestamp: '2026-11-29T11:00:00Z' },
    status: {
      conditions: [
        { type: 'Synced', status: 'False', reason: 'ReconcileError', lastTransitionTime: '2026-11-29T11:00:00Z' },
      ],
    },
  });
  return api;
}

describe('cli/stuckXrs', () => {
  it('lists the stuck XRs of every kind, with nothing unreadable', async () => {
    const listing = await stuckXrs(server().client, NOW, 10);
    expect(listing.stuck.map((s) => [s.resource, s.key, s.forSeconds])).to.deep.equal([
      ['xapps.example.org', 'team-a/web', 3600],
    ]);
    expect(listing).to.not.have.property('unreadable');
  });

  it('names a kind it cannot list, with why, and lists the other kinds all the same', async () => {
    const api = server();
    api.failNext((r) => r.method === 'GET' && r.path === '/apis/example.org/v1/xdatabases', 503);
    const listing = await stuckXrs(api.client, NOW, 10);
    expect(listing.total).to.equal(1);
    expect(listing.unreadable).to.deep.equal(['cannot list xdatabases.example.org: injected failure']);
    expect(formatStuck(listing).split('\n')).to.deep.equal([
      '1 XR is not Ready or not Synced; oldest first:',
      '  XApp team-a/web: Synced ReconcileError for 1h0m0s',
      '  cannot list xdatabases.example.org: injected failure',
      '',
    ]);
  });

  it('does not say every XR is Ready when a kind could not be listed', () => {
    expect(formatStuck({ stuck: [], total: 0, unreadable: ['cannot list xapps.example.org: forbidden'] })).to.equal(
      'no XR is stuck among the kinds listed; 1 kind could not be listed:\n' +
        '  cannot list xapps.example.org: forbidden\n',
    );
  });

  it('fails when it cannot list the XRDs: there is nothing to list then', async () => {
    const api = server();
    api.failNext((r) => r.path.endsWith('/compositeresourcedefinitions'), 403);
    const err = await stuckXrs(api.client, NOW, 10).catch((e: unknown) => e);
    expect(String(err)).to.include('injected failure');
  });
});

describe('cli/diagnose readOverview', () => {
  const OPERATIONS = (r: { path: string }): boolean => r.path === '/apis/ops.crossplane.io/v1alpha1/operations';
  const LEASE = (r: { path: string }): boolean => r.path.includes('/leases/');

  it('reads the XRs when the Operations and the lease cannot be read, and says why for each', async () => {
    const api = server();
    api.failNext(OPERATIONS, 403);
    api.failNext(LEASE, 403);
    const overview = await readOverview(api.client, 'crossplane-system', NOW, 10);
    expect(overview.total).to.equal(1);
    expect(overview.failed).to.deep.equal({
      operations: 'cannot list Operations: injected failure',
      lease: 'cannot read lease crossplane-system/compositor-leader-election: injected failure',
    });
  });

  it('fails with the first error when no section can be read', async () => {
    const api = server();
    api.failNext((r) => r.path.endsWith('/compositeresourcedefinitions'), 401);
    api.failNext(OPERATIONS, 401);
    api.failNext(LEASE, 401);
    const err = await readOverview(api.client, 'crossplane-system', NOW, 10).catch((e: unknown) => e);
    expect(String(err)).to.include('injected failure');
  });
});
