import { expect } from 'chai';
import { NEVER } from 'rxjs';
import pino from 'pino';
import { ManualClock, reconcileLimits } from '../../../src/base/index.js';
import { ShardFollower, type RunningComposite } from '../../../src/definition/index.js';
import { Engine } from '../../../src/engine/index.js';
import type { KubeClient } from '../../../src/kube/index.js';
import type { Lifecycle } from '../../../src/lifecycle/index.js';
import { LeadershipLostError, Manager, type Elector } from '../../../src/manager/index.js';
import { createMetrics, type Metrics } from '../../../src/metrics/index.js';
import { ReconcileLimiter, ReconcileQueue } from '../../../src/queue/index.js';
import { ObjectStore, withReplay, type InformerLease, type InformerRegistry } from '../../../src/watch/index.js';
import { settle } from '../watch/fakeListerWatcher.js';

// A leader that cannot renew its lease gives up at the renew deadline; a standby may take the lease over once the
// lease duration has passed since the last renewal, that is (lease duration - renew deadline) after the loss. Every
// reconcile must be aborted before then. Here the whole chain runs: the manager, the engine, a shard follower and
// the composite controller it started, whose work queue is the real one, on a manual clock.

const LEASE = {
  namespace: 'crossplane-system',
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};
const GRACEFUL_MS = 30_000;

/** An elector that leads at once and loses the lease when the test says so. */
class FakeElector implements Elector {
  isLeader = false;
  lose: (why: string) => void = () => undefined;

  acquire(): Promise<void> {
    this.isLeader = true;
    return Promise.resolve();
  }

  keepRenewing(_signal: AbortSignal, onLost: (why: string) => void): Promise<void> {
    this.lose = (why): void => {
      this.isLeader = false;
      onLost(why);
    };
    return Promise.resolve();
  }

  release(): Promise<void> {
    return Promise.resolve();
  }
}

/** A composite controller reduced to its work queue, whose one reconcile runs until its signal aborts. */
class BlockingController implements RunningComposite {
  readonly queue: ReconcileQueue;
  abortedAt: number | undefined;

  constructor(
    readonly name: string,
    clock: ManualClock,
    metrics: Metrics,
  ) {
    this.queue = new ReconcileQueue({
      name,
      metrics,
      workers: 1,
      limiter: new ReconcileLimiter(reconcileLimits(10).reconciles, clock),
      clock,
      reconcile: (_key, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            this.abortedAt = clock.now();
            resolve({});
          });
        }),
    });
  }

  start(): Promise<void> {
    return this.queue.start();
  }

  stop(deadline: AbortSignal): Promise<void> {
    return this.queue.stop(deadline);
  }
}

/** One established XRD in a cache that never changes. */
function xrdInformers(): InformerRegistry {
  const store = new ObjectStore();
  store.set({
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'CompositeResourceDefinition',
    metadata: { name: 'xapps.example.org', generation: 1 },
    spec: { group: 'example.org', names: { kind: 'XApp', plural: 'xapps' }, versions: [] },
    status: { conditions: [{ type: 'Established', status: 'True', observedGeneration: 1 }] },
  });
  const lease = {
    // As a real informer, it replays its cache to each subscriber.
    informer: {
      store,
      events$: withReplay(() => store.list(), NEVER),
      hasSynced: true,
      waitForSync: () => Promise.resolve(),
    },
    resource: { groupVersionPath: '/apis/apiextensions.crossplane.io/v1', plural: 'xrds', namespaced: false },
    release: () => Promise.resolve(),
  };
  return { acquire: () => Promise.resolve(lease as unknown as InformerLease) } as unknown as InformerRegistry;
}

const idle: Lifecycle = { start: () => Promise.resolve(), stop: () => Promise.resolve() };

describe('manager/a lost leader election lease', () => {
  it('aborts an in-flight reconcile before a standby may take the lease over', async () => {
    const clock = new ManualClock();
    const metrics = createMetrics({ processMetrics: false });
    const log = pino({ level: 'silent' });
    const controllers: BlockingController[] = [];
    const follower = new ShardFollower({
      informers: xrdInformers(),
      metrics,
      logger: log,
      reconcileLimiter: new ReconcileLimiter(reconcileLimits(10).reconciles, clock),
      stopDeadlineMs: GRACEFUL_MS,
      newComposite: (input) => {
        const controller = new BlockingController(input.name, clock, metrics);
        controllers.push(controller);
        return controller;
      },
    });
    const engine = new Engine({
      informers: { ...idle, watched: () => [] },
      events: { flush: () => Promise.resolve() },
      functions: idle,
      definitions: follower,
      log,
      shard: { index: 1, count: 2 },
    });
    const elector = new FakeElector();
    const manager = new Manager({
      config: {
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        installCrds: false,
        gracefulShutdownTimeoutMs: GRACEFUL_MS,
      },
      log,
      metrics,
      kubeConfig: () => {
        throw new Error('not used: connect is given');
      },
      crds: () => Promise.resolve([]),
      connect: () => Promise.resolve({} as KubeClient),
      runnables: () => [engine],
      leaderElection: LEASE,
      newElector: () => elector,
      clock,
    });

    let started: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (started = resolve));
    const run = manager.run(new AbortController().signal, started).then(
      () => undefined,
      (err: unknown) => err,
    );
    await ready;
    await settle();
    const [controller] = controllers;
    expect(controller?.name, 'the follower started the composite controller of the XRD').to.equal(
      'composite/xapps.example.org',
    );
    controller?.queue.add('default/my-app');
    await settle();
    expect(controller?.queue.stats().processing, 'a reconcile is in flight').to.equal(1);

    const lostAt = clock.now();
    elector.lose('could not renew the lease for 10s');
    await settle();
    const takeoverAt = lostAt + LEASE.leaseDurationMs - LEASE.renewDeadlineMs;
    clock.advanceTo(takeoverAt - 1);
    await settle();

    expect(controller?.abortedAt, 'the reconcile was aborted').to.not.equal(undefined);
    expect(controller?.abortedAt ?? Infinity, 'aborted before a standby may take over').to.be.below(takeoverAt);
    expect(await run, 'the manager stopped and reports the lost lease').to.be.instanceOf(LeadershipLostError);
  });
});
