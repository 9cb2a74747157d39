// Shared by the queue and circuit-breaker tests: read a metric from a prom-client registry, let promises settle.
import type { Registry } from 'prom-client';
import { type ManualClock, reconcileLimits } from '../../../src/base/index.js';
import { ReconcileLimiter } from '../../../src/queue/index.js';

interface Series {
  value: number;
  labels: Partial<Record<string, string | number>>;
  metricName?: string;
}

async function seriesOf(registry: Registry, name: string): Promise<Series[]> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric "${name}" in the registry`);
  return (await metric.get()).values;
}

function matches(value: Series, labels: Record<string, string>): boolean {
  return Object.entries(labels).every(([k, want]) => String(value.labels[k]) === want);
}

/** The value of counter or gauge `name` for the series whose labels include `labels` (undefined: no such series). */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  return (await seriesOf(registry, name)).find((v) => matches(v, labels))?.value;
}

/** The sample count of histogram `name` for the series whose labels include `labels`. */
export async function histogramCount(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const values = await seriesOf(registry, name);
  return values.find((v) => v.metricName === `${name}_count` && matches(v, labels))?.value ?? 0;
}

/** The sum of the samples of histogram `name` for the series whose labels include `labels`. */
export async function histogramSum(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const values = await seriesOf(registry, name);
  return values.find((v) => v.metricName === `${name}_sum` && matches(v, labels))?.value ?? 0;
}

/** A reconcile limiter on `clock` as `--max-reconcile-rate` `perSecond` builds it: burst ten times the rate. */
export function limiterOf(clock: ManualClock, perSecond: number): ReconcileLimiter {
  return new ReconcileLimiter(reconcileLimits(perSecond).reconciles, clock);
}

/** Lets every pending promise callback run: async reconciles finish, no real time passes. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Moves `clock` forward by `ms`, stopping at every due timer and at least every `stepMs` to let promises settle,
 * so work started by a timer finishes at that timer's virtual time.
 */
export async function advance(clock: ManualClock, ms: number, stepMs = 1_000): Promise<void> {
  const end = clock.now() + ms;
  await settle();
  while (clock.now() < end) {
    clock.advanceTo(Math.min(end, clock.now() + stepMs, clock.nextTimerAt() ?? Infinity));
    await settle();
  }
}
