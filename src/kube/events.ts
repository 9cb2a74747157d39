import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { errorMessage, systemClock, type Clock, type TokenBucketRate } from '../base/index.js';
import type { Metrics } from '../metrics/index.js';
import { CONTENT_TYPE, type KubeClient } from './client.js';
import type { RequestLimiter } from './rateLimiter.js';
import { isAlreadyExists, isNotFound } from './errors.js';
import { aggregateKey, eventName, microTime, SeriesTable, truncateNote, type Series } from './eventAggregation.js';
import { NormalEventBudget } from './eventBudget.js';
import { DEFAULT_NORMAL_EVENT_RATE, DEFAULT_SPAM_TRACKED } from './eventSpamFilter.js';

/** The object an Event is about. Whole Kubernetes objects fit; their resourceVersion is recorded when present. */
export interface EventTarget {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid?: string };
}

export interface EventInput {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** What was done or tried (machine-readable, required by the API); defaults to the reason. */
  action?: string;
}

/** Where controllers send Events. `event` is fire-and-forget: it returns at once and never throws. */
export interface EventSink {
  event(target: EventTarget, input: EventInput): void;
}

export interface EventRecorderOptions {
  client: KubeClient;
  /**
   * The request budget Events are written under, e.g. `client.separateBudget()` so that Events and reconciles do not
   * queue behind each other; by default the client's own.
   */
  limiter?: RequestLimiter;
  logger: Logger;
  /** Event.reportingController; defaults to `compositor.crossplane.io/compositor`. */
  reportingController?: string;
  /** Event.reportingInstance; defaults to the host name (the pod name in a cluster). */
  reportingInstance?: string;
  clock?: Pick<Clock, 'now'>;
  /** Repeats less than this long after the previous occurrence aggregate into one Event; default 10 minutes. */
  aggregationWindowMs?: number;
  /** Aggregate keys remembered at most; default 4,096. */
  maxTracked?: number;
  /**
   * Each object's budget of Normal Events: its burst, then its refill; by default client-go's, 25 then one per
   * 5 minutes. Warnings are never limited.
   */
  normalEventRate?: TokenBucketRate;
  /**
   * The budget of Normal Events all objects share, charged after the object's: its burst, then its refill; by
   * default none. The engine gives `reconcileLimits(N).normalEvents`. Warnings are never limited.
   */
  processNormalEventRate?: TokenBucketRate;
  /** Counts the Normal occurrences a budget kept from being written (compositor_events_suppressed_total). */
  suppressed?: Pick<Metrics['eventsSuppressed'], 'inc'>;
}

export const DEFAULT_REPORTING_CONTROLLER = 'compositor.crossplane.io/compositor';
export const DEFAULT_AGGREGATION_WINDOW_MS = 10 * 60_000;
/**
 * client-go's maxLruCacheEntries, the size of its aggregation cache (tools/record/events_cache.go). A series holds its
 * Event's whole text: 10,000 of them were 3.3 MiB of an at-rest process's heap at 1,000 XRs of the platform benchmark.
 */
export const DEFAULT_MAX_TRACKED = 4096;
/** Writes of one series in a row that may fail over to create/patch (404, 409) before the series gives up. */
const MAX_ATTEMPTS = 3;

interface Regarding {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

/** What one series' Event says; everything but its name, count and times. */
interface EventDetail {
  namespace: string;
  regarding: Regarding;
  type: EventInput['type'];
  reason: string;
  action: string;
  note: string;
}

/**
 * Writes `events.k8s.io/v1` Events, aggregated so that an event storm costs the API server little: a repeat of the
 * same (object, type, reason, action, message) less than `aggregationWindowMs` after the previous one raises
 * `series.count` (the number of occurrences, so 2 on the first repeat) and `series.lastObservedTime` on the
 * existing Event with a merge patch, as client-go's events broadcaster does. At most one write per aggregate key
 * is in flight; occurrences that arrive meanwhile are coalesced into the next patch. Normal occurrences also spend
 * their object's budget (`normalEventRate`, client-go's spam filter) and then the process's
 * (`processNormalEventRate`, which bounds a burst over many objects as client-go's dropping queue does): one over
 * either is still counted in its series but starts no write, so the series' next write carries its count, and is
 * counted in `suppressed`; Warnings are always written. Failures are logged at warn, never thrown: events are
 * best-effort and must not fail a reconcile.
 *
 * @example
 * const recorder = new EventRecorder({ client, logger });
 * recorder.event(xr, { type: 'Warning', reason: 'CircuitBreakerOpen', message: 'Too many watch events ...' });
 * await recorder.flush(); // on shutdown
 */
export class EventRecorder implements EventSink {
  private readonly table: SeriesTable<EventDetail>;
  private readonly budget: NormalEventBudget;
  /** The last write loop started for each aggregate key; a key's next loop waits for it. */
  private readonly writes = new Map<string, Promise<void>>();
  private readonly clock: Pick<Clock, 'now'>;
  private readonly reportingController: string;
  private readonly reportingInstance: string;

  constructor(private readonly options: EventRecorderOptions) {
    this.clock = options.clock ?? systemClock;
    this.reportingController = options.reportingController ?? DEFAULT_REPORTING_CONTROLLER;
    this.reportingInstance = options.reportingInstance ?? hostname();
    this.table = new SeriesTable({
      windowMs: options.aggregationWindowMs ?? DEFAULT_AGGREGATION_WINDOW_MS,
      maxTracked: options.maxTracked ?? DEFAULT_MAX_TRACKED,
    });
    this.budget = new NormalEventBudget({
      object: options.normalEventRate ?? DEFAULT_NORMAL_EVENT_RATE,
      maxTracked: DEFAULT_SPAM_TRACKED,
      process: options.processNormalEventRate,
    });
  }

  event(target: EventTarget, input: EventInput): void {
    try {
      const detail = detailOf(target, input);
      const { type, reason, action, note } = detail;
      const object = objectId(target);
      const now = this.clock.now();
      const key = aggregateKey({ object, type, reason, action, note });
      const series = this.table.observe(key, now, () => ({ name: newEventName(target.metadata.name), detail }));
      const refusedBy = type === 'Normal' ? this.budget.refuse(object, now) : undefined;
      if (refusedBy !== undefined) {
        this.options.suppressed?.inc({ budget: refusedBy, reason });
        this.options.logger.debug({ reason, budget: refusedBy, object: describeTarget(target) }, 'event over budget');
        return;
      }
      this.schedule(series);
    } catch (err) {
      // Only a malformed target gets here (callers in plain JavaScript); the contract is still not to throw.
      this.warn(err, input.reason, describeTarget(target));
    }
  }

  /** Resolves when every write in flight, and every write coalesced behind one, has finished. */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.all(this.writes.values());
  }

  /** Starts a write loop for the series unless one is running, which will pick the new occurrence up. */
  private schedule(series: Series<EventDetail>): void {
    if (series.writing) return;
    series.writing = true;
    // A previous series of this key (expired or evicted) may still be writing: wait for it, so that a key never
    // has two writes in flight.
    const previous = this.writes.get(series.key);
    const loop = previous ? previous.then(() => this.drain(series)) : this.drain(series);
    const tail = loop.finally(() => {
      if (this.writes.get(series.key) === tail) this.writes.delete(series.key);
    });
    this.writes.set(series.key, tail);
  }

  /** Writes until the server has the latest count. Never rejects: writeOnce handles every failure. */
  private async drain(series: Series<EventDetail>): Promise<void> {
    for (let attempt = 1; series.written < series.count; attempt++) {
      const before = series.written;
      await this.writeOnce(series, attempt >= MAX_ATTEMPTS);
      if (series.written !== before) attempt = 0;
    }
    // Cleared synchronously after the last check, so an occurrence arriving now starts a new loop.
    series.writing = false;
  }

  private async writeOnce(series: Series<EventDetail>, lastAttempt: boolean): Promise<void> {
    const count = series.count;
    const lastObserved = series.lastObserved;
    try {
      if (series.created) await this.patch(series, count, lastObserved);
      else await this.create(series, count, lastObserved);
      series.created = true;
      series.written = count;
    } catch (err) {
      if (!lastAttempt && this.failOver(series, err)) return;
      this.warn(err, series.detail.reason, describeRegarding(series.detail.regarding));
      // Give these occurrences up; the next one writes the full count again, so only its timing is lost.
      series.written = count;
    }
  }

  /** Switches between create and patch when the server says the Event is not in the state assumed. */
  private failOver(series: Series<EventDetail>, err: unknown): boolean {
    if (series.created && isNotFound(err)) {
      // The Event expired (the API server's event TTL, 1h by default) or was deleted: create a new one that
      // carries the count so far.
      series.created = false;
      series.name = newEventName(series.detail.regarding.name);
      return true;
    }
    if (!series.created && isAlreadyExists(err)) {
      // An earlier create that failed on our side (a timeout) reached the server after all: continue that Event.
      series.created = true;
      return true;
    }
    return false;
  }

  private async create(series: Series<EventDetail>, count: number, lastObserved: number): Promise<void> {
    const { namespace, ...detail } = series.detail;
    await this.options.client.request('POST', eventsPath(namespace), {
      limiter: this.options.limiter,
      body: {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: series.name, namespace },
        eventTime: microTime(series.firstObserved),
        // The API rejects a series with a count below 2; a single occurrence has none.
        ...(count > 1 ? { series: { count, lastObservedTime: microTime(lastObserved) } } : {}),
        reportingController: this.reportingController,
        reportingInstance: this.reportingInstance,
        ...detail,
      },
    });
  }

  private async patch(series: Series<EventDetail>, count: number, lastObserved: number): Promise<void> {
    // A lone occurrence is exactly what the create wrote (and the API rejects a series count below 2).
    if (count < 2) return;
    await this.options.client.request('PATCH', `${eventsPath(series.detail.namespace)}/${series.name}`, {
      limiter: this.options.limiter,
      body: { series: { count, lastObservedTime: microTime(lastObserved) } },
      contentType: CONTENT_TYPE.mergePatch,
    });
  }

  private warn(err: unknown, reason: string, object: string): void {
    this.options.logger.warn({ error: errorMessage(err), reason, object }, 'cannot record event');
  }
}

/** Records events in memory, for unit tests of the controllers that emit them. */
export class RecordingEventSink implements EventSink {
  readonly events: { target: EventTarget; input: EventInput }[] = [];

  event(target: EventTarget, input: EventInput): void {
    this.events.push({ target, input });
  }
}

function eventsPath(namespace: string): string {
  return `/apis/events.k8s.io/v1/namespaces/${namespace}/events`;
}

function newEventName(regardingName: string): string {
  // Random rather than client-go's time-based suffix, so two replicas (or two series in one millisecond) never
  // pick the same name.
  return eventName(regardingName, randomBytes(8).toString('hex'));
}

function detailOf(target: EventTarget, input: EventInput): EventDetail {
  const { apiVersion, kind, metadata } = target;
  const regarding: Regarding = { apiVersion, kind, name: metadata.name };
  if (metadata.namespace) regarding.namespace = metadata.namespace;
  if (metadata.uid) regarding.uid = metadata.uid;
  const resourceVersion = resourceVersionOf(target);
  if (resourceVersion) regarding.resourceVersion = resourceVersion;
  return {
    // The API only accepts Events about cluster-scoped objects in `default` (or kube-system).
    namespace: metadata.namespace ?? 'default',
    regarding,
    type: input.type,
    reason: input.reason,
    action: input.action ?? input.reason,
    note: truncateNote(input.message),
  };
}

/** Targets are usually whole objects, which carry a resourceVersion that the EventTarget contract leaves out. */
function resourceVersionOf(target: EventTarget): string | undefined {
  const value: unknown = (target.metadata as { resourceVersion?: unknown }).resourceVersion;
  return typeof value === 'string' ? value : undefined;
}

function objectId(target: EventTarget): string {
  const { metadata } = target;
  return metadata.uid ?? `${target.apiVersion}/${target.kind}/${metadata.namespace ?? ''}/${metadata.name}`;
}

function describeRegarding(regarding: Regarding): string {
  const name = `${regarding.kind}/${regarding.name}`;
  return regarding.namespace ? `${name} (${regarding.namespace})` : name;
}

function describeTarget(target: EventTarget): string {
  try {
    return describeRegarding({ ...target, ...target.metadata });
  } catch {
    return 'an unreadable object';
  }
}
