import { expect } from 'chai';
import { apiResourceFetcher } from '../../../src/composite/requiredResources.js';
import type { KubeClient, KubeObject } from '../../../src/kube/index.js';
import { FakeApiServer } from '../fakes/index.js';

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
