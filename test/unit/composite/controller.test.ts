import { expect } from 'chai';
import pino from 'pino';
import { CompositeController, type CompositeControllerSettings } from '../../../src/composite/index.js';
import type { Xr } from '../../../src/controller/index.js';
import { RecordingEventSink } from '../../../src/kube/index.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { FakeApiServer, FakeInformers, FakeRunner, requestLines, until } from '../fakes/index.js';
import { composition, desiring, KINDS, revision, XR_API_VERSION } from './world.js';
import { reconcileLimits } from '../../../src/base/index.js';
import { ReconcileLimiter } from '../../../src/queue/index.js';

const SETTINGS: CompositeControllerSettings = {
  realtime: true,
  reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles),
  workers: 2,
  pollIntervalMs: 60_000,
  minPollIntervalMs: 1_000,
  breaker: {},
};

/** A composite controller over the fake API server, whose changes reach the fake informers as watch events. */
class ControllerWorld {
  readonly server = new FakeApiServer(KINDS);
  readonly informers = new FakeInformers();
  readonly events = new RecordingEventSink();
  readonly runner = new FakeRunner(() => desiring({ cm: { data: { a: '1' } } }));
  readonly controller: CompositeController;

  constructor(settings: Partial<CompositeControllerSettings> = {}) {
    this.informers.follow(this.server);
    this.informers.informer('apiextensions.crossplane.io/v1', 'Composition').seed(composition());
    this.informers.informer('apiextensions.crossplane.io/v1', 'CompositionRevision').seed(revision());
    this.controller = new CompositeController({
      name: 'composite/xapps.example.org',
      xrType: { apiVersion: XR_API_VERSION, group: 'example.org', kind: 'XApp', namespaced: true, legacy: false },
      xrd: () => ({}),
      client: this.server.client,
      discovery: this.server.discovery,
      informers: this.informers.registry,
      runner: this.runner,
      events: this.events,
      metrics: createMetrics({ processMetrics: false }),
      logger: pino({ level: 'silent' }),
      settings: { ...SETTINGS, ...settings },
    });
  }

  /** Creates an XR on the server; its add event reaches the controller. */
  async createXr(name = 'app'): Promise<void> {
    await this.server.client.request('PATCH', `/apis/example.org/v1/namespaces/default/xapps/${name}`, {
      contentType: 'application/apply-patch+yaml',
      body: {
        apiVersion: XR_API_VERSION,
        kind: 'XApp',
        metadata: { name, namespace: 'default' },
        spec: { crossplane: { compositionRef: { name: 'app' }, compositionRevisionRef: { name: 'app-1' } } },
      },
    });
  }

  xr(name = 'app'): Xr | undefined {
    return this.server.get<Xr>(XR_API_VERSION, 'XApp', name, 'default');
  }

  stop(): Promise<void> {
    return this.controller.stop(AbortSignal.timeout(5_000));
  }
}

function ready(xr: Xr | undefined): boolean {
  return xr?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

describe('composite/CompositeController', () => {
  it('reconciles an XR to Ready, looks once more when its echoes arrive, then does nothing', async () => {
    const world = new ControllerWorld();
    await world.controller.start();
    await world.createXr();
    await until(() => ready(world.xr()), 'the XR is Ready');
    await until(() => world.controller.stats().processing === 0 && world.runner.calls.length >= 2, 'it is idle');
    const writes = world.server.writes().length;
    const calls = world.runner.calls.length;
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(world.server.writes().length, 'the echoes of its own writes start nothing').to.equal(writes);
    expect(world.runner.calls.length).to.equal(calls);
    expect(world.server.list('v1', 'ConfigMap')).to.have.length(1);
    await world.stop();
  });

  it('reconciles again when someone else changes a composed resource, and restores it', async () => {
    const world = new ControllerWorld();
    await world.controller.start();
    await world.createXr();
    await until(() => ready(world.xr()) && world.controller.stats().processing === 0, 'the XR is Ready');
    const [cm] = world.server.list<{ apiVersion: string; kind: string; metadata: { name: string } }>('v1', 'ConfigMap');
    if (!cm) throw new Error('no ConfigMap');
    await world.server.client.request('PATCH', `/api/v1/namespaces/default/configmaps/${cm.metadata.name}`, {
      contentType: 'application/merge-patch+json',
      body: { data: { a: 'edited' } },
    });
    await until(() => {
      const data = world.server.get<{ apiVersion: string; kind: string; metadata: { name: string }; data?: object }>(
        'v1',
        'ConfigMap',
        cm.metadata.name,
        'default',
      )?.data;
      return JSON.stringify(data) === JSON.stringify({ a: '1' });
    }, 'the ConfigMap is restored');
    await world.stop();
  });

  it('stops watching a composed kind once no XR composes it, and releases every lease when stopped', async () => {
    const world = new ControllerWorld();
    await world.controller.start();
    await world.createXr();
    await until(() => world.informers.held('v1', 'ConfigMap') === 1, 'ConfigMaps are watched');
    world.runner.respond = () => ({ desired: { resources: {} } });
    await world.server.client.request('PATCH', '/apis/example.org/v1/namespaces/default/xapps/app', {
      contentType: 'application/merge-patch+json',
      body: { spec: { parameters: { size: 2 } } },
    });
    await until(() => world.informers.held('v1', 'ConfigMap') === 0, 'ConfigMaps are no longer watched');
    expect(world.server.list('v1', 'ConfigMap'), 'garbage-collected').to.deep.equal([]);
    await world.stop();
    for (const gvk of new Set(world.informers.acquired)) {
      const slash = gvk.lastIndexOf('/');
      expect(world.informers.held(gvk.slice(0, slash), gvk.slice(slash + 1)), gvk).to.equal(0);
    }
  });

  it('serves required resources from the informer cache, and gives the kind up when no XR requires it', async () => {
    const world = new ControllerWorld();
    world.server.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: 'default' } });
    for (const secret of world.server.list('v1', 'Secret')) world.informers.informer('v1', 'Secret').seed(secret);
    const requiring = { resources: { creds: { apiVersion: 'v1', kind: 'Secret', matchName: 'creds' } } };
    world.runner.respond = (call) => ({
      ...desiring({ cm: { data: { seen: String(call.request.requiredResources?.creds?.items?.length ?? 0) } } }),
      requirements: requiring,
    });
    await world.controller.start();
    await world.createXr();
    await until(() => ready(world.xr()) && world.controller.stats().processing === 0, 'the XR is Ready');
    const [cm] = world.server.list<{ apiVersion: string; kind: string; metadata: { name: string }; data?: object }>(
      'v1',
      'ConfigMap',
    );
    expect(cm?.data, 'the function saw the Secret').to.deep.equal({ seen: '1' });
    expect(requestLines(world.server.requests).filter((line) => line.includes('/secrets'))).to.deep.equal([]);
    // One lease serves the lookups, the other is the realtime watch of the kind: one informer, shared.
    expect(world.informers.held('v1', 'Secret'), 'leases of the Secret informer').to.equal(2);
    world.runner.respond = () => desiring({ cm: { data: { seen: 'none' } } });
    await world.server.client.request('PATCH', '/apis/example.org/v1/namespaces/default/xapps/app', {
      contentType: 'application/merge-patch+json',
      body: { spec: { parameters: { size: 2 } } },
    });
    await until(() => world.informers.held('v1', 'Secret') === 0, 'Secrets are no longer cached');
    await world.stop();
  });

  it('opens the circuit of a storming composed resource: a Warning event and Responsive False', async () => {
    const world = new ControllerWorld({
      breaker: { burst: 6, refillRatePerSecond: 0.001, cooldownMs: 600_000, halfOpenIntervalMs: 600_000 },
    });
    await world.controller.start();
    await world.createXr();
    await until(() => ready(world.xr()) && world.controller.stats().processing === 0, 'the XR is Ready');
    const [cm] = world.server.list<{ apiVersion: string; kind: string; metadata: { name: string } }>('v1', 'ConfigMap');
    if (!cm) throw new Error('no ConfigMap');
    for (let i = 0; i < 10; i++) {
      await world.server.client.request('PATCH', `/api/v1/namespaces/default/configmaps/${cm.metadata.name}`, {
        contentType: 'application/merge-patch+json',
        body: { metadata: { labels: { storm: String(i) } } },
      });
    }
    await until(
      () => world.events.events.some(({ input }) => input.reason === 'CircuitBreakerOpen'),
      'the circuit opened',
    );
    await until(
      () => world.xr()?.status?.conditions?.some((c) => c.type === 'Responsive' && c.status === 'False') === true,
      'Responsive is False',
    );
    const open = world.events.events.find(({ input }) => input.reason === 'CircuitBreakerOpen');
    expect(open?.input.type).to.equal('Warning');
    expect(open?.input.message).to.equal(
      `Too many watch events from ConfigMap/${cm.metadata.name} (default); allowing events periodically`,
    );
    await world.stop();
  });
});
