import { DEFAULT_BACKOFF, systemClock, type Backoff, type Clock } from '../base/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import { queueMetrics, type Metrics, type QueueMetrics, type QueueReadings } from '../metrics/index.js';
import { DedupingQueue } from './dedupingQueue.js';
import { DelayedKeys } from './delayedKeys.js';
import { FairLine, type FairLineOptions } from './fairLine.js';
import { ItemBackoff } from './itemBackoff.js';
import { outcomeOfError, outcomeOfResult, type ReconcileOutcome, type Reconciler } from './outcome.js';
import { FifoLine } from './keyLine.js';
import type { ReconcileLimiter, TokenWaiter } from './reconcileLimiter.js';

export interface ReconcileQueueOptions {
  /** The controller name; the `name`/`controller` label of every metric. */
  name: string;
  reconcile: Reconciler;
  metrics: Metrics;
  /** `--max-concurrent-reconciles`: reconciles in flight at once. */
  workers: number;
  /**
   * `--max-reconcile-rate`: the process's one reconcile limiter, shared by every queue so the rate is global. A
   * token is taken when a worker is about to start a key.
   */
  limiter: ReconcileLimiter;
  /**
   * `--fair-queue`: hand out ready keys round-robin by namespace, `weightOf(namespace)` turns each, so one busy
   * namespace cannot starve the others. Absent: one FIFO line, as client-go's.
   */
  fairness?: FairLineOptions;
  /** Errors for which the key is requeued at once, without backoff or onError (API conflicts). */
  isConflict?: (error: unknown) => boolean;
  /** Told about every failed reconcile except conflicts; for logging and events. */
  onError?: (key: string, error: unknown) => void;
  clock?: Clock;
  backoff?: Backoff;
}

export interface ShutdownResult {
  /** True when every in-flight reconcile finished before the deadline. */
  drained: boolean;
  /** Keys still reconciling at the deadline; their AbortSignals have been aborted. */
  abandoned: string[];
}

interface InFlight {
  readonly startedAt: number;
  readonly abort: AbortController;
}

/**
 * The controller's work queue and worker pool, with client-go semantics: a key is reconciled by one worker at a
 * time, adds coalesce while the key waits, an add during its reconcile makes it run once more afterwards,
 * failures back off per key, and every reconcile, requeues included, passes the process's one reconcile limiter,
 * which delays and never drops. The limiter is asked when a key is handed to a worker, not when it is added, so
 * a key passes it once and it serves keys in the line's order: with `fairness`, a quiet namespace's key takes this
 * queue's next token after at most one turn of each other busy namespace, instead of queueing behind every token
 * a burst reserved before it. Nothing runs until `start`; adds made before it wait in line.
 *
 * @example
 * const limiter = new ReconcileLimiter(reconcileLimits(10).reconciles); // one per process
 * const queue = new ReconcileQueue({ name: 'composite/xbuckets.example.org', reconcile, metrics, workers: 10,
 *   limiter, isConflict: (e) => e instanceof ConflictError });
 * await queue.start();
 * queue.add('default/my-bucket');
 * await queue.stop(AbortSignal.timeout(30_000));
 */
export class ReconcileQueue implements Lifecycle {
  private readonly clock: Clock;
  private readonly line: DedupingQueue;
  private readonly delayed: DelayedKeys;
  private readonly backoff: ItemBackoff;
  private readonly addedAt = new Map<string, number>();
  private readonly inFlight = new Map<string, InFlight>();
  private readonly metrics: QueueMetrics;
  private untrack: (() => void) | undefined;
  /** This queue as the limiter sees it; one object, so the limiter's line holds the queue at most once. */
  private readonly waiter: TokenWaiter = { grant: () => this.grant() };
  /** In the limiter's line: it calls `grant` when this queue's turn comes. */
  private waitingForToken = false;
  private started = false;
  private stopped = false;
  private drained: (() => void) | undefined;
  private stopping: Promise<ShutdownResult> | undefined;
  private result: ShutdownResult | undefined;

  constructor(private readonly options: ReconcileQueueOptions) {
    if (!(options.workers >= 1)) throw new RangeError(`workers must be at least 1, got ${options.workers}`);
    this.clock = options.clock ?? systemClock;
    this.line = new DedupingQueue(options.fairness ? new FairLine(options.fairness) : new FifoLine());
    this.delayed = new DelayedKeys(this.clock, (key) => {
      this.add(key);
    });
    this.backoff = new ItemBackoff(options.backoff ?? DEFAULT_BACKOFF);
    // Binding creates the series at 0 (so dashboards see them before the first event); it starts nothing.
    this.metrics = queueMetrics(options.metrics, options.name);
  }

  /** Starts the workers and the metric readings; resolves at once (a queue has no cache to wait for). Idempotent. */
  start(): Promise<void> {
    if (this.started || this.stopped) return Promise.resolve();
    this.started = true;
    this.untrack = this.metrics.track(() => this.readings());
    this.metrics.setMaxConcurrent(this.options.workers);
    this.pump();
    return Promise.resolve();
  }

  /** Asks for `key` to be reconciled. Coalesces with a pending request for the same key. */
  add(key: string): void {
    if (this.stopped) return;
    if (!this.line.add(key)) return;
    this.metrics.adds.inc();
    if (!this.addedAt.has(key)) this.addedAt.set(key, this.clock.now());
    this.pump();
  }

  /** Adds `key` after `delayMs`; if it is already waiting, the earlier time wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    this.metrics.retries.inc();
    this.delayed.schedule(key, this.clock.now() + delayMs);
  }

  /** Moves `key`, if it waits for a time, to now: it is added once, not again when its time comes. */
  expedite(key: string): void {
    if (this.stopped || !this.delayed.has(key)) return;
    this.delayed.schedule(key, this.clock.now());
  }

  /** Adds `key` after its next backoff delay (1s doubling to 60s by default). */
  addRateLimited(key: string): void {
    if (this.stopped) return;
    this.addAfter(key, this.backoff.when(key));
  }

  /** Ends `key`'s backoff: its next failure waits the base delay again. */
  forget(key: string): void {
    this.backoff.forget(key);
  }

  /** Failures counted for `key` since it last succeeded. */
  numRequeues(key: string): number {
    return this.backoff.numRequeues(key);
  }

  /** Keys in line, keys reconciling, keys waiting for a time. Informational: they change under the caller. */
  stats(): { depth: number; processing: number; waiting: number } {
    return { depth: this.line.length, processing: this.inFlight.size, waiting: this.delayed.size };
  }

  /**
   * Stops taking work: later adds are ignored and keys in line or waiting are dropped (the next leader relists).
   * Resolves when in-flight reconciles finish or when `deadline` aborts, whichever comes first; at the deadline their
   * AbortSignals are aborted. Calling it again waits for the first call; `shutdownResult` tells how it ended.
   */
  async stop(deadline: AbortSignal): Promise<void> {
    this.stopping ??= this.drain(deadline);
    this.result = await this.stopping;
  }

  /** Once `stop` resolved: whether the reconciles in flight finished, and the keys abandoned at the deadline. */
  shutdownResult(): ShutdownResult | undefined {
    return this.result;
  }

  private async drain(deadline: AbortSignal): Promise<ShutdownResult> {
    this.stopped = true;
    this.line.clear();
    this.delayed.clear();
    this.options.limiter.cancel(this.waiter);
    this.waitingForToken = false;
    let onDeadline: (() => void) | undefined;
    const finished = await new Promise<boolean>((resolve) => {
      if (this.inFlight.size === 0) {
        resolve(true);
        return;
      }
      this.drained = () => {
        resolve(true);
      };
      onDeadline = () => {
        resolve(false);
      };
      if (deadline.aborted) onDeadline();
      else deadline.addEventListener('abort', onDeadline, { once: true });
    });
    if (onDeadline) deadline.removeEventListener('abort', onDeadline);
    this.drained = undefined;
    const abandoned = [...this.inFlight.keys()];
    for (const { abort } of this.inFlight.values()) abort.abort(new Error('work queue shut down'));
    this.untrack?.();
    return { drained: finished, abandoned };
  }

  /** Hands keys to free workers while the limiter gives tokens; when it has none, waits in its line. */
  private pump(): void {
    while (this.canStart()) {
      if (this.waitingForToken) return;
      // Waiting from before the ask: a limiter that earns a token while this queue joins its line grants it from
      // inside take(), and grant() clears the flag. Set after a refused take(), it would mark a queue already
      // served as waiting, outside the limiter's line, and no key of it would ever start again.
      this.waitingForToken = true;
      if (!this.options.limiter.take(this.waiter)) return;
      this.waitingForToken = false;
      this.startNext();
    }
  }

  /** The limiter's turn came: start one key, then ask again (at the back of its line) if more can start. */
  private grant(): boolean {
    this.waitingForToken = false;
    if (!this.canStart()) return false;
    this.startNext();
    this.pump();
    return true;
  }

  private canStart(): boolean {
    return this.started && !this.stopped && this.inFlight.size < this.options.workers && this.line.length > 0;
  }

  private startNext(): void {
    const key = this.line.get();
    if (key !== undefined) void this.run(key);
  }

  private async run(key: string): Promise<void> {
    const startedAt = this.clock.now();
    const queuedAt = this.addedAt.get(key) ?? startedAt;
    this.addedAt.delete(key);
    this.metrics.queueDuration.observe((startedAt - queuedAt) / 1000);
    const work: InFlight = { startedAt, abort: new AbortController() };
    this.inFlight.set(key, work);
    this.finish(key, work, await this.attempt(key, work.abort.signal));
  }

  private async attempt(key: string, signal: AbortSignal): Promise<ReconcileOutcome> {
    try {
      return outcomeOfResult(await this.options.reconcile(key, signal));
    } catch (error) {
      return outcomeOfError(error, this.options.isConflict);
    }
  }

  /** The one place a reconcile's outcome becomes queue actions and a metric label. */
  private finish(key: string, work: InFlight, outcome: ReconcileOutcome): void {
    const seconds = (this.clock.now() - work.startedAt) / 1000;
    this.metrics.workDuration.observe(seconds);
    this.metrics.reconcileTime.observe(seconds);
    this.metrics.reconcileTotal[outcome.result].inc();
    if (outcome.result === 'error') this.metrics.reconcileErrors.inc();
    switch (outcome.result) {
      case 'success':
        this.forget(key);
        break;
      case 'requeue_after':
        this.forget(key);
        this.addAfter(key, outcome.requeueAfterMs);
        void outcome.expediteWhen?.then(
          () => {
            this.expedite(key);
          },
          () => undefined,
        );
        break;
      case 'requeue':
        this.add(key);
        break;
      case 'error':
        this.addRateLimited(key);
        this.report(key, outcome.error);
        break;
    }
    this.inFlight.delete(key);
    this.line.done(key);
    if (this.stopped) {
      if (this.inFlight.size === 0) this.drained?.();
      return;
    }
    this.pump();
  }

  private report(key: string, error: unknown): void {
    try {
      this.options.onError?.(key, error);
    } catch {
      // A throwing error hook must not leave the key marked as processing forever; there is nowhere else to say it.
    }
  }

  private readings(): QueueReadings {
    const now = this.clock.now();
    let unfinishedMs = 0;
    let longestMs = 0;
    for (const { startedAt } of this.inFlight.values()) {
      unfinishedMs += now - startedAt;
      longestMs = Math.max(longestMs, now - startedAt);
    }
    return {
      depth: this.line.length,
      unfinishedWorkSeconds: unfinishedMs / 1000,
      longestRunningProcessorSeconds: longestMs / 1000,
      activeWorkers: this.inFlight.size,
    };
  }
}
