// metrics: the prom-client registry and every metric compositor exports, defined in this one place so names and
// labels stay controller-runtime compatible. Each manager gets its own registry, which keeps tests isolated.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { bufferedCounter, type BufferedCounter, type CounterHandle } from './bufferedCounter.js';

export type { BufferedCounter, CounterHandle } from './bufferedCounter.js';

export interface Metrics {
  registry: Registry;
  /** rest_client_requests_total{code,method}: every API server request, as client-go counts them. */
  restClientRequests: Counter<'code' | 'method'>;
  workqueue: WorkqueueMetrics;
  reconcile: ReconcileMetrics;
  circuitBreaker: CircuitBreakerMetrics;
  /** function_run_seconds{function,result}: one RunFunction call (built in or over gRPC), success or error. */
  functionRun: Histogram<'function' | 'result'>;
  engine: EngineMetrics;
  /**
   * external_calls_total{provider,operation}: every call a managed-resource reconciler makes to an external system
   * (connect, observe, create, update, delete, disconnect), successful or not.
   */
  externalCalls: Counter<'provider' | 'operation'>;
  composite: CompositeMetrics;
  /**
   * compositor_idle_heap_compactions_total{reason}: heap compactions run once start-up is done, and while the process
   * is idle or settled.
   */
  idleHeapCompactions: Counter<'reason'>;
  /**
   * compositor_events_suppressed_total{budget,reason}: Normal Event occurrences not written because a budget was
   * spent, by budget (`object`, `process`) and Event reason. Warnings are never suppressed.
   */
  eventsSuppressed: Counter<'budget' | 'reason'>;
  /**
   * function_run_function_response_cache_{hits,misses,writes,deletes}_total and _bytes_{written,deleted}_total
   * {function_name}: the response cache, under Crossplane's names.
   */
  functionResponseCache: FunctionResponseCacheMetrics;
}

/** The response cache's readings, by function (functions/cache.ts reports through it). */
export interface FunctionResponseCacheMetrics {
  hit(functionName: string): void;
  miss(functionName: string): void;
  written(functionName: string, bytes: number): void;
  deleted(functionName: string, bytes: number): void;
}

/** What a composite controller reports about its XRs at scrape time. */
export interface CompositeReadings {
  unready: number;
  unsynced: number;
  oldestStuckSeconds: number;
}

/**
 * compositor_composite_* gauges, one series per composite controller (bounded by the number of XRDs, never per
 * XR): how many XRs are not Ready or not Synced, and for how long the oldest of them has been stuck.
 */
export interface CompositeMetrics {
  /** Makes the gauges show `read()` for `controller` at every scrape; the returned function removes its series. */
  track(controller: string, read: () => CompositeReadings): () => void;
}

/** The operations external_calls_total counts; a provider's series are created at 0 for each. */
export const EXTERNAL_OPERATIONS = ['connect', 'observe', 'create', 'update', 'delete', 'disconnect'] as const;
export type ExternalOperation = (typeof EXTERNAL_OPERATIONS)[number];

/** Crossplane's engine_* family: controllers and watches started and stopped over the process's life. */
export interface EngineMetrics {
  controllersStarted: Counter<'controller'>;
  controllersStopped: Counter<'controller'>;
  /** `type` is the watched kind, as "Kind.group" ("ConfigMap" for the core group). */
  watchesStarted: Counter<'type'>;
  watchesStopped: Counter<'type'>;
}

/** What a queue reports about itself at scrape time. */
export interface QueueReadings {
  depth: number;
  unfinishedWorkSeconds: number;
  longestRunningProcessorSeconds: number;
  /** Reconciles running right now (controller_runtime_active_workers). */
  activeWorkers: number;
}

/** controller-runtime's workqueue_* family, labelled by queue `name` (compositor names a queue after its controller). */
export interface WorkqueueMetrics {
  adds: BufferedCounter<'name'>;
  retries: BufferedCounter<'name'>;
  queueDuration: Histogram<'name'>;
  workDuration: Histogram<'name'>;
  depth: Gauge<'name'>;
  unfinishedWork: Gauge<'name'>;
  longestRunningProcessor: Gauge<'name'>;
  /** Makes the three gauges show `read()` for queue `name` at every scrape; the returned function removes them. */
  track(name: string, read: () => QueueReadings): () => void;
}

export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';
const RECONCILE_RESULTS: readonly ReconcileResult[] = ['success', 'error', 'requeue', 'requeue_after'];

export interface ReconcileMetrics {
  total: Counter<'controller' | 'result'>;
  errors: Counter<'controller'>;
  time: Histogram<'controller'>;
  maxConcurrent: Gauge<'controller'>;
  activeWorkers: Gauge<'controller'>;
}

export type BreakerEventResult = 'Allowed' | 'Dropped' | 'HalfOpenAllowed';
const BREAKER_EVENT_RESULTS: readonly BreakerEventResult[] = ['Allowed', 'Dropped', 'HalfOpenAllowed'];

/** Crossplane's circuit_breaker_* family, labelled `controller="composite/<plural>.<group>"`. */
export interface CircuitBreakerMetrics {
  opens: Counter<'controller'>;
  closes: Counter<'controller'>;
  events: BufferedCounter<'controller' | 'result'>;
}

export function createMetrics(options: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  // Queues report their readings here; gauges read them when scraped, so hot paths never touch them.
  const readers = new Map<string, () => QueueReadings>();
  return {
    registry,
    restClientRequests: new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests to the API server, partitioned by status code and method.',
      labelNames: ['code', 'method'],
      registers: [registry],
    }),
    workqueue: createWorkqueueMetrics(registry, readers),
    reconcile: createReconcileMetrics(registry, readers),
    circuitBreaker: createCircuitBreakerMetrics(registry),
    functionRun: new Histogram({
      name: 'function_run_seconds',
      help: 'How long a composition function call took, by function and result (success or error).',
      labelNames: ['function', 'result'],
      buckets: RECONCILE_TIME_BUCKETS,
      registers: [registry],
    }),
    engine: createEngineMetrics(registry),
    composite: createCompositeMetrics(registry),
    idleHeapCompactions: new Counter({
      name: 'compositor_idle_heap_compactions_total',
      help: 'Full compacting garbage collections giving the heap start-up or a burst of work grew to back to the OS, by reason: start-up done, idle (the event loop nearly idle), or settled (steady work with much unused heap).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    eventsSuppressed: new Counter({
      name: 'compositor_events_suppressed_total',
      help: 'Normal Event occurrences not written because a budget was spent, by budget (object or process) and Event reason; each is still counted in its Event series.',
      labelNames: ['budget', 'reason'],
      registers: [registry],
    }),
    functionResponseCache: createFunctionResponseCacheMetrics(registry),
    externalCalls: new Counter({
      name: 'external_calls_total',
      help: 'Calls managed-resource reconcilers made to external systems, by provider and operation.',
      labelNames: ['provider', 'operation'],
      registers: [registry],
    }),
  };
}

function createFunctionResponseCacheMetrics(registry: Registry): FunctionResponseCacheMetrics {
  const counter = (name: string, help: string): Counter<'function_name'> =>
    new Counter({
      name: `function_run_function_response_cache_${name}`,
      help,
      labelNames: ['function_name'],
      registers: [registry],
    });
  const hits = counter('hits_total', 'Total number of RunFunctionResponse cache hits.');
  const misses = counter('misses_total', 'Total number of RunFunctionResponse cache misses.');
  const writes = counter('writes_total', 'Total number of RunFunctionResponses cache writes.');
  const deletes = counter('deletes_total', 'Total number of RunFunctionResponses cache deletes.');
  const bytesWritten = counter('bytes_written_total', 'Total number of RunFunctionResponse bytes written.');
  const bytesDeleted = counter('bytes_deleted_total', 'Total number of RunFunctionResponse bytes deleted.');
  return {
    hit: (fn) => {
      hits.inc({ function_name: fn });
    },
    miss: (fn) => {
      misses.inc({ function_name: fn });
    },
    written: (fn, bytes) => {
      writes.inc({ function_name: fn });
      bytesWritten.inc({ function_name: fn }, bytes);
    },
    deleted: (fn, bytes) => {
      deletes.inc({ function_name: fn });
      bytesDeleted.inc({ function_name: fn }, bytes);
    },
  };
}

function createEngineMetrics(registry: Registry): EngineMetrics {
  const counter = <L extends string>(name: string, help: string, label: L): Counter<L> =>
    new Counter({ name, help, labelNames: [label], registers: [registry] });
  return {
    controllersStarted: counter('engine_controllers_started_total', 'Composite controllers started.', 'controller'),
    controllersStopped: counter('engine_controllers_stopped_total', 'Composite controllers stopped.', 'controller'),
    watchesStarted: counter('engine_watches_started_total', 'Watches (informers) started, by kind.', 'type'),
    watchesStopped: counter('engine_watches_stopped_total', 'Watches (informers) stopped, by kind.', 'type'),
  };
}

// client-go's workqueue buckets: 10ns to 1000s, one per power of ten.
const WORKQUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000];

// controller-runtime's reconcile_time_seconds buckets: 5ms to 60s.
const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

function createCompositeMetrics(registry: Registry): CompositeMetrics {
  const readers = new Map<string, () => CompositeReadings>();
  const gauge = (name: string, help: string, pick: (r: CompositeReadings) => number): Gauge<'controller'> =>
    new Gauge({
      name,
      help,
      labelNames: ['controller'],
      registers: [registry],
      collect() {
        for (const [controller, read] of readers) this.set({ controller }, pick(read()));
      },
    });
  const gauges = [
    gauge(
      'compositor_composite_unready',
      'XRs whose Ready condition is not True, per composite controller.',
      (r) => r.unready,
    ),
    gauge(
      'compositor_composite_unsynced',
      'XRs whose Synced condition is not True, per composite controller.',
      (r) => r.unsynced,
    ),
    gauge(
      'compositor_composite_stuck_seconds',
      'How long the oldest XR that is not Ready or not Synced (paused ones excepted) has been so, per composite controller; 0 when none.',
      (r) => r.oldestStuckSeconds,
    ),
  ];
  return {
    track(controller, read) {
      readers.set(controller, read);
      return () => {
        readers.delete(controller);
        for (const g of gauges) g.remove({ controller });
      };
    },
  };
}

function createWorkqueueMetrics(registry: Registry, readers: Map<string, () => QueueReadings>): WorkqueueMetrics {
  // The gauges are computed when scraped, like client-go's periodic unfinished-work update, so the queue's hot
  // path never touches them.
  const liveGauge = (name: string, help: string, pick: (r: QueueReadings) => number): Gauge<'name'> =>
    new Gauge({
      name,
      help,
      labelNames: ['name'],
      registers: [registry],
      collect() {
        for (const [queue, read] of readers) this.set({ name: queue }, pick(read()));
      },
    });
  const histogram = (name: string, help: string): Histogram<'name'> =>
    new Histogram({ name, help, labelNames: ['name'], buckets: WORKQUEUE_BUCKETS, registers: [registry] });
  const gauges = [
    liveGauge('workqueue_depth', 'Current depth of workqueue', (r) => r.depth),
    liveGauge(
      'workqueue_unfinished_work_seconds',
      'How many seconds of work has been done that is in progress and has not been observed by work_duration.',
      (r) => r.unfinishedWorkSeconds,
    ),
    liveGauge(
      'workqueue_longest_running_processor_seconds',
      'How many seconds has the longest running processor for workqueue been running.',
      (r) => r.longestRunningProcessorSeconds,
    ),
  ] as const;
  return {
    adds: bufferedCounter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'],
      registry,
    }),
    retries: bufferedCounter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'],
      registry,
    }),
    queueDuration: histogram(
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
    ),
    workDuration: histogram(
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes.',
    ),
    depth: gauges[0],
    unfinishedWork: gauges[1],
    longestRunningProcessor: gauges[2],
    track(name, read) {
      readers.set(name, read);
      return () => {
        readers.delete(name);
        for (const gauge of gauges) gauge.remove({ name });
      };
    },
  };
}

function createReconcileMetrics(registry: Registry, readers: Map<string, () => QueueReadings>): ReconcileMetrics {
  return {
    total: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers: [registry],
    }),
    errors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers: [registry],
    }),
    maxConcurrent: new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers: [registry],
    }),
    activeWorkers: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers: [registry],
      collect() {
        for (const [controller, read] of readers) this.set({ controller }, read().activeWorkers);
      },
    }),
    time: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_TIME_BUCKETS,
      registers: [registry],
    }),
  };
}

function createCircuitBreakerMetrics(registry: Registry): CircuitBreakerMetrics {
  return {
    opens: new Counter({
      name: 'circuit_breaker_opens_total',
      help: 'Number of times the XR watch circuit breaker opened.',
      labelNames: ['controller'],
      registers: [registry],
    }),
    closes: new Counter({
      name: 'circuit_breaker_closes_total',
      help: 'Number of times the XR watch circuit breaker closed.',
      labelNames: ['controller'],
      registers: [registry],
    }),
    events: bufferedCounter({
      name: 'circuit_breaker_events_total',
      help: 'Number of XR watch events seen by the circuit breaker, by result.',
      labelNames: ['controller', 'result'],
      registry,
    }),
  };
}

/** One queue's metrics, bound to its name, with every series created at 0. */
export interface QueueMetrics {
  adds: CounterHandle;
  retries: CounterHandle;
  queueDuration: { observe(seconds: number): void };
  workDuration: { observe(seconds: number): void };
  reconcileTotal: Readonly<Record<ReconcileResult, CounterHandle>>;
  reconcileErrors: CounterHandle;
  reconcileTime: { observe(seconds: number): void };
  /** Sets controller_runtime_max_concurrent_reconciles for this controller. */
  setMaxConcurrent(workers: number): void;
  /** See WorkqueueMetrics.track. */
  track(read: () => QueueReadings): () => void;
}

export function queueMetrics(metrics: Metrics, name: string): QueueMetrics {
  const { workqueue, reconcile } = metrics;
  const reconcileTotal = {} as Record<ReconcileResult, CounterHandle>;
  for (const result of RECONCILE_RESULTS) {
    const child = reconcile.total.labels({ controller: name, result });
    child.inc(0);
    reconcileTotal[result] = child;
  }
  const reconcileErrors = reconcile.errors.labels({ controller: name });
  reconcileErrors.inc(0);
  return {
    adds: workqueue.adds.handle({ name }),
    retries: workqueue.retries.handle({ name }),
    queueDuration: workqueue.queueDuration.labels({ name }),
    workDuration: workqueue.workDuration.labels({ name }),
    reconcileTotal,
    reconcileErrors,
    reconcileTime: reconcile.time.labels({ controller: name }),
    setMaxConcurrent: (workers) => {
      reconcile.maxConcurrent.set({ controller: name }, workers);
    },
    track: (read) => {
      const untrack = workqueue.track(name, read);
      return () => {
        untrack();
        reconcile.activeWorkers.remove({ controller: name });
        reconcile.maxConcurrent.remove({ controller: name });
      };
    },
  };
}

/** One composite controller's breaker metrics, with every series created at 0. */
export interface BreakerMetrics {
  opens: CounterHandle;
  closes: CounterHandle;
  events: Readonly<Record<BreakerEventResult, CounterHandle>>;
}

export function breakerMetrics(metrics: Metrics, controller: string): BreakerMetrics {
  const { circuitBreaker } = metrics;
  const opens = circuitBreaker.opens.labels({ controller });
  const closes = circuitBreaker.closes.labels({ controller });
  opens.inc(0);
  closes.inc(0);
  const events = {} as Record<BreakerEventResult, CounterHandle>;
  for (const result of BREAKER_EVENT_RESULTS) events[result] = circuitBreaker.events.handle({ controller, result });
  return { opens, closes, events };
}
