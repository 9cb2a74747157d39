import { expect } from 'chai';
import { ManualClock } from '../../../src/base/index.js';
import { REQUIRED_SYNC_WAIT_MS, RequiredKinds } from '../../../src/composite/requiredKinds.js';
import { apiResourceFetcher } from '../../../src/composite/requiredResources.js';
import type { ResourceSelector } from '../../../src/functions/index.js';
import type { KubeClient, KubeObject } from '../../../src/kube/index.js';
import { FakeApiServer, FakeInformers, requestLines, until } from '../fakes/index.js';

interface Page {
  items: KubeObject[];
  metadata: { continue?: string };
}

/**
 * A namespace of `count` ConfigMaps listed in pages as the API server does: at most `limit` items, and sometimes
 * fewer with a continue token (`short` items per page at most), as a page filtered by a label selector may be.
 */
function pagedClient(count: number, short = Infinity): { client: KubeClient; queries: Record<string, unknown>[] } {
  const queries: Record<string, unknown>[] = [];
  const client = {
    request: (_method: string, _path: string, options: { query?: Record<string, unknown> }): Promise<Page> => {
      const query = options.query ?? {};
      queries.push(query);
      const from = Number(query.continue ?? 0);
      const limit = query.limit === undefined ? count : Number(query.limit);
      const to = Math.min(count, from + Math.min(limit, short));
      const items = Array.from({ length: to - from }, (_, i) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${String(from + i).padStart(6, '0')}`, namespace: 'default' },
      }));
      return Promise.resolve({ items, metadata: to < count ? { continue: String(to) } : {} });
    },
  } as unknown as KubeClient;
  return { client, queries };
}

describe('composite/apiResourceFetcher', () => {
  const server = new FakeApiServer();
  const selector = { apiVersion: 'v1', kind: 'ConfigMap', matchLabels: { labels: {} } };

  it('lists one page of maxItems + 1 for a selector that matches everything', async () => {
    const { client, queries } = pagedClient(100_000);
    const fetcher = apiResourceFetcher(client, server.discovery, { namespace: 'default' });
    const got = await fetcher.fetchResources(selector, 1000);
    expect(got.items).to.have.length(1001);
    expect(queries).to.deep.equal([{ labelSelector: undefined, limit: '1001', continue: undefined }]);
  });

  it('follows short pages until past maxItems, asking each time only for what is still missing', async () => {
    const { client, queries } = pagedClient(100_000, 400);
    const fetcher = apiResourceFetcher(client, server.discovery, { namespace: 'default' });
    const got = await fetcher.fetchResources(selector, 1000);
    expect(got.items).to.have.length(1001);
    expect(queries.map((q) => [q.limit, q.continue])).to.deep.equal([
      ['1001', undefined],
      ['601', '400'],
      ['201', '800'],
    ]);
  });

  it('returns every match, sorted, when they fit', async () => {
    const { client } = pagedClient(30, 7);
    const fetcher = apiResourceFetcher(client, server.discovery, { namespace: 'default' });
    const got = await fetcher.fetchResources(selector, 1000);
    const names = (got.items ?? []).map((i) => (i.resource?.metadata as { name: string }).name);
    expect(names).to.have.length(30);
    expect(names).to.deep.equal([...names].sort());
  });
});

describe('composite/apiResourceFetcher with the informer caches', () => {
  const server = new FakeApiServer();
  const informers = new FakeInformers();
  const cache = new RequiredKinds({ informers: informers.registry, clock: new ManualClock() });
  const put = (namespace: string, name: string, labels: Record<string, string>): void => {
    server.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data: { name } });
  };
  // Out of order, so an answer in stored order would differ from the API server's.
  put('team-b', 'settings', { env: 'prod', tier: 'db' });
  put('default', 'zeta', { env: 'prod' });
  put('default', 'settings', { env: 'dev' });
  put('team-a', 'alpha', { env: 'prod', tier: 'web' });
  put('default', 'alpha', { env: 'prod', tier: 'db' });
  for (const object of server.list('v1', 'ConfigMap')) informers.informer('v1', 'ConfigMap').seed(object);

  const cm = { apiVersion: 'v1', kind: 'ConfigMap' };
  const cases: Record<string, { reason: string; namespace?: string; selector: ResourceSelector; maxItems?: number }> = {
    byName: {
      reason: 'a name is looked up in the XR namespace',
      namespace: 'default',
      selector: { ...cm, matchName: 'settings' },
    },
    absent: { reason: 'an absent name has no items', namespace: 'default', selector: { ...cm, matchName: 'missing' } },
    otherNamespace: {
      reason: 'a selector namespace wins over the XR namespace',
      namespace: 'default',
      selector: { ...cm, matchName: 'settings', namespace: 'team-b' },
    },
    labelsInNamespace: {
      reason: 'labels select in the XR namespace only',
      namespace: 'default',
      selector: { ...cm, matchLabels: { labels: { env: 'prod' } } },
    },
    everyLabel: {
      reason: 'every label must match',
      selector: { ...cm, matchLabels: { labels: { env: 'prod', tier: 'db' } } },
    },
    clusterWide: {
      reason: 'a cluster XR selects across namespaces, ordered by namespace and name',
      selector: { ...cm, matchLabels: { labels: {} } },
    },
    bounded: {
      reason: 'past maxItems, the first maxItems + 1',
      selector: { ...cm, matchLabels: { labels: { env: 'prod' } } },
      maxItems: 2,
    },
  };

  for (const [name, { reason, namespace, selector, maxItems }] of Object.entries(cases)) {
    it(`answers as the API server does, without a request: ${name}`, async () => {
      const fromApi = await apiResourceFetcher(server.client, server.discovery, { namespace }).fetchResources(
        selector,
        maxItems,
      );
      const before = server.requests.length;
      const fetcher = apiResourceFetcher(server.client, server.discovery, { namespace, cache });
      const fromCache = await fetcher.fetchResources(selector, maxItems);
      // The fake API server pages nothing: the real one would answer the first maxItems + 1 in key order.
      const want = maxItems === undefined ? fromApi : { items: fromApi.items?.slice(0, maxItems + 1) };
      expect(fromCache, reason).to.deep.equal(want);
      const reads = server.requests.slice(before).filter((r) => r.path.includes('configmaps'));
      expect(reads, `${reason}: requests`).to.deep.equal([]);
    });
  }

  it('reads the API server while a kind has no synced cache', async () => {
    const cold = new FakeInformers();
    cold.informer('v1', 'ConfigMap', false);
    const clock = new ManualClock();
    const unsynced = new RequiredKinds({ informers: cold.registry, clock });
    const fetcher = apiResourceFetcher(server.client, server.discovery, { namespace: 'default', cache: unsynced });
    const before = server.requests.length;
    const fetched = fetcher.fetchResources({ ...cm, matchName: 'settings' });
    await until(() => clock.pendingTimers() === 1, 'the wait for the first list');
    clock.advance(REQUIRED_SYNC_WAIT_MS);
    const got = await fetched;
    expect(got.items).to.have.length(1);
    expect(requestLines(server.requests.slice(before))).to.deep.equal([
      'GET /api/v1/namespaces/default/configmaps/settings',
    ]);
  });
});
