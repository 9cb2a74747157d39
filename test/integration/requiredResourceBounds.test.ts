// A selector that matches more objects than one call takes, against a real API server: the fetcher lists one page
// of maxItems + 1 (the server honours limit with a label selector and hands back a continue token), and serves every
// match when they fit.
import { expect } from 'chai';
import { apiResourceFetcher } from '../../src/composite/requiredResources.js';
import { Discovery, type KubeClient } from '../../src/kube/index.js';
import { controlPlane } from './harness.js';

describe('required resources past the bound', function () {
  this.timeout(120_000);
  const namespace = 'required-bounds';
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    await client.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    });
    for (let i = 0; i < 30; i++) {
      await client.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${String(i).padStart(2, '0')}`, labels: { bound: i % 2 === 0 ? 'even' : 'odd' } },
        },
      });
    }
  });

  after(async () => {
    await client.request('DELETE', `/api/v1/namespaces/${namespace}`);
  });

  const names = (items: { resource?: { metadata?: unknown } }[] | undefined): string[] =>
    (items ?? []).map((i) => (i.resource?.metadata as { name: string }).name);

  it('lists maxItems + 1 of a selector that matches more, and every match of one that fits', async () => {
    const fetcher = apiResourceFetcher(client, new Discovery(client), { namespace });
    const all = { apiVersion: 'v1', kind: 'ConfigMap', matchLabels: { labels: {} } };
    const page = await fetcher.fetchResources(all, 10);
    expect(page.items, 'one past the bound tells the caller there are more').to.have.length(11);

    const even = { apiVersion: 'v1', kind: 'ConfigMap', matchLabels: { labels: { bound: 'even' } } };
    const fits = await fetcher.fetchResources(even, 100);
    expect(names(fits.items)).to.deep.equal(
      Array.from({ length: 15 }, (_, i) => `cm-${String(2 * i).padStart(2, '0')}`),
    );

    const past = await fetcher.fetchResources(even, 5);
    expect(names(past.items)).to.have.length(6);
  });
});
