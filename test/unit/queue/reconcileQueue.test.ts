import { expect } from 'chai';
import { createMetrics, type Metrics } from '../../../src/metrics/index.js';
import { ManualClock } from '../../../src/base/index.js';
import { deadlineAfter } from '../../../src/lifecycle/index.js';
import {
  ReconcileLimiter,
  ReconcileQueue,
  type FairLineOptions,
  type ReconcileQueueOptions,
  type ReconcileResult,
} from '../../../src/queue/index.js';
import { advance, histogramCount, limiterOf, metricValue, settle } from './testing.js';

const NAME = 'composite/xtests.example.org';

class ConflictError extends Error {}

/** A reconcile the test finishes by hand, recording every call with its virtual start time. */
class ManualReconciler {
  readonly calls: { key: string; at: number }[] = [];
  readonly pending = new Map<string, { resolve: (r: ReconcileResult) => void; reject: (e: unknown) => void }>();
  readonly signals: AbortSignal[] = [];
  active = 0;
  maxActivePerKey = 0;
  private readonly activeKeys = new Map<string, number>();

  constructor(private readonly clock: ManualClock) {}

  readonly reconcile = (key: string, signal: AbortSignal): Promise<ReconcileResult> => {
    this.calls.push({ key, at: this.clock.now() });
    this.signals.push(signal);
    this.active += 1;
    const perKey = (this.activeKeys.get(key) ?? 0) + 1;
    this.activeKeys.set(key, perKey);
    this.maxActivePerKey = Math.max(this.maxActivePerKey, perKey);
    return new Promise<ReconcileResult>((resolve, reject) => {
      const end = (): void => {
        this.active -= 1;
        this.activeKeys.set(key, (this.activeKeys.get(key) ?? 1) - 1);
        this.pending.delete(key);
      };
      this.pending.set(key, {
        resolve: (r) => {
          end();
          resolve(r);
        },
        reject: (e) => {
          end();
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      });
    });
  };

  finish(key: string, result: ReconcileResult = {}): void {
    const p = this.pending.get(key);
    if (p === undefined) throw new Error(`${key} is not reconciling`);
    p.resolve(result);
  }

  fail(key: string, error: unknown = new Error('boom')): void {
    const p = this.pending.get(key);
    if (p === undefined) throw new Error(`${key} is not reconciling`);
    p.reject(error);
  }

  keys(): string[] {
    return this.calls.map((c) => c.key);
  }
}

interface Harness {
  clock: ManualClock;
  metrics: Metrics;
  queue: ReconcileQueue;
  errors: string[];
}

/** Queue options, and the rate of a limiter of the queue's own (a lone queue stands for the whole process). */
type HarnessOverrides = Partial<ReconcileQueueOptions> & { ratePerSecond?: number };

function baseHarness(
  clock: ManualClock,
  reconcile: ReconcileQueueOptions['reconcile'],
  { ratePerSecond = 10, ...overrides }: HarnessOverrides = {},
): Harness {
  const metrics = createMetrics({ processMetrics: false });
  const errors: string[] = [];
  const queue = new ReconcileQueue({
    name: NAME,
    reconcile,
    metrics,
    workers: 2,
    limiter: limiterOf(clock, ratePerSecond),
    isConflict: (e) => e instanceof ConflictError,
    onError: (key) => errors.push(key),
    clock,
    ...overrides,
  });
  return { clock, metrics, queue, errors };
}

// Every client-go semantic holds in both orders: FIFO, and round-robin by namespace (--fair-queue).
const MODES: Record<string, FairLineOptions | undefined> = { fifo: undefined, fair: {} };

for (const [mode, fairness] of Object.entries(MODES)) {
  describe(`queue/ReconcileQueue (${mode})`, () => {
    const harness = (
      clock: ManualClock,
      reconcile: ReconcileQueueOptions['reconcile'],
      overrides: HarnessOverrides = {},
    ): Harness => baseHarness(clock, reconcile, { fairness, ...overrides });

    it('coalesces adds of a waiting key into one reconcile, and counts one add', async () => {
      const clock = new ManualClock();
      const r = new ManualReconciler(clock);
      const { queue, metrics } = harness(clock, r.reconcile, {});
      for (let i = 0; i < 5; i++) queue.add('ns/a');
      queue.add('ns/b');
      void queue.start();
      await settle();
      expect(r.keys()).to.deep.equal(['ns/a', 'ns/b']);
      expect(await metricValue(metrics.registry, 'workqueue_adds_total', { name: NAME })).to.equal(2);
      // Every result series exists from the start, at 0, so rate() queries work before the first failure.
      const labels = { controller: NAME, result: 'requeue_after' };
      expect(await metricValue(metrics.registry, 'controller_runtime_reconcile_total', labels)).to.equal(0);
    });

    it('never reconciles one key twice at once, and an add during a reconcile runs it exactly once more', async () => {
      const clock = new ManualClock();
      const r = new ManualReconciler(clock);
      const { queue } = harness(clock, r.reconcile, { workers: 4 });
      void queue.start();
      queue.add('ns/a');
      await settle();
      queue.add('ns/a');
      queue.add('ns/a');
      queue.add('ns/a');
      await settle();
      expect(r.calls).to.have.length(1);
      r.finish('ns/a');
      await settle();
      expect(r.calls).to.have.length(2);
      r.finish('ns/a');
      await settle();
      expect(r.calls).to.have.length(2);
      expect(r.maxActivePerKey).to.equal(1);
    });

    it('runs at most `workers` reconciles at once, in the order keys were added', async () => {
      const clock = new ManualClock();
      const r = new ManualReconciler(clock);
      const { queue } = harness(clock, r.reconcile, { workers: 2 });
      void queue.start();
      for (const k of ['a', 'b', 'c', 'd']) queue.add(k);
      await settle();
      expect(r.keys()).to.deep.equal(['a', 'b']);
      r.finish('b');
      await settle();
      expect(r.keys()).to.deep.equal(['a', 'b', 'c']);
      expect(r.active).to.equal(2);
    });

    it('backs a failing key off 1s, 2s, 4s ... and a success resets it', async () => {
      const clock = new ManualClock();
      const attempts: number[] = [];
      let failing = true;
      const { queue, errors, metrics } = harness(clock, () => {
        attempts.push(clock.now());
        return failing ? Promise.reject(new Error('boom')) : Promise.resolve({});
      });
      void queue.start();
      queue.add('ns/a');
      await advance(clock, 16_000);
      expect(attempts).to.deep.equal([0, 1_000, 3_000, 7_000, 15_000]);
      expect(queue.numRequeues('ns/a')).to.equal(5);
      failing = false;
      await advance(clock, 16_000);
      expect(attempts).to.have.length(6);
      expect(queue.numRequeues('ns/a')).to.equal(0);
      failing = true;
      queue.add('ns/a');
      await advance(clock, 1_000);
      // The success at 31s reset the backoff: a new failure waits the base 1s again, not 32s.
      expect(attempts.slice(5)).to.deep.equal([31_000, 32_000, 33_000]);
      expect(errors).to.have.length(7);
      expect(await metricValue(metrics.registry, 'controller_runtime_reconcile_total', { result: 'error' })).to.equal(
        7,
      );
      expect(await metricValue(metrics.registry, 'controller_runtime_reconcile_total', { result: 'success' })).to.equal(
        1,
      );
      expect(await metricValue(metrics.registry, 'workqueue_retries_total', { name: NAME })).to.equal(7);
    });

    it('caps the backoff at 60s', async () => {
      const clock = new ManualClock();
      const attempts: number[] = [];
      const { queue } = harness(clock, () => {
        attempts.push(clock.now());
        return Promise.reject(new Error('boom'));
      });
      void queue.start();
      queue.add('ns/a');
      await advance(clock, 400_000, 1_000);
      const gaps = attempts.slice(1).map((t, i) => t - (attempts[i] ?? 0));
      expect(gaps).to.deep.equal([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000, 60_000]);
    });

    it('requeues a conflict at once, without backoff or an error report', async () => {
      const clock = new ManualClock();
      const r = new ManualReconciler(clock);
      const { queue, errors, metrics } = harness(clock, r.reconcile, {});
      void queue.start();
      queue.add('ns/a');
      await settle();
      r.fail('ns/a', new ConflictError('stale'));
      await settle();
      expect(r.calls.map((c) => c.at)).to.deep.equal([0, 0]);
      expect(errors).to.deep.equal([]);
      expect(queue.numRequeues('ns/a')).to.equal(0);
      expect(await metricValue(metrics.registry, 'controller_runtime_reconcile_total', { result: 'requeue' })).to.equal(
        1,
      );
    });

    it('honours requeueAfterMs, and the earliest of several delayed adds wins', async () => {
      const clock = new ManualClock();
      const r = new ManualReconciler(clock);
      const { queue, metrics } = harness(clock, r.reconcile, {});
      void queue.start();
      queue.add('ns/a');
      await settle();
      r.finish('ns/a', { requeueAfterMs: 5_000 });
      await settle();
      queue.addAfter('ns/b', 10_000);
      queue.addAfter('ns/b', 2_000);
      queue.addAfter('ns/b', 8_000);
      await advance(clock, 6_000);
      expect(r.calls).to.deep.equal([
        { key: 'ns/a', at: 0 },
        { key: 'ns/b', at: 2_000 },
        { key: 'ns/a', at: 5_000 },
      ]);
      r.finish('ns/b');
      r.finish('ns/a');
      await advance(clock, 10_000);
      expect(r.calls).to.have.length(3);
      expect(
        await metricValue(metrics.registry, 'controller_runtime_reconcile_total', { result: 'requeue_after' }),
      ).to.equal(1);
    });

    /** Reconciles ns/a once and finishes it with a 250 ms requeue that `expedite()` may bring forward. */
    async function waitingKey(): Promise<{ clock: ManualClock; r: ManualReconciler; expedite: () => void }> {
      const clock = new ManualClock();
      const r = new ManualReconciler(clock);
      const { queue } = harness(clock, r.reconcile, {});
      void queue.start();
      queue.add('ns/a');
      await settle();
      let expedite: () => void = () => undefined;
      r.finish('ns/a', { requeueAfterMs: 250, expediteWhen: new Promise<void>((resolve) => (expedite = resolve)) });
      return { clock, r, expedite };
    }

    it('reconciles a key waiting after requeueAfterMs once, as soon as its expediteWhen settles', async () => {
      const { clock, r, expedite } = await waitingKey();
      await advance(clock, 40, 10);
      expect(
        r.calls.map((c) => c.at),
        'waiting',
      ).to.deep.equal([0]);
      expedite();
      await advance(clock, 1, 1);
      expect(
        r.calls.map((c) => c.at),
        'expedited',
      ).to.deep.equal([0, 40]);
      r.finish('ns/a');
      await advance(clock, 1_000, 10);
      expect(r.calls, 'its 250 ms turn does not add it again').to.have.length(2);
    });

    it('never reconciles on expediteWhen alone: a settled key not waiting any more is left alone', async () => {
      const { clock, r, expedite } = await waitingKey();
      await advance(clock, 300, 10);
      r.finish('ns/a');
      await settle();
      expedite();
      await advance(clock, 1_000, 10);
      expect(r.calls.map((c) => c.at)).to.deep.equal([0, 250]);
    });

    it('admits at most 10N keys at once and N per second after, over a simulated minute, delaying not dropping', async () => {
      const clock = new ManualClock();
      const started: number[] = [];
      const { queue, metrics } = harness(
        clock,
        () => {
          started.push(clock.now());
          return Promise.resolve({});
        },
        { workers: 1_000, ratePerSecond: 10 },
      );
      void queue.start();
      for (let i = 0; i < 1_000; i++) queue.add(`ns/k${i}`);
      await settle();
      expect(started).to.have.length(100);
      await advance(clock, 60_000);
      // 100 from the burst, then one every 100ms: at 0.1s, 0.2s ... 60.0s.
      expect(started).to.have.length(700);
      expect(started.filter((t) => t > 0 && t <= 1_000)).to.have.length(10);
      await advance(clock, 30_000, 1_000);
      expect(started).to.have.length(1_000);
      expect(await metricValue(metrics.registry, 'workqueue_adds_total', { name: NAME })).to.equal(1_000);
    });

    it('rate-limits requeues too', async () => {
      const clock = new ManualClock();
      const started: number[] = [];
      const { queue } = harness(
        clock,
        () => {
          started.push(clock.now());
          return Promise.resolve({ requeueAfterMs: 1_000 });
        },
        { workers: 1_000, ratePerSecond: 1 },
      );
      void queue.start();
      for (let i = 0; i < 10; i++) queue.add(`ns/k${i}`);
      await settle();
      expect(started).to.have.length(10);
      // All ten ask to come back after 1s, but the bucket is empty: they come back one per second.
      await advance(clock, 5_000);
      expect(started.filter((t) => t > 0)).to.deep.equal([1_000, 2_000, 3_000, 4_000, 5_000]);
    });

    it('reports depth, queue and work durations, and in-flight work at scrape time', async () => {
      const clock = new ManualClock();
      const r = new ManualReconciler(clock);
      const { queue, metrics } = harness(clock, r.reconcile, { workers: 1 });
      queue.add('ns/a');
      queue.add('ns/b');
      queue.add('ns/c');
      expect(await metricValue(metrics.registry, 'workqueue_depth', { name: NAME })).to.equal(undefined);
      clock.advance(2_000);
      void queue.start();
      await settle();
      clock.advance(3_000);
      const reg = metrics.registry;
      expect(await metricValue(reg, 'workqueue_depth', { name: NAME })).to.equal(2);
      expect(await metricValue(reg, 'workqueue_unfinished_work_seconds', { name: NAME })).to.equal(3);
      expect(await metricValue(reg, 'workqueue_longest_running_processor_seconds', { name: NAME })).to.equal(3);
      r.finish('ns/a');
      await settle();
      expect(await histogramCount(reg, 'workqueue_queue_duration_seconds', { name: NAME })).to.equal(2);
      expect(await histogramCount(reg, 'workqueue_work_duration_seconds', { name: NAME })).to.equal(1);
      expect(await histogramCount(reg, 'controller_runtime_reconcile_time_seconds', { controller: NAME })).to.equal(1);
      expect(await metricValue(reg, 'workqueue_depth', { name: NAME })).to.equal(1);
    });

    it('stop stops taking work and resolves when in-flight reconciles finish', async () => {
      const clock = new ManualClock();
      const r = new ManualReconciler(clock);
      const { queue } = harness(clock, r.reconcile, { workers: 1 });
      void queue.start();
      queue.add('ns/a');
      queue.add('ns/b');
      queue.addAfter('ns/c', 1_000);
      await settle();
      let result: unknown;
      const done = queue.stop(new AbortController().signal).then(() => (result = queue.shutdownResult()));
      queue.add('ns/d');
      await settle();
      expect(result).to.equal(undefined);
      r.finish('ns/a', { requeueAfterMs: 10 });
      await done;
      expect(result).to.deep.equal({ drained: true, abandoned: [] });
      await advance(clock, 5_000);
      expect(r.keys()).to.deep.equal(['ns/a']);
      expect(clock.pendingTimers()).to.equal(0);
    });

    it('stop gives up when the deadline aborts and aborts what is still running', async () => {
      const clock = new ManualClock();
      const r = new ManualReconciler(clock);
      const { queue, metrics } = harness(clock, r.reconcile, { workers: 2 });
      void queue.start();
      queue.add('ns/a');
      queue.add('ns/b');
      await settle();
      r.finish('ns/b');
      await settle();
      const done = queue.stop(deadlineAfter(30_000, clock));
      await advance(clock, 29_000, 1_000);
      expect(r.signals[0]?.aborted).to.be.false;
      clock.advance(1_000);
      await done;
      expect(queue.shutdownResult()).to.deep.equal({ drained: false, abandoned: ['ns/a'] });
      expect(r.signals[0]?.aborted).to.be.true;
      expect(await metricValue(metrics.registry, 'workqueue_depth', { name: NAME })).to.equal(undefined);
    });

    it('refuses a pool without workers or a rate limit without rate', () => {
      const metrics = createMetrics({ processMetrics: false });
      const limiter = limiterOf(new ManualClock(), 10);
      const base = { name: NAME, metrics, limiter, reconcile: () => Promise.resolve({}) };
      expect(() => new ReconcileQueue({ ...base, workers: 0 })).to.throw(RangeError);
      expect(() => limiterOf(new ManualClock(), 0)).to.throw(RangeError);
    });

    it('stop with nothing in flight resolves at once, and repeated calls share the result', async () => {
      const { queue } = harness(new ManualClock(), () => Promise.resolve({}));
      void queue.start();
      await Promise.all([queue.stop(new AbortController().signal), queue.stop(AbortSignal.abort())]);
      expect(queue.shutdownResult()).to.deep.equal({ drained: true, abandoned: [] });
    });
  });
}

describe('queue/ReconcileQueue and a token earned while it asks', () => {
  it('keeps serving keys when the limiter grants its token before take() returns', async () => {
    // The limiter's first look finds half a token; by its second look (serving the line this queue just joined)
    // the clock has moved on and the token is there, so the queue is granted before take() returns false. It used
    // to mark itself as waiting anyway, outside the limiter's line, and never started a key again.
    const manual = new ManualClock();
    let ticks = 0;
    const ticking = {
      now: () => manual.now() + 0.5 * ticks++,
      setTimer: (callback: () => void, delayMs: number) => manual.setTimer(callback, delayMs),
      setInterval: (callback: () => void, intervalMs: number) => manual.setInterval(callback, intervalMs),
      sleep: (ms: number, signal?: AbortSignal) => manual.sleep(ms, signal),
    };
    const limiter = new ReconcileLimiter({ perSecond: 1_000, burst: 1 }, ticking);
    const r = new ManualReconciler(manual);
    const queue = new ReconcileQueue({
      name: NAME,
      reconcile: r.reconcile,
      metrics: createMetrics({ processMetrics: false }),
      workers: 2,
      limiter,
      clock: manual,
    });
    void queue.start();
    queue.add('ns/a');
    queue.add('ns/b');
    await settle();
    expect(r.keys(), 'b was granted from inside its own take()').to.deep.equal(['ns/a', 'ns/b']);
    r.finish('ns/a');
    r.finish('ns/b');
    await settle();
    queue.add('ns/c');
    await advance(manual, 10);
    expect(r.keys()).to.deep.equal(['ns/a', 'ns/b', 'ns/c']);
    r.finish('ns/c');
  });
});
