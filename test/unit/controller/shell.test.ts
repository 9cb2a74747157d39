import { expect } from 'chai';
import pino from 'pino';
import { Subject } from 'rxjs';
import { ManualClock } from '../../../src/base/index.js';
import { ControllerShell, watchKind, type KeyRequest, type Watch } from '../../../src/controller/index.js';
import { ApiError, type KubeObject } from '../../../src/kube/index.js';
import { createMetrics, type Metrics } from '../../../src/metrics/index.js';
import { reconcileLimits } from '../../../src/base/index.js';
import { ReconcileLimiter, type ReconcileResult } from '../../../src/queue/index.js';
import { FakeInformers, until } from '../fakes/index.js';

const THING = { apiVersion: 'example.org/v1', kind: 'Thing' };
const OTHER = { apiVersion: 'example.org/v1', kind: 'Other' };

function thing(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return { ...THING, metadata: { name, namespace: 'default' }, ...extra };
}

interface World {
  informers: FakeInformers;
  clock: ManualClock;
  metrics: Metrics;
  limiter: ReconcileLimiter;
  logs: Record<string, unknown>[];
  reconciled: string[];
}

function world(rate = 100): World {
  const clock = new ManualClock();
  return {
    informers: new FakeInformers(),
    clock,
    metrics: createMetrics({ processMetrics: false }),
    limiter: new ReconcileLimiter(reconcileLimits(rate).reconciles, clock),
    logs: [],
    reconciled: [],
  };
}

function shell(
  w: World,
  options: {
    name?: string;
    watches: Watch[];
    reconcile?: (key: string) => Promise<ReconcileResult>;
    ready?: () => void;
  },
): ControllerShell {
  const logger = pino({ level: 'debug' }, { write: (line: string) => w.logs.push(JSON.parse(line) as never) });
  return new ControllerShell({
    name: options.name ?? 'things/things.example.org',
    informers: w.informers.registry,
    metrics: w.metrics,
    settings: { reconcileLimiter: w.limiter, workers: 2 },
    logger,
    clock: w.clock,
    watches: options.watches,
    reconcile: (key) => {
      w.reconciled.push(key);
      return options.reconcile?.(key) ?? Promise.resolve({});
    },
    errors: { keyField: 'thing' },
    ready: options.ready,
  });
}

/** Lets promise callbacks and queued work run; no timer is waited for. */
async function ticks(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('controller/ControllerShell', () => {
  it('reconciles what the cache held before it started, once, and then every change', async () => {
    const w = world();
    const informer = w.informers.informer(THING.apiVersion, THING.kind);
    informer.seed(thing('a'));
    informer.seed(thing('b'));
    const controller = shell(w, { watches: [watchKind({ kind: THING })] });
    await controller.start(new AbortController().signal);
    await until(() => w.reconciled.length === 2, 'the cached objects are reconciled');
    informer.update(thing('a', { spec: { size: 2 } }));
    await until(() => w.reconciled.length === 3, 'the change is reconciled');
    expect(w.reconciled).to.deep.equal(['default/a', 'default/b', 'default/a']);
    await controller.stop(AbortSignal.timeout(1_000));
    expect(w.informers.held(THING.apiVersion, THING.kind), 'the lease is released').to.equal(0);
  });

  it('maps events through each watch, and starts no worker before every cache synced and ready ran', async () => {
    const w = world();
    const things = w.informers.informer(THING.apiVersion, THING.kind, false);
    const steps: string[] = [];
    const controller = shell(w, {
      watches: [
        watchKind({ kind: THING }),
        // An Other names the Thing it concerns in its spec; deletes concern nobody.
        watchKind<KubeObject & { spec?: { thing?: string } }>({
          kind: OTHER,
          keys: (event) => (event.type === 'delete' ? [] : [`default/${event.object.spec?.thing ?? ''}`]),
        }),
      ],
      ready: () => steps.push(`ready after ${w.reconciled.length} reconciles`),
    });
    const started = controller.start(new AbortController().signal);
    things.add(thing('a'));
    w.informers.informer(OTHER.apiVersion, OTHER.kind).add({
      ...OTHER,
      metadata: { name: 'o', namespace: 'default' },
      spec: { thing: 'b' },
    });
    await ticks();
    expect(steps, 'ready waits for the sync').to.deep.equal([]);
    expect(w.reconciled, 'no worker runs before the sync').to.deep.equal([]);
    things.sync();
    await started;
    await until(() => w.reconciled.length === 2, 'both keys are reconciled');
    expect(steps).to.deep.equal(['ready after 0 reconciles']);
    expect([...w.reconciled].sort()).to.deep.equal(['default/a', 'default/b']);
    await controller.stop(AbortSignal.timeout(1_000));
  });

  it('stops waiting for a first list that never comes when its start is aborted', async () => {
    const w = world();
    w.informers.informer(THING.apiVersion, THING.kind, false);
    const controller = shell(w, { watches: [watchKind({ kind: THING })] });
    const abort = new AbortController();
    let started = false;
    const start = controller.start(abort.signal).then(() => (started = true));
    await ticks();
    expect(started, 'waits for the first list').to.equal(false);
    abort.abort();
    await start;
    await controller.stop(AbortSignal.timeout(1_000));
  });

  it('takes keys from a stream, now or after a delay on its clock', async () => {
    const w = world();
    const keys = new Subject<KeyRequest>();
    const controller = shell(w, { watches: [{ keys$: keys }] });
    await controller.start(new AbortController().signal);
    keys.next('default/now');
    keys.next({ key: 'default/later', afterMs: 5_000 });
    await until(() => w.reconciled.length === 1, 'the key asked for now is reconciled');
    expect(controller.stats().waiting, 'the delayed key waits for its time').to.equal(1);
    w.clock.advance(5_000);
    await until(() => w.reconciled.length === 2, 'the delayed key is reconciled');
    expect(w.reconciled).to.deep.equal(['default/now', 'default/later']);
    await controller.stop(AbortSignal.timeout(1_000));
  });

  it('logs a mapping that throws and goes on with the next event', async () => {
    const w = world();
    const informer = w.informers.informer(THING.apiVersion, THING.kind);
    const controller = shell(w, {
      watches: [
        watchKind({
          kind: THING,
          keys: (event) => {
            if (event.object.metadata.name === 'bad') throw new Error('no key for this one');
            return [event.object.metadata.name];
          },
        }),
      ],
    });
    await controller.start(new AbortController().signal);
    informer.add(thing('bad'));
    informer.add(thing('good'));
    await until(() => w.reconciled.length === 1, 'the good event is reconciled');
    expect(w.reconciled).to.deep.equal(['good']);
    const line = w.logs.find((l) => l.msg === 'cannot map a watch event to keys; event ignored');
    expect(line, 'the failing mapping is logged').to.include({
      controller: 'things/things.example.org',
      source: 'Thing',
      object: 'default/bad',
      err: 'no key for this one',
    });
    await controller.stop(AbortSignal.timeout(1_000));
  });

  it('logs a failed reconcile under its key field and backs off; a conflict retries at once and quietly', async () => {
    const w = world();
    let conflicts = 1;
    const keys = new Subject<KeyRequest>();
    const controller = shell(w, {
      watches: [{ keys$: keys }],
      reconcile: (key) => {
        if (key === 'conflict' && conflicts-- > 0) return Promise.reject(new ApiError(409, 'Conflict', 'stale'));
        if (key === 'broken') return Promise.reject(new Error('cannot frob: no frobber'));
        return Promise.resolve({});
      },
    });
    await controller.start(new AbortController().signal);
    keys.next('conflict');
    keys.next('broken');
    await until(() => w.reconciled.filter((k) => k === 'conflict').length === 2, 'the conflict is retried');
    expect(controller.stats().waiting, 'the failure waits for its backoff').to.equal(1);
    const failures = w.logs.filter((l) => l.msg === 'reconcile failed; backing off');
    expect(failures).to.have.length(1);
    expect(failures[0]).to.include({
      level: 30,
      controller: 'things/things.example.org',
      thing: 'broken',
      err: 'cannot frob: no frobber',
    });
    await controller.stop(AbortSignal.timeout(1_000));
  });

  it('lets go of the leases it took when a kind cannot be watched', async () => {
    const w = world();
    w.informers.unserved.add(`${OTHER.apiVersion}/${OTHER.kind}`);
    const controller = shell(w, { watches: [watchKind({ kind: THING }), watchKind({ kind: OTHER })] });
    let failed: unknown;
    await controller.start(new AbortController().signal).catch((err: unknown) => (failed = err));
    expect(failed).to.be.instanceOf(Error);
    expect(w.informers.held(THING.apiVersion, THING.kind)).to.equal(0);
    await controller.stop(AbortSignal.timeout(1_000));
  });

  it('passes every reconcile of every controller built on the same settings through the one limiter', async () => {
    // Rate 0.1: a burst of one token, the next one 10 s later.
    const w = world(0.1);
    const a = new Subject<KeyRequest>();
    const b = new Subject<KeyRequest>();
    const first = shell(w, { name: 'first/things.example.org', watches: [{ keys$: a }] });
    const second = shell(w, { name: 'second/things.example.org', watches: [{ keys$: b }] });
    await first.start(new AbortController().signal);
    await second.start(new AbortController().signal);
    a.next('a');
    b.next('b');
    await until(() => w.reconciled.length === 1, 'the first controller takes the only token');
    expect(w.limiter.waiting, 'the second controller waits for the same limiter').to.equal(1);
    w.clock.advance(10_000);
    await until(() => w.reconciled.length === 2, 'the second controller gets the next token');
    expect(w.reconciled).to.deep.equal(['a', 'b']);
    await first.stop(AbortSignal.timeout(1_000));
    await second.stop(AbortSignal.timeout(1_000));
  });
});
