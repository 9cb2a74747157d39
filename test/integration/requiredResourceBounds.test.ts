// A selector that matches more objects than one call takes, against a real API server: the fetcher lists one page
// of maxItems + 1 (the server honours limit with a label selector and hands back a continue token), and serves every
// match when they fit. From a real informer's cache, the same answers without a request.
import { expect } from 'chai';
import pino from 'pino';
import { systemClock } from '../../src/base/index.js';
import { RequiredKinds } from '../../src/composite/requiredKinds.js';
import { apiResourceFetcher } from '../../src/composite/requiredResources.js';
import type { JsonObject, ResourceSelector, Resources } from '../../src/functions/index.js';
import { Discovery, type KubeClient } from '../../src/kube/index.js';
import { InformerRegistry } from '../../src/watch/index.js';
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

  it('answers the same from the informer cache, bounds included, without reading the API server', async () => {
    const discovery = new Discovery(client);
    const informers = new InformerRegistry({
      client,
      kubeConfig: controlPlane().kubeConfig,
      discovery,
      logger: pino({ level: 'silent' }),
      syncIntervalMs: 0,
    });
    const cache = new RequiredKinds({ informers, clock: systemClock });
    // The cached fetcher's own client, counting what it sends; the informer lists through the other one.
    const sent: string[] = [];
    const counting = controlPlane().client();
    const request = counting.request.bind(counting);
    counting.request = (method, path, options) => {
      if (path.includes('/configmaps')) sent.push(`${method} ${path}`);
      return request(method, path, options);
    };
    const fromApi = apiResourceFetcher(client, discovery, { namespace });
    const fromCache = apiResourceFetcher(counting, new Discovery(counting), { namespace, cache });
    const cm = { apiVersion: 'v1', kind: 'ConfigMap' };
    const cases: [ResourceSelector, number | undefined][] = [
      [{ ...cm, matchLabels: { labels: {} } }, 10],
      [{ ...cm, matchLabels: { labels: { bound: 'even' } } }, 100],
      [{ ...cm, matchLabels: { labels: { bound: 'even' } } }, 5],
      [{ ...cm, matchLabels: { labels: { bound: 'odd' } } }, undefined],
      [{ ...cm, matchName: 'cm-07' }, undefined],
      [{ ...cm, matchName: 'absent' }, undefined],
    ];
    try {
      for (const [selector, maxItems] of cases) {
        const want = withoutManagedFields(await fromApi.fetchResources(selector, maxItems));
        const got = await fromCache.fetchResources(selector, maxItems);
        expect(got, `${JSON.stringify(selector)} with maxItems ${String(maxItems)}`).to.deep.equal(want);
      }
      expect(sent, 'ConfigMap requests of the cached fetcher').to.deep.equal([]);
    } finally {
      await cache.stop();
      await informers.stop();
    }
  });
});

/** As the informer caches keep objects: metadata.managedFields dropped (src/watch/trim.ts). */
function withoutManagedFields(resources: Resources): Resources {
  return {
    items: (resources.items ?? []).map(({ resource }) => {
      const { managedFields: _dropped, ...metadata } = (resource?.metadata ?? {}) as JsonObject;
      return { resource: { ...resource, metadata } };
    }),
  };
}
