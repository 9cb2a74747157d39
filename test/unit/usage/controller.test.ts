import { expect } from 'chai';
import pino from 'pino';
import { RecordingEventSink } from '../../../src/kube/index.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { reconcileLimits } from '../../../src/base/index.js';
import { ReconcileLimiter } from '../../../src/queue/index.js';
import { UsageController, type Usage } from '../../../src/usage/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers, until } from '../fakes/index.js';

// The Usage controller on the in-memory API server: both kinds reach the one queue under their own keys, and the
// reconciler finds each Usage in its kind's cache.

const API = 'protection.crossplane.io/v1beta1';
const KINDS = [
  { apiVersion: API, kind: 'Usage', plural: 'usages', namespaced: true },
  { apiVersion: API, kind: 'ClusterUsage', plural: 'clusterusages', namespaced: false },
];
const IN_USE = 'crossplane.io/in-use';

function world(): { server: FakeApiServer; informers: FakeInformers; controller: UsageController } {
  const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
  const informers = new FakeInformers();
  informers.follow(server);
  for (const name of ['db', 'app', 'cache']) {
    server.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
  }
  const controller = new UsageController({
    client: server.client,
    discovery: server.discovery,
    informers: informers.registry,
    events: new RecordingEventSink(),
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: {
      pollIntervalMs: 60_000,
      waitIntervalMs: 2_000,
      reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles),
      workers: 2,
      installPolicy: false,
    },
  });
  return { server, informers, controller };
}

function usage(kind: 'Usage' | 'ClusterUsage', name: string, of: string): Usage {
  const ref = (n: string): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    resourceRef: kind === 'Usage' ? { name: n } : { name: n, namespace: 'default' },
  });
  return {
    apiVersion: API,
    kind,
    metadata: kind === 'Usage' ? { name, namespace: 'default' } : { name },
    spec: { of: ref(of), by: ref('app') },
  };
}

function inUse(server: FakeApiServer, name: string): boolean {
  const labels = server.get('v1', 'ConfigMap', name, 'default')?.metadata.labels as Record<string, string> | undefined;
  return labels?.[IN_USE] === 'true';
}

describe('usage/UsageController', () => {
  it('protects what a Usage cached before it started and a ClusterUsage created after name', async () => {
    const { server, informers, controller } = world();
    const before = server.put(usage('Usage', 'db-by-app', 'db'));
    informers.informer(API, 'Usage').seed(before);
    await controller.start(new AbortController().signal);
    await until(() => inUse(server, 'db'), 'the object of the cached Usage is labelled in use');
    const after = server.put(usage('ClusterUsage', 'cache-by-app', 'cache'));
    informers.informer(API, 'ClusterUsage').add(after);
    await until(() => inUse(server, 'cache'), 'the object of the new ClusterUsage is labelled in use');
    await controller.stop(AbortSignal.timeout(1_000));
    expect(informers.held(API, 'Usage') + informers.held(API, 'ClusterUsage'), 'both leases released').to.equal(0);
  });
});
