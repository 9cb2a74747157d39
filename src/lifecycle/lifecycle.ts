/**
 * The one contract of every long-running part of compositor: the manager's runnables, the engine and its function
 * runtime, the controllers, their work queues and event pipelines, and the informers. Constructors only store
 * options; `start` begins the work and `stop` ends it (docs/architecture.md#lifecycle-start-and-stop).
 *
 * @example
 * const controller = new CompositeController(options);
 * await startOrRelease(controller, signal); // caches synced, workers running; a failed start released what it took
 * await controller.stop(AbortSignal.timeout(30_000));
 */
export interface Lifecycle {
  /**
   * Starts watches, timers and workers and resolves once the part can serve (its caches synced); it must not block
   * beyond that. `signal` aborts a start that is waiting. A start that rejects may have taken something already
   * (informer leases, subscriptions): its owner calls `stop`, or starts it through `startOrRelease`. A part that
   * never waits may leave the parameter out.
   */
  start(signal: AbortSignal): Promise<void>;
  /**
   * Stops taking new work and waits for the work in flight until `deadline` aborts; then aborts what still runs
   * (its reconciles' signals) and resolves. Every part below gets the same deadline, so one deadline bounds a whole
   * shutdown. Safe to call more than once, before `start` and after a failed one. A part that stops at once may
   * leave the parameter out.
   */
  stop(deadline: AbortSignal): Promise<void>;
}

/** A part the manager runs: a Lifecycle with a name for the log lines. */
export interface Runnable extends Lifecycle {
  readonly name: string;
}
