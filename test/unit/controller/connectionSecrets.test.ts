import { expect } from 'chai';
import pino from 'pino';
import { CONNECTION_SECRET_SELECTOR, ConnectionSecrets } from '../../../src/controller/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import type { InformerRegistry, InformerScope } from '../../../src/watch/index.js';
import { FakeApiServer, FakeInformers, requestLines, until } from '../fakes/index.js';

// The connection Secret cache: one informer of connection Secrets only, a read from it once it has synced, the API
// server before then and on every miss.

const SECRET: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db-conn', namespace: 'conn' },
  type: 'connection.crossplane.io/v1alpha1',
  data: { user: 'YWRtaW4=' },
};

function harness(synced: boolean): {
  api: FakeApiServer;
  fakes: FakeInformers;
  scopes: (InformerScope | undefined)[];
  secrets: ConnectionSecrets;
} {
  const api = new FakeApiServer();
  const fakes = new FakeInformers();
  fakes.informer('v1', 'Secret', synced);
  const scopes: (InformerScope | undefined)[] = [];
  const informers = {
    acquire: (apiVersion: string, kind: string, scope?: InformerScope) => {
      scopes.push(scope);
      return fakes.registry.acquire(apiVersion, kind);
    },
  } as unknown as InformerRegistry;
  const secrets = new ConnectionSecrets({ informers, client: api.client, logger: pino({ level: 'silent' }) });
  return { api, fakes, scopes, secrets };
}

describe('controller/ConnectionSecrets', () => {
  it('watches only Secrets of the connection type, once, from the first read', async () => {
    const { fakes, scopes, secrets } = harness(true);
    expect(fakes.acquired).to.deep.equal([]);
    secrets.cached('conn', 'db-conn');
    secrets.cached('conn', 'other');
    await until(() => fakes.acquired.length > 0, 'the informer is acquired');
    expect(scopes).to.deep.equal([{ fieldSelector: CONNECTION_SECRET_SELECTOR }]);
    expect(CONNECTION_SECRET_SELECTOR).to.equal('type=connection.crossplane.io/v1alpha1');
  });

  it('serves a cached Secret without a request once the cache has synced', async () => {
    const { api, fakes, secrets } = harness(true);
    fakes.informer('v1', 'Secret').seed(SECRET);
    secrets.cached('conn', 'db-conn');
    await until(() => secrets.cached('conn', 'db-conn') !== undefined, 'the cache serves');
    expect(await secrets.data('conn', 'db-conn')).to.deep.equal({ user: 'YWRtaW4=' });
    expect(secrets.cached('conn', 'missing')).to.deep.equal({ found: undefined });
    expect(api.requests).to.deep.equal([]);
  });

  it('reads from the API server before the cache has synced, and on a miss', async () => {
    const { api, fakes, secrets } = harness(false);
    api.put(SECRET);
    api.requests.length = 0;
    expect(await secrets.data('conn', 'db-conn')).to.deep.equal({ user: 'YWRtaW4=' });
    expect(secrets.cached('conn', 'db-conn'), 'not synced: no answer').to.equal(undefined);
    fakes.informer('v1', 'Secret').sync();
    // Synced but without the Secret (its watch event not in, or a Secret of another type): asked for.
    expect(await secrets.data('conn', 'db-conn')).to.deep.equal({ user: 'YWRtaW4=' });
    expect(await secrets.data('conn', 'gone')).to.equal(undefined);
    expect(requestLines(api.requests)).to.deep.equal([
      'GET /api/v1/namespaces/conn/secrets/db-conn',
      'GET /api/v1/namespaces/conn/secrets/db-conn',
      'GET /api/v1/namespaces/conn/secrets/gone',
    ]);
  });

  it('gives up its lease on stop and reads from the API server after', async () => {
    const { api, fakes, secrets } = harness(true);
    fakes.informer('v1', 'Secret').seed(SECRET);
    secrets.cached('conn', 'db-conn');
    await until(() => secrets.cached('conn', 'db-conn') !== undefined, 'the cache serves');
    await secrets.stop();
    expect(fakes.held('v1', 'Secret')).to.equal(0);
    expect(secrets.cached('conn', 'db-conn')).to.equal(undefined);
    expect(await secrets.data('conn', 'db-conn')).to.equal(undefined);
    expect(requestLines(api.requests)).to.deep.equal(['GET /api/v1/namespaces/conn/secrets/db-conn']);
  });
});
