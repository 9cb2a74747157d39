import { expect } from 'chai';
import pino from 'pino';
import { ControlPlane } from '../../e2e/controlplane/index.js';
import { Discovery, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import {
  InformerRegistry,
  type InformerRegistryOptions,
  type ListerWatcher,
  type WatchEvent,
} from '../../src/watch/index.js';
import { controlPlane, eventually } from './harness.js';

const logger = pino({ level: 'silent' });

function registryFor(plane: ControlPlane, options: Partial<InformerRegistryOptions> = {}): InformerRegistry {
  const client = plane.client();
  return new InformerRegistry({
    client,
    kubeConfig: plane.kubeConfig,
    discovery: new Discovery(client),
    logger,
    syncIntervalMs: 0,
    ...options,
  });
}

async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } });
}

function configMap(namespace: string, name: string, data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

async function putData(
  client: KubeClient,
  namespace: string,
  name: string,
  data: Record<string, string>,
): Promise<void> {
  await client.request('PATCH', `/api/v1/namespaces/${namespace}/configmaps/${name}`, {
    body: { data },
    contentType: 'application/merge-patch+json',
  });
}

/** Open cluster-wide WATCH requests on configmaps, from the API server's own gauge. */
async function openConfigMapWatches(client: KubeClient): Promise<number> {
  const text = await client.request<string>('GET', '/metrics');
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_longrunning_requests{')) continue;
    if (!line.includes('resource="configmaps"') || !line.includes('verb="WATCH"')) continue;
    total += Number(line.split(' ').at(-1));
  }
  return total;
}

const inNamespace = (namespace: string) => (events: WatchEvent[]) =>
  events.filter((event) => event.object.metadata.namespace === namespace);

const describeEvents = (events: WatchEvent[]): string[] =>
  events.map((e) => `${e.type} ${e.object.metadata.name} ${JSON.stringify(e.object.data ?? {})}`);

describe('watch layer (integration)', function () {
  this.timeout(90_000);

  it('sees add, update (with the old object) and delete of real objects', async () => {
    const plane = controlPlane();
    const client = plane.client();
    const registry = registryFor(plane);
    const lease = await registry.acquire('v1', 'ConfigMap');
    const events: WatchEvent[] = [];
    const subscription = lease.informer.events$.subscribe((event) => events.push(event));
    try {
      await lease.informer.waitForSync();
      await createNamespace(client, 'watch-basic');
      await client.request('POST', '/api/v1/namespaces/watch-basic/configmaps', {
        body: configMap('watch-basic', 'one', { v: '1' }),
      });
      await putData(client, 'watch-basic', 'one', { v: '2' });
      await client.request('DELETE', '/api/v1/namespaces/watch-basic/configmaps/one');
      const mine = inNamespace('watch-basic');
      await eventually('add, update, delete of watch-basic/one', () => {
        const seen = describeEvents(mine(events));
        return Promise.resolve(seen.length >= 3 ? seen : Promise.reject(new Error(JSON.stringify(seen))));
      });
      expect(describeEvents(mine(events))).to.deep.equal([
        'add one {"v":"1"}',
        'update one {"v":"2"}',
        'delete one {"v":"2"}',
      ]);
      const update = mine(events)[1];
      expect(update?.type === 'update' ? update.oldObject.data : undefined).to.deep.equal({ v: '1' });
      expect(lease.informer.store.get('watch-basic/one')).to.equal(undefined);
    } finally {
      subscription.unsubscribe();
      await registry.stop();
    }
  });

  it('restarts a watch that stays silent past its timeout, without relisting', async () => {
    const plane = controlPlane();
    let watches = 0;
    const registry = registryFor(plane, {
      watchSilenceTimeoutMs: 1_000,
      wrapListerWatcher: (inner) => ({
        list: (signal) => inner.list(signal),
        watch: (resourceVersion, callbacks) => {
          watches++;
          return inner.watch(resourceVersion, callbacks);
        },
      }),
    });
    // Lease objects rarely change on this control plane, so its watch is quiet apart from bookmarks.
    const lease = await registry.acquire('coordination.k8s.io/v1', 'Lease');
    try {
      await lease.informer.waitForSync();
      await eventually('a second watch after 1 s of silence', () => Promise.resolve(watches >= 2 ? true : undefined), {
        timeoutMs: 15_000,
      });
      expect(lease.informer.relists).to.equal(1);
    } finally {
      await registry.stop();
    }
  });
});

describe('narrowed informers (integration)', function () {
  this.timeout(90_000);

  it('holds only the objects its field selector matches, as listed and as watched, apart from the full informer', async () => {
    const plane = controlPlane();
    const client = plane.client();
    await createNamespace(client, 'watch-selector');
    const secret = (name: string, type: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: 'watch-selector' },
      type,
      data: { key: 'dmFsdWU=' },
    });
    const post = (object: KubeObject): Promise<unknown> =>
      client.request('POST', '/api/v1/namespaces/watch-selector/secrets', { body: object });
    await post(secret('listed', 'connection.crossplane.io/v1alpha1'));
    await post(secret('opaque', 'Opaque'));
    const registry = registryFor(plane);
    try {
      const scope = { fieldSelector: 'type=connection.crossplane.io/v1alpha1' };
      const narrowed = await registry.acquire('v1', 'Secret', scope);
      const again = await registry.acquire('v1', 'Secret', scope);
      const full = await registry.acquire('v1', 'Secret');
      expect(again.informer, 'shared by the same selector').to.equal(narrowed.informer);
      expect(full.informer, 'never with the full informer').to.not.equal(narrowed.informer);
      await narrowed.informer.waitForSync();
      await post(secret('watched', 'connection.crossplane.io/v1alpha1'));
      await post(secret('opaque-later', 'Opaque'));
      const names = (): string[] =>
        narrowed.informer.store
          .list()
          .filter((o) => o.metadata.namespace === 'watch-selector')
          .map((o) => o.metadata.name)
          .sort();
      await eventually('the watched connection Secret cached', () =>
        names().includes('watched')
          ? Promise.resolve(true)
          : Promise.reject(new Error(`cached: ${names().join(', ')}`)),
      );
      await full.informer.waitForSync();
      await eventually('the full informer to see both later Secrets', () =>
        Promise.resolve(full.informer.store.get('watch-selector/opaque-later') ? true : undefined),
      );
      expect(names()).to.deep.equal(['listed', 'watched']);
      expect(registry.watched().sort()).to.deep.equal([
        'v1/Secret',
        'v1/Secret?fieldSelector=type=connection.crossplane.io/v1alpha1',
      ]);
    } finally {
      await registry.stop();
      await client.request('DELETE', '/api/v1/namespaces/watch-selector');
    }
  });
});

// These tests count watches on the server and compact etcd, so they get a control plane of their own without
// kube-controller-manager, whose garbage collector watches every kind. Its watch cache is off so that a watch
// reads etcd, where compaction makes an old resourceVersion fail with 410 as it does on a busy cluster.
describe('watch layer on its own control plane (integration)', function () {
  this.timeout(180_000);
  let plane: ControlPlane;

  before(async () => {
    plane = await ControlPlane.start({ controllerManager: false, apiServerArgs: ['--watch-cache=false'] });
  });

  after(async () => {
    await plane.stop();
  });

  it('shares one informer per kind and closes its watch when the last reference is released', async () => {
    const client = plane.client();
    const before = await openConfigMapWatches(client);
    const registry = registryFor(plane);
    const first = await registry.acquire('v1', 'ConfigMap');
    const second = await registry.acquire('v1', 'ConfigMap');
    expect(second.informer).to.equal(first.informer);
    await first.informer.waitForSync();
    await eventually('our watch to be open on the server', async () =>
      (await openConfigMapWatches(client)) === before + 1 ? true : undefined,
    );
    await first.release();
    await first.release();
    expect(registry.watched()).to.deep.equal(['v1/ConfigMap']);
    expect(first.informer.isStopped()).to.equal(false);
    await second.release();
    expect(registry.watched()).to.deep.equal([]);
    expect(first.informer.isStopped()).to.equal(true);
    expect(first.informer.store.size).to.equal(0);
    await eventually(`the server to count ${before} configmap watches again`, async () => {
      const open = await openConfigMapWatches(client);
      if (open === before) return true;
      throw new Error(`${open} open`);
    });
    const third = await registry.acquire('v1', 'ConfigMap');
    expect(third.informer).to.not.equal(first.informer);
    await third.release();
  });

  it('relists after a forced 410 and misses nothing created before the expired watch', async () => {
    const client = plane.client();
    await createNamespace(client, 'watch-gone');
    let watches = 0;
    // The first watch asks for a resourceVersion that etcd has compacted away since: a real 410 from the server.
    const registry = registryFor(plane, {
      wrapListerWatcher: (inner: ListerWatcher): ListerWatcher => ({
        list: (signal) => inner.list(signal),
        watch: async (resourceVersion, callbacks) => {
          watches++;
          if (watches > 1) return inner.watch(resourceVersion, callbacks);
          // Two writes, then compaction: the first revision after the list is gone from etcd's history.
          for (const name of ['made-before-410', 'also-before-410']) {
            await client.request('POST', '/api/v1/namespaces/watch-gone/configmaps', {
              body: configMap('watch-gone', name, { v: '1' }),
            });
          }
          await plane.compactEtcd();
          return inner.watch(resourceVersion, callbacks);
        },
      }),
    });
    const lease = await registry.acquire('v1', 'ConfigMap');
    try {
      await eventually('the object made before the 410 to reach the cache', () =>
        Promise.resolve(lease.informer.store.get('watch-gone/made-before-410') ? true : undefined),
      );
      expect(lease.informer.relists).to.equal(2);
      await client.request('POST', '/api/v1/namespaces/watch-gone/configmaps', {
        body: configMap('watch-gone', 'made-after', { v: '1' }),
      });
      await eventually('the watch after the relist to deliver a new object', () =>
        Promise.resolve(lease.informer.store.get('watch-gone/made-after') ? true : undefined),
      );
    } finally {
      await registry.stop();
    }
  });

  it('recovers after kube-apiserver is killed and restarted, missing no change made while it was away', async () => {
    const client = plane.client();
    await createNamespace(client, 'outage');
    for (const name of ['keep', 'change', 'remove']) {
      await client.request('POST', '/api/v1/namespaces/outage/configmaps', {
        body: configMap('outage', name, { v: '1' }),
      });
    }
    // While `held` is set, the informer cannot reach the server: the outage lasts as long as the test decides.
    let held: Promise<void> | undefined;
    const hold = async (): Promise<void> => {
      await held;
    };
    const registry = registryFor(plane, {
      wrapListerWatcher: (inner) => ({
        list: async (signal) => {
          await hold();
          return inner.list(signal);
        },
        watch: async (resourceVersion, callbacks) => {
          await hold();
          return inner.watch(resourceVersion, callbacks);
        },
      }),
    });
    const lease = await registry.acquire('v1', 'ConfigMap');
    const events: WatchEvent[] = [];
    lease.informer.events$.subscribe((event) => events.push(event));
    try {
      await lease.informer.waitForSync();
      let release: () => void = () => undefined;
      held = new Promise((resolve) => (release = resolve));
      await plane.restartApiServer();
      await putData(client, 'outage', 'change', { v: '2' });
      await client.request('DELETE', '/api/v1/namespaces/outage/configmaps/remove');
      await client.request('POST', '/api/v1/namespaces/outage/configmaps', {
        body: configMap('outage', 'new', { v: '1' }),
      });
      release();
      held = undefined;
      await eventually('the cache to reflect every change made during the outage', () => {
        const store = lease.informer.store;
        const state = ['keep', 'change', 'remove', 'new'].map((name) => store.get(`outage/${name}`)?.data ?? null);
        const want = [{ v: '1' }, { v: '2' }, null, { v: '1' }];
        if (JSON.stringify(state) === JSON.stringify(want)) return Promise.resolve(true);
        return Promise.reject(new Error(JSON.stringify(state)));
      });
      const seen = describeEvents(inNamespace('outage')(events));
      expect(seen).to.include('update change {"v":"2"}');
      expect(seen).to.include('delete remove {"v":"1"}');
      expect(seen).to.include('add new {"v":"1"}');
    } finally {
      await registry.stop();
    }
  });
});
