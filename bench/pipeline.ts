// Pushes watch events through the per-XR circuit breaker operator into the work queue, in-process, and prints one
// JSON object: events/s for the whole path and the breaker's own cost per event. Run with `npm run bench:pipeline`.
//
// Shape: 1,000,000 update events round-robin over 10,000 XR keys with the default flags (breaker burst 100, refill
// 1/s; queue rate 10/s, 10 workers, no-op reconcile). Each XR gets 100 updates within a second or two, so about
// half of them trip its breaker: the figure covers allowed and dropped events alike, which is what a storm costs.
import { Subject } from 'rxjs';
import { availableParallelism } from 'node:os';
import { circuitBreaker, OwnWrites, TokenBucketBreaker, type XrEvent } from '../src/circuitbreaker/index.js';
import { createMetrics } from '../src/metrics/index.js';
import { reconcileLimits } from '../src/base/index.js';
import { ReconcileLimiter, ReconcileQueue } from '../src/queue/index.js';

const EVENTS = 1_000_000;
const KEYS = 10_000;
const CHUNK = 10_000;

function makeEvents(keys: number): XrEvent[] {
  return Array.from({ length: keys }, (_, i) => ({
    xrKey: `team-${i % 100}/xr-${i}`,
    cause: 'update' as const,
    object: {
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, namespace: `team-${i % 100}`, uid: `uid-${i}`, resourceVersion: String(i) },
    },
  }));
}

async function yieldToWorkers(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}

interface PipelineFigures {
  eventsPerSecond: number;
  seconds: number;
  breakerResults: Record<string, number>;
  queueAdds: number;
  reconciles: number;
}

/** The whole path: Subject -> circuitBreaker -> queue.add, with workers running between chunks. */
async function pipeline(total: number, events: XrEvent[], burst?: number): Promise<PipelineFigures> {
  const metrics = createMetrics({ processMetrics: false });
  const controller = 'composite/xbench.example.org';
  const breaker = new TokenBucketBreaker({ controller, metrics, burst });
  let reconciles = 0;
  const queue = new ReconcileQueue({
    name: controller,
    metrics,
    workers: 10,
    limiter: new ReconcileLimiter(reconcileLimits(10).reconciles),
    reconcile: () => {
      reconciles += 1;
      return Promise.resolve({});
    },
  });
  await queue.start();
  const input = new Subject<XrEvent>();
  const subscription = input.pipe(circuitBreaker({ breaker, ownWrites: new OwnWrites() })).subscribe((key) => {
    queue.add(key);
  });
  const started = process.hrtime.bigint();
  for (let sent = 0; sent < total;) {
    for (const end = Math.min(total, sent + CHUNK); sent < end; sent++)
      input.next(events[sent % events.length] as XrEvent);
    await yieldToWorkers();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  subscription.unsubscribe();
  await queue.stop(AbortSignal.timeout(1_000));
  const breakerResults: Record<string, number> = {};
  for (const v of (await metrics.circuitBreaker.events.counter.get()).values)
    breakerResults[String(v.labels.result)] = v.value;
  const adds = (await metrics.workqueue.adds.counter.get()).values[0]?.value ?? 0;
  return { eventsPerSecond: Math.round(total / seconds), seconds, breakerResults, queueAdds: adds, reconciles };
}

/** The breaker alone: record() for every event with a bucket that never runs dry, so every event is charged. */
function breakerOnly(total: number, events: XrEvent[]): number {
  const breaker = new TokenBucketBreaker({
    controller: 'composite/xbench.example.org',
    metrics: createMetrics({ processMetrics: false }),
    burst: Number.MAX_SAFE_INTEGER,
  });
  const started = process.hrtime.bigint();
  for (let i = 0; i < total; i++) {
    const event = events[i % events.length] as XrEvent;
    breaker.record(event.xrKey, 2, event.object);
  }
  return Number(process.hrtime.bigint() - started) / total;
}

async function main(): Promise<void> {
  const events = makeEvents(KEYS);
  // Warm up the JIT on a smaller run of each, then measure fresh instances.
  await pipeline(200_000, events);
  breakerOnly(200_000, events);
  const measured = await pipeline(EVENTS, events);
  // The same with a bucket that never runs dry: every event reaches queue.add (and coalesces there).
  const allAllowed = await pipeline(EVENTS, events, Number.MAX_SAFE_INTEGER);
  const breakerNs = breakerOnly(EVENTS, events);
  const result = {
    benchmark: 'pipeline',
    events: EVENTS,
    xrKeys: KEYS,
    eventsPerSecond: measured.eventsPerSecond,
    seconds: Number(measured.seconds.toFixed(3)),
    allAllowedEventsPerSecond: allAllowed.eventsPerSecond,
    breakerNsPerEvent: Number(breakerNs.toFixed(1)),
    breakerResults: measured.breakerResults,
    queueAdds: measured.queueAdds,
    reconciles: measured.reconciles,
    target: {
      eventsPerSecond: 200_000,
      met: Math.min(measured.eventsPerSecond, allAllowed.eventsPerSecond) >= 200_000,
    },
    node: process.version,
    cpus: availableParallelism(),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main();
