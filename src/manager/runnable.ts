/**
 * Something the manager starts once the API server is reachable and stops on shutdown: a controller, an informer
 * set, a leader elector. Constructors only store options; all work begins in start().
 */
export interface Runnable {
  readonly name: string;
  /** Starts work and resolves once its caches are synced. Must not block beyond that. */
  start(signal: AbortSignal): Promise<void>;
  /** Stops taking new work and waits for in-flight work, giving up when `deadline` aborts. */
  stop(deadline: AbortSignal): Promise<void>;
}
