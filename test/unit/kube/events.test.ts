import { hostname } from 'node:os';
import { expect } from 'chai';
import { pino } from 'pino';
import {
  ApiError,
  CONTENT_TYPE,
  DEFAULT_AGGREGATION_WINDOW_MS,
  EventRecorder,
  RecordingEventSink,
  type EventRecorderOptions,
  type EventTarget,
  type KubeClient,
  type RequestOptions,
} from '../../../src/kube/index.js';
import { eventName, microTime, NOTE_MAX_BYTES, truncateNote } from '../../../src/kube/eventAggregation.js';
import { createMetrics, type Metrics } from '../../../src/metrics/index.js';

interface Call {
  method: string;
  path: string;
  options: RequestOptions;
  /** Settles this call's promise; calls settle at once unless the client is held. */
  settle: (err?: Error) => void;
}

/** A KubeClient stand-in that records every request and answers `{}` or the error queued for that call. */
class FakeClient {
  readonly calls: Call[] = [];
  readonly errors: (Error | undefined)[] = [];
  held = false;

  request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const err = this.errors.shift();
    return new Promise<T>((resolve, reject) => {
      const settle = (failure = err): void => {
        if (failure) reject(failure);
        else resolve({} as T);
      };
      this.calls.push({ method, path, options, settle });
      if (!this.held) settle();
    });
  }

  body(index: number): Record<string, unknown> {
    const call = this.calls[index];
    if (!call) throw new Error(`no call ${index}; ${this.calls.length} made`);
    return call.options.body as Record<string, unknown>;
  }
}

const T0 = Date.UTC(2026, 0, 2, 15, 4, 5, 123);
const EVENT_NAME = /^cm\.[0-9a-f]{16}$/;
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'ns', uid: 'uid-1', resourceVersion: '42' },
};
const warning = { type: 'Warning', reason: 'ComposeResources', message: 'cannot compose' } as const;

function setup(options: Partial<EventRecorderOptions> = {}): {
  client: FakeClient;
  recorder: EventRecorder;
  clock: { now: number };
  warnings: Record<string, unknown>[];
} {
  const client = new FakeClient();
  const clock = { now: T0 };
  const warnings: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line) as never) });
  const recorder = new EventRecorder({
    client: client as unknown as KubeClient,
    logger,
    clock: { now: () => clock.now },
    ...options,
  });
  return { client, recorder, clock, warnings };
}

describe('kube/EventRecorder', () => {
  it('creates an events.k8s.io/v1 Event on the first occurrence', async () => {
    const { client, recorder } = setup();
    recorder.event(configMap, warning);
    await recorder.flush();

    expect(client.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal([
      'POST /apis/events.k8s.io/v1/namespaces/ns/events',
    ]);
    const { metadata, ...body } = client.body(0) as { metadata: { name: string; namespace: string } };
    expect(metadata.name).to.match(EVENT_NAME);
    expect(metadata.namespace).to.equal('ns');
    expect(body).to.deep.equal({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      eventTime: '2026-01-02T15:04:05.123000Z',
      reportingController: 'compositor.crossplane.io/compositor',
      reportingInstance: hostname(),
      action: 'ComposeResources',
      reason: 'ComposeResources',
      note: 'cannot compose',
      type: 'Warning',
      regarding: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'cm',
        namespace: 'ns',
        uid: 'uid-1',
        resourceVersion: '42',
      },
    });
  });

  it('patches series.count and series.lastObservedTime on a repeat within the window', async () => {
    const { client, recorder, clock } = setup();
    recorder.event(configMap, warning);
    await recorder.flush();
    clock.now = T0 + DEFAULT_AGGREGATION_WINDOW_MS - 1;
    recorder.event(configMap, warning);
    await recorder.flush();

    const name = (client.body(0).metadata as { name: string }).name;
    const patch = client.calls[1];
    expect(patch?.method).to.equal('PATCH');
    expect(patch?.path).to.equal(`/apis/events.k8s.io/v1/namespaces/ns/events/${name}`);
    expect(patch?.options.contentType).to.equal(CONTENT_TYPE.mergePatch);
    expect(patch?.options.body).to.deep.equal({
      series: { count: 2, lastObservedTime: microTime(T0 + DEFAULT_AGGREGATION_WINDOW_MS - 1) },
    });
  });

  it('sends creates and patches under the request budget it was given', async () => {
    const budget = { wait: () => Promise.resolve(), separate: () => budget };
    const { client, recorder, clock } = setup({ limiter: budget });
    recorder.event(configMap, warning);
    await recorder.flush();
    clock.now += 1;
    recorder.event(configMap, warning);
    await recorder.flush();

    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'PATCH']);
    expect(client.calls.map((c) => c.options.limiter)).to.deep.equal([budget, budget]);
  });

  it('measures the window from the previous occurrence, and creates a new Event once it has passed', async () => {
    const { client, recorder, clock } = setup({ aggregationWindowMs: 1_000 });
    for (const at of [0, 900, 1_800]) {
      clock.now = T0 + at;
      recorder.event(configMap, warning);
      await recorder.flush();
    }
    clock.now = T0 + 2_800;
    recorder.event(configMap, warning);
    await recorder.flush();

    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'PATCH', 'PATCH', 'POST']);
    expect(client.body(2)).to.deep.equal({ series: { count: 3, lastObservedTime: microTime(T0 + 1_800) } });
    const names = [client.body(0), client.body(3)].map((b) => (b.metadata as { name: string }).name);
    expect(names[1]).to.match(EVENT_NAME).and.not.equal(names[0]);
    expect(client.body(3)).to.not.have.property('series');
  });

  it('keeps one write per key in flight and coalesces repeats that arrive meanwhile into the next patch', async () => {
    const { client, recorder, clock } = setup();
    client.held = true;
    recorder.event(configMap, warning);
    expect(client.calls).to.have.length(1);
    for (let i = 1; i <= 3; i++) {
      clock.now = T0 + i;
      recorder.event(configMap, warning);
    }
    expect(client.calls, 'no write while the create is in flight').to.have.length(1);

    client.calls[0]?.settle();
    await settled();
    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'PATCH']);
    expect(client.body(1)).to.deep.equal({ series: { count: 4, lastObservedTime: microTime(T0 + 3) } });

    client.held = false;
    client.calls[1]?.settle();
    await recorder.flush();
    expect(client.calls).to.have.length(2);
  });

  it('starts a new series only after the previous series of the same key has finished writing', async () => {
    const { client, recorder, clock } = setup({ aggregationWindowMs: 1_000 });
    client.held = true;
    recorder.event(configMap, warning);
    clock.now = T0 + 1_000;
    recorder.event(configMap, warning);
    await settled();
    expect(client.calls, 'the new series waits for the create in flight').to.have.length(1);

    client.calls[0]?.settle();
    await settled();
    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'POST']);
    expect(client.body(1).eventTime).to.equal(microTime(T0 + 1_000));
    client.calls[1]?.settle();
    await recorder.flush();
  });

  it('flush() waits for the writes coalesced behind the one in flight', async () => {
    const { client, recorder } = setup();
    client.held = true;
    recorder.event(configMap, warning);
    recorder.event(configMap, warning);
    let flushed = false;
    const flushing = recorder.flush().then(() => (flushed = true));
    client.calls[0]?.settle();
    await settled();
    expect(flushed, 'the coalesced patch is still in flight').to.be.false;
    client.calls[1]?.settle();
    await flushing;
    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'PATCH']);
  });

  it('keeps Events apart when the object, type, reason, action or message differ', async () => {
    const { client, recorder } = setup();
    const other = { ...configMap, metadata: { ...configMap.metadata, uid: 'uid-2' } };
    recorder.event(configMap, warning);
    recorder.event(other, warning);
    recorder.event(configMap, { ...warning, type: 'Normal' });
    recorder.event(configMap, { ...warning, reason: 'Other' });
    recorder.event(configMap, { ...warning, action: 'Other' });
    recorder.event(configMap, { ...warning, message: 'other' });
    await recorder.flush();
    expect(client.calls.map((c) => c.method)).to.deep.equal(Array<string>(6).fill('POST'));
  });

  it('aggregates objects without a uid by apiVersion, kind, namespace and name', async () => {
    const { client, recorder } = setup();
    const noUid = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns' } };
    recorder.event(noUid, warning);
    recorder.event(noUid, warning);
    recorder.event({ ...noUid, metadata: { name: 'cm', namespace: 'other' } }, warning);
    await recorder.flush();
    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'POST', 'PATCH']);
  });

  it('records Events about cluster-scoped objects in the default namespace', async () => {
    const { client, recorder } = setup();
    recorder.event({ apiVersion: 'example.org/v1', kind: 'XCluster', metadata: { name: 'cm', uid: 'u' } }, warning);
    await recorder.flush();
    expect(client.calls[0]?.path).to.equal('/apis/events.k8s.io/v1/namespaces/default/events');
    expect((client.body(0).metadata as { namespace: string }).namespace).to.equal('default');
    expect(client.body(0).regarding).to.deep.equal({
      apiVersion: 'example.org/v1',
      kind: 'XCluster',
      name: 'cm',
      uid: 'u',
    });
  });

  it('truncates the note to the 1 kB the API allows', async () => {
    const { client, recorder } = setup();
    recorder.event(configMap, { ...warning, message: 'x'.repeat(5_000) });
    await recorder.flush();
    const note = client.body(0).note as string;
    expect(Buffer.byteLength(note)).to.equal(NOTE_MAX_BYTES);
    expect(note.endsWith('...')).to.be.true;
  });

  it('uses the configured reporting controller, instance and action', async () => {
    const { client, recorder } = setup({ reportingController: 'example.org/ctl', reportingInstance: 'pod-0' });
    recorder.event(configMap, { ...warning, action: 'Compose' });
    await recorder.flush();
    expect(client.body(0)).to.include({ reportingController: 'example.org/ctl', reportingInstance: 'pod-0' });
    expect(client.body(0)).to.include({ action: 'Compose', reason: 'ComposeResources' });
  });

  it('creates a new Event carrying the count so far when the patch finds the Event gone (404)', async () => {
    const { client, recorder, clock } = setup();
    recorder.event(configMap, warning);
    await recorder.flush();
    client.errors.push(new ApiError(404, 'NotFound', 'events "cm.x" not found'));
    clock.now = T0 + 5;
    recorder.event(configMap, warning);
    await recorder.flush();

    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'PATCH', 'POST']);
    const [first, recreated] = [client.body(0), client.body(2)];
    expect((recreated.metadata as { name: string }).name).to.not.equal((first.metadata as { name: string }).name);
    expect(recreated.series).to.deep.equal({ count: 2, lastObservedTime: microTime(T0 + 5) });
    expect(recreated.eventTime).to.equal(first.eventTime);
  });

  it('continues an Event whose create already reached the server (409 AlreadyExists)', async () => {
    const { client, recorder, warnings } = setup();
    client.errors.push(new ApiError(409, 'AlreadyExists', 'exists'));
    recorder.event(configMap, warning);
    await recorder.flush();
    expect(
      client.calls.map((c) => c.method),
      'the existing Event already says it all',
    ).to.deep.equal(['POST']);
    recorder.event(configMap, warning);
    await recorder.flush();
    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'PATCH']);
    expect(warnings).to.deep.equal([]);
  });

  it('patches the count into an Event that already existed when repeats arrived during its create', async () => {
    const { client, recorder } = setup();
    client.held = true;
    recorder.event(configMap, warning);
    recorder.event(configMap, warning);
    client.held = false;
    client.calls[0]?.settle(new ApiError(409, 'AlreadyExists', 'exists'));
    await recorder.flush();
    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'PATCH']);
    expect(client.body(1).series).to.include({ count: 2 });
  });

  it('never throws: logs a failed write at warn with the error, reason and object, and retries on the next occurrence', async () => {
    const { client, recorder, warnings } = setup();
    client.errors.push(new ApiError(500, 'InternalError', 'POST /apis/events.k8s.io/v1: etcd is sad'));
    expect(() => {
      recorder.event(configMap, warning);
    }).to.not.throw();
    await recorder.flush();
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include({
      level: 40,
      msg: 'cannot record event',
      error: 'POST /apis/events.k8s.io/v1: etcd is sad',
      reason: 'ComposeResources',
      object: 'ConfigMap/cm (ns)',
    });

    recorder.event(configMap, warning);
    await recorder.flush();
    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'POST']);
    expect(client.body(1).series).to.include({ count: 2 });
  });

  it('gives a write up after three failed-over attempts in a row instead of looping', async () => {
    const { client, recorder, warnings } = setup();
    client.held = true;
    recorder.event(configMap, warning);
    recorder.event(configMap, warning);
    client.errors.push(
      new ApiError(409, 'AlreadyExists', 'exists'),
      new ApiError(404, 'NotFound', 'not found'),
      new ApiError(409, 'AlreadyExists', 'exists'),
    );
    client.held = false;
    client.calls[0]?.settle(new ApiError(500, 'InternalError', 'unavailable'));
    await recorder.flush();
    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'POST', 'PATCH', 'POST']);
    expect(warnings.map((w) => w.error)).to.deep.equal(['unavailable', 'exists']);
  });

  it('does not throw for a malformed target from untyped callers', async () => {
    const { recorder, warnings } = setup();
    expect(() => {
      recorder.event({ apiVersion: 'v1', kind: 'ConfigMap' } as EventTarget, warning);
    }).to.not.throw();
    await recorder.flush();
    expect(warnings).to.have.length(1);
  });

  it("writes at most an object's budget of distinct Normal Events, and every Warning beside them", async () => {
    const { client, recorder } = setup();
    for (let i = 0; i < 30; i++)
      recorder.event(configMap, { type: 'Normal', reason: 'Progress', message: `step ${i}` });
    for (let i = 0; i < 30; i++) recorder.event(configMap, { ...warning, message: `cannot compose ${i}` });
    await recorder.flush();
    const posted = client.calls.map((c) => (c.options.body as { type: string; note: string }).type);
    expect(posted.filter((t) => t === 'Normal')).to.have.length(25);
    expect(
      posted.filter((t) => t === 'Warning'),
      'Warnings are never limited',
    ).to.have.length(30);
    expect(client.body(24).note).to.equal('step 24');
  });

  it('does not charge Warnings to the Normal budget', async () => {
    const { client, recorder } = setup({ normalEventRate: { burst: 2, perSecond: 0 } });
    for (let i = 0; i < 5; i++) recorder.event(configMap, { ...warning, message: `cannot compose ${i}` });
    for (let i = 0; i < 3; i++) recorder.event(configMap, { type: 'Normal', reason: 'Progress', message: `step ${i}` });
    await recorder.flush();
    expect(client.calls.map((c) => (c.options.body as { note: string }).note)).to.deep.equal([
      'cannot compose 0',
      'cannot compose 1',
      'cannot compose 2',
      'cannot compose 3',
      'cannot compose 4',
      'step 0',
      'step 1',
    ]);
  });

  it('counts a Normal occurrence over budget into its series, and writes the count once the budget refills', async () => {
    const { client, recorder, clock } = setup({ normalEventRate: { burst: 1, perSecond: 1 / 300 } });
    const normal = { type: 'Normal', reason: 'Progress', message: 'still waiting' } as const;
    recorder.event(configMap, normal);
    await recorder.flush();
    clock.now = T0 + 1_000;
    recorder.event(configMap, normal);
    await recorder.flush();
    expect(
      client.calls.map((c) => c.method),
      'the repeat over budget starts no write',
    ).to.deep.equal(['POST']);

    clock.now = T0 + 301_000;
    recorder.event(configMap, normal);
    await recorder.flush();
    expect(client.calls.map((c) => c.method)).to.deep.equal(['POST', 'PATCH']);
    expect(client.body(1)).to.deep.equal({ series: { count: 3, lastObservedTime: microTime(T0 + 301_000) } });
  });

  describe('with a process budget of Normal Events', () => {
    const xr = (i: number): EventTarget => ({
      apiVersion: 'example.org/v1',
      kind: 'XApp',
      metadata: { name: `app-${i}`, namespace: 'ns', uid: `uid-${i}` },
    });
    const selected = { type: 'Normal', reason: 'SelectComposition', message: 'Successfully selected' } as const;
    const posted = (client: FakeClient): string[] =>
      client.calls.map((c) => {
        const body = c.options.body as { type?: string; regarding?: { name: string } };
        return `${c.method} ${body.type ?? ''} ${body.regarding?.name ?? ''}`.trim();
      });

    function setupWithBudget(options: Partial<EventRecorderOptions>): ReturnType<typeof setup> & { metrics: Metrics } {
      const metrics = createMetrics({ processMetrics: false });
      return { ...setup({ suppressed: metrics.eventsSuppressed, ...options }), metrics };
    }

    async function suppressed(metrics: Metrics): Promise<Record<string, number>> {
      const counts: Record<string, number> = {};
      for (const { labels, value } of (await metrics.eventsSuppressed.get()).values)
        counts[`${labels.budget ?? ''} ${labels.reason ?? ''}`] = value;
      return counts;
    }

    it('writes only the budget of a burst of Normal Events on many objects, and counts the rest', async () => {
      const { client, recorder, metrics } = setupWithBudget({ processNormalEventRate: { burst: 5, perSecond: 2 } });
      for (let i = 0; i < 20; i++) recorder.event(xr(i), selected);
      await recorder.flush();
      expect(posted(client)).to.deep.equal([0, 1, 2, 3, 4].map((i) => `POST Normal app-${i}`));
      expect(await suppressed(metrics)).to.deep.equal({ 'process SelectComposition': 15 });
    });

    it('writes every Warning on many objects while the Normal budget is spent', async () => {
      const { client, recorder, metrics } = setupWithBudget({ processNormalEventRate: { burst: 2, perSecond: 0 } });
      for (let i = 0; i < 3; i++) recorder.event(xr(i), selected);
      for (let i = 0; i < 50; i++) recorder.event(xr(i), warning);
      await recorder.flush();
      const writes = posted(client);
      expect(writes.filter((w) => w.startsWith('POST Normal'))).to.deep.equal([
        'POST Normal app-0',
        'POST Normal app-1',
      ]);
      expect(
        writes.filter((w) => w.startsWith('POST Warning')),
        'Warnings are never charged nor refused',
      ).to.have.length(50);
      expect(await suppressed(metrics)).to.deep.equal({ 'process SelectComposition': 1 });
    });

    it('writes again as the budget refills', async () => {
      const { client, recorder, clock } = setupWithBudget({ processNormalEventRate: { burst: 2, perSecond: 2 } });
      const burst = async (from: number, count: number): Promise<void> => {
        for (let i = from; i < from + count; i++) recorder.event(xr(i), selected);
        await recorder.flush();
      };
      await burst(0, 4);
      clock.now = T0 + 500;
      await burst(10, 3);
      clock.now = T0 + 60_500;
      await burst(20, 3);
      expect(posted(client)).to.deep.equal([
        'POST Normal app-0',
        'POST Normal app-1',
        'POST Normal app-10',
        'POST Normal app-20',
        'POST Normal app-21',
      ]);
    });

    it('counts an occurrence the process refused into its series, which the next write carries', async () => {
      const { client, recorder, clock } = setupWithBudget({ processNormalEventRate: { burst: 1, perSecond: 1 } });
      recorder.event(xr(0), selected);
      recorder.event(xr(1), selected);
      await recorder.flush();
      clock.now = T0 + 1_000;
      recorder.event(xr(1), selected);
      await recorder.flush();
      expect(posted(client)).to.deep.equal(['POST Normal app-0', 'POST Normal app-1']);
      expect(client.body(1).series).to.deep.equal({ count: 2, lastObservedTime: microTime(T0 + 1_000) });
    });

    it('counts refusals by the budget that refused them, and by reason', async () => {
      const { client, recorder, metrics } = setupWithBudget({
        normalEventRate: { burst: 1, perSecond: 0 },
        processNormalEventRate: { burst: 2, perSecond: 0 },
      });
      recorder.event(xr(0), selected);
      recorder.event(xr(0), { ...selected, message: 'Selected composition revision' });
      recorder.event(xr(0), { ...selected, reason: 'CompositionSelection' });
      recorder.event(xr(1), selected);
      recorder.event(xr(2), { ...selected, reason: 'CompositionSelection' });
      await recorder.flush();
      expect(posted(client), "the object's refusals cost the process nothing").to.deep.equal([
        'POST Normal app-0',
        'POST Normal app-1',
      ]);
      expect(await suppressed(metrics)).to.deep.equal({
        'object SelectComposition': 1,
        'object CompositionSelection': 1,
        'process CompositionSelection': 1,
      });
    });
  });

  it('remembers at most maxTracked keys, forgetting the least recently observed first', async () => {
    const { client, recorder } = setup({ maxTracked: 2 });
    const target = (uid: string): EventTarget => ({ ...configMap, metadata: { ...configMap.metadata, uid } });
    for (const uid of ['a', 'b', 'a', 'c', 'a', 'b']) {
      recorder.event(target(uid), warning);
      await recorder.flush();
    }
    // 'b' was forgotten when 'c' arrived ('a' had been observed more recently), so its repeat is a new Event.
    const writes = client.calls.map(
      (c) => `${c.method} ${(c.options.body as { regarding?: { uid: string } }).regarding?.uid ?? ''}`,
    );
    expect(writes).to.deep.equal(['POST a', 'POST b', 'PATCH ', 'POST c', 'PATCH ', 'POST b']);
  });
});

describe('kube/RecordingEventSink', () => {
  it('keeps every event in order', () => {
    const sink = new RecordingEventSink();
    sink.event(configMap, warning);
    sink.event(configMap, { ...warning, type: 'Normal' });
    expect(sink.events.map((e) => e.input.type)).to.deep.equal(['Warning', 'Normal']);
    expect(sink.events[0]?.target).to.equal(configMap);
  });
});

describe('kube/eventAggregation', () => {
  it('formats MicroTime with exactly six fractional digits', () => {
    const cases: Record<string, { at: number; want: string }> = {
      'milliseconds padded': { at: T0, want: '2026-01-02T15:04:05.123000Z' },
      'whole second': { at: Date.UTC(2006, 0, 2, 15, 4, 5), want: '2006-01-02T15:04:05.000000Z' },
      epoch: { at: 0, want: '1970-01-01T00:00:00.000000Z' },
    };
    for (const [reason, { at, want }] of Object.entries(cases)) {
      expect(microTime(at), reason).to.equal(want).and.match(MICRO_TIME);
    }
  });

  it('truncates notes to 1024 bytes without splitting a character', () => {
    const cases: Record<string, { message: string; want: (note: string) => boolean }> = {
      'short message untouched': { message: 'fine', want: (note) => note === 'fine' },
      'exactly 1024 bytes untouched': { message: 'a'.repeat(1024), want: (note) => note === 'a'.repeat(1024) },
      'ascii cut to 1021 + "..."': { message: 'a'.repeat(1025), want: (note) => note === `${'a'.repeat(1021)}...` },
      // 'é' is two bytes: 510 of them fill 1020 bytes, the 511th would straddle the cut at 1021.
      'two-byte characters kept whole': { message: 'é'.repeat(600), want: (note) => note === `${'é'.repeat(510)}...` },
      'four-byte characters kept whole': {
        message: '😀'.repeat(300),
        want: (note) => note === `${'😀'.repeat(255)}...` && !note.includes('\uFFFD'),
      },
    };
    for (const [reason, { message, want }] of Object.entries(cases)) {
      const note = truncateNote(message);
      expect(Buffer.byteLength(note), reason).to.be.at.most(NOTE_MAX_BYTES);
      expect(want(note), `${reason}: got ${note.slice(-8)} (${note.length} chars)`).to.be.true;
    }
  });

  it('names Events <regarding name>.<suffix> as valid DNS subdomains', () => {
    const suffix = '0123456789abcdef';
    const cases: Record<string, { name: string; want: string }> = {
      'plain name': { name: 'my-xr', want: `my-xr.${suffix}` },
      'dotted name': { name: 'a.b.c', want: `a.b.c.${suffix}` },
      'RBAC-style name': { name: 'system:controller:Foo', want: `system-controller-foo.${suffix}` },
      'empty labels dropped': { name: '.a..b.', want: `a.b.${suffix}` },
      'nothing usable': { name: ':::', want: `object.${suffix}` },
      'long name shortened to 253': { name: `${'a'.repeat(235)}-b`, want: `${'a'.repeat(235)}.${suffix}` },
    };
    for (const [reason, { name, want }] of Object.entries(cases)) {
      const got = eventName(name, suffix);
      expect(got, reason).to.equal(want);
      expect(got.length, reason).to.be.at.most(253);
    }
  });
});

/** Lets the promise callbacks of settled fake requests run (microtasks and the immediate after them). */
function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
