import { expect } from 'chai';
import { createMetrics } from '../../../src/metrics/index.js';
import { ManualClock } from '../../../src/base/index.js';
import {
  ReconcileQueue,
  type FairLineOptions,
  type ReconcileQueueOptions,
  type ReconcileResult,
} from '../../../src/queue/index.js';
import { advance, limiterOf, metricValue, settle } from './testing.js';

const NAME = 'composite/xtests.example.org';
const NOISY = Array.from({ length: 5_000 }, (_, i) => `noisy/xr-${i}`);

/** The two orders compared: client-go's FIFO (upstream) and round-robin by namespace (`--fair-queue`). */
const MODES: Record<string, FairLineOptions | undefined> = { fifo: undefined, fair: {} };

interface Run {
  queue: ReconcileQueue;
  clock: ManualClock;
  /** Every reconcile started, with its virtual start time. */
  calls: { key: string; at: number }[];
  metrics: ReturnType<typeof createMetrics>;
}

/** A lone queue with a limiter of its own at `ratePerSecond`, burst ten times that. */
function queueOf(
  { ratePerSecond = 10, ...overrides }: Partial<ReconcileQueueOptions> & { ratePerSecond?: number },
  reconcile?: ReconcileQueueOptions['reconcile'],
): Run {
  const clock = new ManualClock();
  const calls: Run['calls'] = [];
  const metrics = createMetrics({ processMetrics: false });
  const queue = new ReconcileQueue({
    name: NAME,
    metrics,
    workers: 10,
    limiter: limiterOf(clock, ratePerSecond),
    clock,
    reconcile: (key, signal) => {
      calls.push({ key, at: clock.now() });
      return reconcile ? reconcile(key, signal) : Promise.resolve({});
    },
    ...overrides,
  });
  return { queue, clock, calls, metrics };
}

function position(calls: Run['calls'], key: string): number {
  return calls.findIndex((c) => c.key === key);
}

describe('queue/ReconcileQueue fairness (--fair-queue)', () => {
  it('reconciles a quiet namespace key added behind 5,000 noisy ones within the first dozen, where FIFO takes 5,000', async () => {
    const served: Record<string, number> = {};
    for (const [mode, fairness] of Object.entries(MODES)) {
      // No rate limit in the way: this is about the order of the line alone.
      const { queue, calls } = queueOf({ fairness, ratePerSecond: 1e6 });
      void queue.start();
      for (const key of NOISY) queue.add(key);
      queue.add('quiet/xr');
      await settle();
      expect(calls, mode).to.have.length(5_001);
      served[mode] = position(calls, 'quiet/xr');
    }
    // Ten workers took the first ten noisy keys as they were added; then noisy/xr-10 (its namespace was in the
    // round first) and the quiet key.
    expect(served.fair).to.equal(11);
    expect(served.fifo).to.equal(5_000);
  });

  it('gives a quiet namespace the next token of the global bucket, not the 4,901st', async () => {
    const at: Record<string, number | undefined> = {};
    for (const [mode, fairness] of Object.entries(MODES)) {
      const { queue, clock, calls } = queueOf({ fairness, ratePerSecond: 10 });
      void queue.start();
      for (const key of NOISY) queue.add(key);
      await advance(clock, 1_000);
      queue.add('quiet/xr');
      await advance(clock, 60_000);
      at[mode] = calls.find((c) => c.key === 'quiet/xr')?.at;
      // Whatever the order, the bucket's rate holds: a burst of 100, then 10 per second.
      expect(calls.length, mode).to.equal(100 + 610);
    }
    // Burst 100 at 0s, then one token per 100 ms: the quiet key takes the first token earned after it was added.
    expect(at.fair).to.equal(1_100);
    // FIFO: it waits for the 4,890 noisy keys still in line, one per 100 ms (~8 minutes).
    expect(at.fifo).to.equal(undefined);
  });

  it('serves namespaces in proportion to their weights', async () => {
    const weights: Record<string, number> = { prod: 3 };
    const { queue, calls } = queueOf({
      workers: 1,
      ratePerSecond: 1e6,
      fairness: { weightOf: (ns) => weights[ns] ?? 1 },
    });
    for (let i = 0; i < 300; i++) queue.add(`prod/xr-${i}`);
    for (let i = 0; i < 300; i++) queue.add(`dev/xr-${i}`);
    void queue.start();
    await settle();
    const first = calls.slice(0, 200).map((c) => c.key.split('/')[0]);
    expect(first.filter((ns) => ns === 'prod')).to.have.length(150);
    expect(first.filter((ns) => ns === 'dev')).to.have.length(50);
    expect(calls).to.have.length(600);
  });

  it('keeps dedupe, one worker per key and the dirty re-run', async () => {
    const pending = new Map<string, (r: ReconcileResult) => void>();
    const { queue, calls, metrics } = queueOf(
      { workers: 2, ratePerSecond: 1e6, fairness: {} },
      (key) => new Promise((resolve) => pending.set(key, resolve)),
    );
    for (let i = 0; i < 3; i++) {
      queue.add('a/1');
      queue.add('a/2');
      queue.add('b/1');
    }
    void queue.start();
    await settle();
    // Nine adds, three keys: three adds counted; namespace b's turn comes before a's second key.
    expect(calls.map((c) => c.key)).to.deep.equal(['a/1', 'b/1']);
    expect(await metricValue(metrics.registry, 'workqueue_adds_total', { name: NAME })).to.equal(3);
    // a/1 changes while it reconciles: dirty (one add), not handed to the free worker, run once more after it.
    queue.add('a/1');
    queue.add('a/1');
    pending.get('b/1')?.({});
    await settle();
    expect(calls.map((c) => c.key)).to.deep.equal(['a/1', 'b/1', 'a/2']);
    pending.get('a/1')?.({});
    await settle();
    expect(calls.map((c) => c.key)).to.deep.equal(['a/1', 'b/1', 'a/2', 'a/1']);
    expect(await metricValue(metrics.registry, 'workqueue_adds_total', { name: NAME })).to.equal(4);
    pending.get('a/1')?.({});
    pending.get('a/2')?.({});
    await settle();
    expect(calls).to.have.length(4);
    expect(queue.stats()).to.deep.equal({ depth: 0, processing: 0, waiting: 0 });
  });

  it('still delays requeues and backs failures off', async () => {
    let failures = 2;
    const { queue, clock, calls } = queueOf({ fairness: {} }, (key) => {
      if (key === 'a/failing' && failures-- > 0) return Promise.reject(new Error('boom'));
      return Promise.resolve(key === 'b/polled' ? { requeueAfterMs: 5_000 } : {});
    });
    void queue.start();
    queue.add('a/failing');
    queue.add('b/polled');
    await advance(clock, 11_000);
    const times = (key: string): number[] => calls.filter((c) => c.key === key).map((c) => c.at);
    expect(times('a/failing')).to.deep.equal([0, 1_000, 3_000]);
    expect(times('b/polled')).to.deep.equal([0, 5_000, 10_000]);
  });

  it('stop drops the line of every namespace and disarms the token timer', async () => {
    const { queue, clock, calls } = queueOf({ fairness: {}, ratePerSecond: 1, workers: 100 });
    void queue.start();
    for (let i = 0; i < 20; i++) queue.add(`ns-${i % 3}/xr-${i}`);
    await settle();
    expect(calls).to.have.length(10);
    expect(clock.pendingTimers()).to.equal(1);
    await queue.stop(new AbortController().signal);
    expect(queue.shutdownResult()).to.deep.equal({ drained: true, abandoned: [] });
    expect(clock.pendingTimers()).to.equal(0);
    expect(queue.stats().depth).to.equal(0);
  });
});
