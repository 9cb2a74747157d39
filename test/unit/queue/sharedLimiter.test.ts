import { expect } from 'chai';
import { ManualClock } from '../../../src/base/index.js';
import { createMetrics, type Metrics } from '../../../src/metrics/index.js';
import { ReconcileQueue, type ReconcileLimiter, type Reconciler } from '../../../src/queue/index.js';
import { advance, histogramCount, histogramSum, limiterOf, metricValue, settle } from './testing.js';

// Many controllers' queues on the one limiter of a process, as the engine wires them: the rate is the process's.

interface Start {
  queue: string;
  key: string;
  at: number;
}

/** One composite controller's queue per XRD, all on `limiter`, recording every reconcile start. */
function queuesOf(
  count: number,
  limiter: ReconcileLimiter,
  clock: ManualClock,
  reconcile: Reconciler,
): { queues: ReconcileQueue[]; starts: Start[]; metrics: Metrics } {
  const metrics = createMetrics({ processMetrics: false });
  const starts: Start[] = [];
  const queues = Array.from({ length: count }, (_, i) => {
    const name = `composite/x${i}.example.org`;
    return new ReconcileQueue({
      name,
      metrics,
      workers: 10,
      limiter,
      clock,
      reconcile: (key, signal) => {
        starts.push({ queue: name, key, at: clock.now() });
        return reconcile(key, signal);
      },
    });
  });
  return { queues, starts, metrics };
}

function startsIn(starts: Start[], from: number, to: number): Start[] {
  return starts.filter((s) => s.at > from && s.at <= to);
}

describe('queue/ReconcileQueue on one shared ReconcileLimiter', () => {
  it('holds 20 XRDs whose XRs requeue continuously to N starts per second in all after the 10N burst', async () => {
    const N = 5;
    const clock = new ManualClock();
    // Every XR asks to be reconciled again 100 ms after each reconcile: far more than N/s between them.
    const { queues, starts } = queuesOf(20, limiterOf(clock, N), clock, () => Promise.resolve({ requeueAfterMs: 100 }));
    for (const queue of queues) {
      void queue.start();
      for (let i = 0; i < 5; i++) queue.add(`ns/xr-${i}`);
    }
    await settle();
    expect(starts, 'the burst at t=0').to.have.length(10 * N);
    await advance(clock, 70_000);
    const window = startsIn(starts, 10_000, 70_000);
    // 60 s at N/s: a bucket per controller would have allowed 20 times that.
    expect(window).to.have.length(60 * N);
    const perQueue = queues.map((_, i) => window.filter((s) => s.queue === `composite/x${i}.example.org`).length);
    // Round-robin: each XRD gets its twentieth of the rate (15), give or take the turn it is on.
    expect(Math.min(...perQueue)).to.be.at.least(14);
    expect(Math.max(...perQueue)).to.be.at.most(16);
  });

  it("starts another XRD's single XR within a token interval per busy queue, beside a storm of thousands", async () => {
    const N = 10;
    const clock = new ManualClock();
    const { queues, starts } = queuesOf(5, limiterOf(clock, N), clock, () => Promise.resolve({}));
    const [quiet, ...busy] = queues as [ReconcileQueue, ...ReconcileQueue[]];
    for (const queue of queues) void queue.start();
    for (let i = 0; i < 5_000; i++) busy[0]?.add(`storm/xr-${i}`);
    for (const queue of busy.slice(1)) for (let i = 0; i < 500; i++) queue.add(`busy/xr-${i}`);
    await advance(clock, 2_050);
    quiet.add('quiet/xr');
    await advance(clock, 1_000, 10);
    const waitedMs = (starts.find((s) => s.key === 'quiet/xr')?.at ?? Infinity) - 2_050;
    // Up to 100 ms for the next token, then one token (100 ms) for each of the four busy queues waiting ahead of it;
    // behind the storm's 5,000 keys in one line it would be about 500 s.
    expect(waitedMs).to.be.at.most((busy.length + 1) * (1_000 / N));
    // The storm is slowed to its share, not stopped: about one token in four after the burst.
    const stormAfterBurst = startsIn(starts, 0, clock.now()).filter((s) => s.key.startsWith('storm/'));
    expect(stormAfterBurst.length, 'the storm still gets its turns').to.be.within(7, 9);
  });

  it('takes the token when a worker starts: the queue duration is the wait for it, observed once', async () => {
    const clock = new ManualClock();
    const limiter = limiterOf(clock, 1);
    const { queues, starts, metrics } = queuesOf(2, limiter, clock, () => Promise.resolve({}));
    const [hog, waiter] = queues as [ReconcileQueue, ReconcileQueue];
    void hog.start();
    void waiter.start();
    for (let i = 0; i < 10; i++) hog.add(`ns/hog-${i}`);
    waiter.add('ns/xr');
    await settle();
    expect(starts).to.have.length(10);
    await advance(clock, 1_000);
    expect(starts.at(-1)).to.deep.equal({ queue: 'composite/x1.example.org', key: 'ns/xr', at: 1_000 });
    const labels = { name: 'composite/x1.example.org' };
    expect(await histogramCount(metrics.registry, 'workqueue_queue_duration_seconds', labels)).to.equal(1);
    expect(await histogramSum(metrics.registry, 'workqueue_queue_duration_seconds', labels)).to.equal(1);
    expect(await metricValue(metrics.registry, 'workqueue_adds_total', labels)).to.equal(1);
  });

  it('stop takes a waiting queue out of the line: its token goes to the next queue, and it starts nothing more', async () => {
    const clock = new ManualClock();
    const limiter = limiterOf(clock, 1);
    const { queues, starts } = queuesOf(3, limiter, clock, () => Promise.resolve({}));
    const [hog, stopped, next] = queues as [ReconcileQueue, ReconcileQueue, ReconcileQueue];
    for (const queue of queues) void queue.start();
    for (let i = 0; i < 10; i++) hog.add(`ns/hog-${i}`);
    stopped.add('ns/stopped');
    next.add('ns/next');
    await settle();
    expect(limiter.waiting).to.equal(2);
    await stopped.stop(new AbortController().signal);
    expect(limiter.waiting).to.equal(1);
    await advance(clock, 5_000);
    expect(starts.slice(10)).to.deep.equal([{ queue: 'composite/x2.example.org', key: 'ns/next', at: 1_000 }]);
    expect(limiter.waiting).to.equal(0);
    expect(clock.pendingTimers()).to.equal(0);
  });
});
