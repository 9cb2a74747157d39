import { expect } from 'chai';
import pino from 'pino';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { apiPort, proxiedKubeconfig } from '../../bench/harness/plane.js';
import { TcpProxy } from '../../bench/harness/proxy.js';
import {
  DeadConnectionError,
  Discovery,
  KubeClient,
  RequestTimeoutError,
  type KubeObject,
} from '../../src/kube/index.js';
import { InformerRegistry, type ListerWatcher } from '../../src/watch/index.js';
import { controlPlane, eventually } from './harness.js';

// compositor talks to the shared control plane through a TCP proxy (the one bench/faults.ts uses) that can
// blackhole every connection open through it: bytes stop flowing, no FIN, no RST, as after a dead NAT entry. New
// connections are forwarded as usual, so whatever notices its connection is dead recovers by reconnecting.

function configMap(namespace: string, name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { v: '1' } };
}

/** An informer registry over `client`, as the engine builds one, its list-watchers wrapped when asked. */
function registryOver(
  client: KubeClient,
  kubeConfig: KubeConfig,
  wrapListerWatcher?: (inner: ListerWatcher) => ListerWatcher,
): InformerRegistry {
  return new InformerRegistry({
    client,
    kubeConfig,
    discovery: new Discovery(client),
    logger: pino({ level: 'silent' }),
    syncIntervalMs: 0,
    wrapListerWatcher,
  });
}

describe('silently dead connections (integration)', function () {
  this.timeout(120_000);
  let proxy: TcpProxy;
  let kubeConfig: KubeConfig;

  before(async () => {
    const plane = controlPlane();
    proxy = await new TcpProxy('127.0.0.1', apiPort(plane)).start();
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(proxiedKubeconfig(plane, proxy.port));
    await plane.client().request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'blackhole' } } });
  });

  afterEach(() => {
    proxy.release();
  });

  after(async () => {
    await proxy.close();
  });

  it('an informer replaces a blackholed watch by its deadline and misses no change made meanwhile', async () => {
    const direct = controlPlane().client();
    const client = new KubeClient(kubeConfig);
    let watches = 0;
    const registry = registryOver(client, kubeConfig, (inner) => ({
      list: (signal) => inner.list(signal),
      watch: (resourceVersion, callbacks, options) => {
        watches++;
        return inner.watch(resourceVersion, callbacks, options);
      },
    }));
    const lease = await registry.acquire('v1', 'ConfigMap');
    try {
      await lease.informer.waitForSync();
      await direct.request('POST', '/api/v1/namespaces/blackhole/configmaps', {
        body: configMap('blackhole', 'before'),
      });
      await eventually('the cache to hold blackhole/before', () =>
        Promise.resolve(lease.informer.store.get('blackhole/before') ? true : undefined),
      );
      const watchesBefore = watches;
      expect(proxy.cut('blackhole'), 'connections cut').to.be.at.least(1);
      await direct.request('POST', '/api/v1/namespaces/blackhole/configmaps', {
        body: configMap('blackhole', 'after'),
      });
      // The dead watch asked for at most 20 s and is given 3 s more: it is replaced within 23 s of the cut.
      await eventually(
        'the cache to hold blackhole/after, made while the watch was dead',
        () =>
          Promise.resolve(
            lease.informer.store.get('blackhole/after') ? true : Promise.reject(new Error(`${watches} watches`)),
          ),
        { timeoutMs: 45_000, intervalMs: 250 },
      );
      expect(watches, 'a new watch replaced the dead one').to.be.greaterThan(watchesBefore);
      expect(lease.informer.relists, 'resumed from its resourceVersion, no relist').to.equal(1);
    } finally {
      await registry.stop();
    }
  });

  it('a request on a blackholed connection fails within seconds, and the next one gets a new connection', async () => {
    const client = new KubeClient(kubeConfig);
    await client.request('GET', '/api/v1/namespaces/blackhole');
    for (let i = 0; i < 5; i++) await nextTurn();
    expect(proxy.cut('blackhole'), 'the pooled connection was cut').to.be.at.least(1);
    const cutAt = Date.now();
    const failure = await client.request('GET', '/api/v1/namespaces/blackhole').then(
      () => undefined,
      (err: unknown) => err,
    );
    const failedAfterMs = Date.now() - cutAt;
    expect(failure, `what the request on the dead connection got after ${failedAfterMs} ms`).to.be.instanceOf(
      DeadConnectionError,
    );
    // Read idle 2 s, then the probes' 1 s grace: ~3 s. 8 s leaves room for a loaded machine, under the 15 s deadline.
    expect(failedAfterMs, 'found dead well before the request deadline').to.be.below(8_000);
    await client.request('GET', '/api/v1/namespaces/blackhole');
  });

  it('an informer rewatches at once when its client finds a connection dead, and misses no change', async () => {
    const direct = controlPlane().client();
    const client = new KubeClient(kubeConfig);
    const registry = registryOver(client, kubeConfig);
    const lease = await registry.acquire('v1', 'ConfigMap');
    try {
      await lease.informer.waitForSync();
      await client.request('GET', '/api/v1/namespaces/blackhole');
      for (let i = 0; i < 5; i++) await nextTurn();
      expect(proxy.cut('blackhole'), 'connections cut').to.be.at.least(2);
      const cutAt = Date.now();
      await direct.request('POST', '/api/v1/namespaces/blackhole/configmaps', {
        body: configMap('blackhole', 'while-dead'),
      });
      // A reconcile's request on the dead pool: the client finds it dead, and the watches rewatch with it.
      const request = client.request('GET', '/api/v1/namespaces/blackhole').catch((err: unknown) => err);
      const seenAfterMs = await eventually(
        'the cache to hold blackhole/while-dead, made while the watch was dead',
        () => Promise.resolve(lease.informer.store.get('blackhole/while-dead') ? Date.now() - cutAt : undefined),
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      expect(await request, 'the request on the dead pool').to.be.instanceOf(DeadConnectionError);
      expect(seenAfterMs, 'the change made while the watch was dead seen within 10 s of the cut').to.be.below(10_000);
      expect(lease.informer.relists, 'resumed from its resourceVersion, no relist').to.equal(1);
    } finally {
      await registry.stop();
    }
  });

  it('a request on a blackholed connection fails at its deadline without the check, and that connection is not used again', async () => {
    const client = new KubeClient(kubeConfig, () => undefined, undefined, {
      requestTimeoutMs: 3_000,
      connectionCheck: false,
    });
    await client.request('GET', '/api/v1/namespaces/blackhole');
    // Let undici return the connection to its pool as idle, so the next request is written on it.
    for (let i = 0; i < 5; i++) await nextTurn();
    const cut = proxy.cut('blackhole');
    expect(cut, 'the pooled connection was cut').to.be.at.least(1);
    const timeouts: unknown[] = [];
    let answered = false;
    // Each dead connection may cost one request its deadline; a connection reused after its timeout would cost more.
    for (let attempt = 0; attempt <= cut && !answered; attempt++) {
      try {
        await client.request('GET', '/api/v1/namespaces/blackhole');
        answered = true;
      } catch (err) {
        timeouts.push(err);
      }
    }
    expect(answered, `answered after ${timeouts.length} timeouts (${cut} connections cut)`).to.equal(true);
    expect(timeouts.length, 'the request written on the dead connection timed out').to.be.at.least(1);
    for (const err of timeouts) expect(err).to.be.instanceOf(RequestTimeoutError);
  });
});
