import { expect } from 'chai';
import { interval, map, Subject, take, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import {
  circuitBreaker,
  OwnWrites,
  TokenBucketBreaker,
  type TokenBucketBreakerOptions,
  type Transition,
  type WatchCause,
  type XrEvent,
} from '../../../src/circuitbreaker/index.js';
import { createMetrics, type Metrics } from '../../../src/metrics/index.js';
import { metricValue } from '../queue/testing.js';

const CONTROLLER = 'composite/circuitbreakertests.example.org';
const XR = 'default/circuit-breaker-xr';

function composed(resourceVersion: string, extra: Record<string, unknown> = {}): XrEvent['object'] {
  return {
    kind: 'ConfigMap',
    metadata: { name: 'circuit-breaker-configmap', namespace: 'default', uid: 'cm-uid', resourceVersion, ...extra },
  };
}

function event(cause: WatchCause, resourceVersion = '1', extra: Partial<XrEvent> = {}): XrEvent {
  return { xrKey: XR, cause, object: composed(resourceVersion), ...extra };
}

interface Setup {
  scheduler: TestScheduler;
  metrics: Metrics;
  transitions: Transition[];
  breaker: TokenBucketBreaker;
  ownWrites: OwnWrites;
}

function setup(settings: Partial<TokenBucketBreakerOptions> = {}): Setup {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  const metrics = createMetrics({ processMetrics: false });
  const transitions: Transition[] = [];
  const breaker = new TokenBucketBreaker({
    controller: CONTROLLER,
    metrics,
    clock: scheduler,
    onTransition: (t) => transitions.push(t),
    ...settings,
  });
  return { scheduler, metrics, transitions, breaker, ownWrites: new OwnWrites() };
}

/** n events of `cause`, 50ms apart from t=0, each a new resourceVersion (the upstream e2e's SSA loop). */
function rapid(n: number, cause: WatchCause = 'update'): Observable<XrEvent> {
  return interval(50).pipe(
    take(n),
    map((i) => event(cause, String(100 + i))),
  );
}

async function events(metrics: Metrics, result: string): Promise<number | undefined> {
  return metricValue(metrics.registry, 'circuit_breaker_events_total', { controller: CONTROLLER, result });
}

describe('circuitbreaker/circuitBreaker operator', () => {
  it('with the defaults, 60 updates of a composed resource in 3s open the circuit (upstream e2e)', async () => {
    const { scheduler, metrics, breaker } = setup();
    let passed = 0;
    scheduler.run(() => {
      rapid(60)
        .pipe(circuitBreaker({ breaker, scheduler }))
        .subscribe(() => (passed += 1));
      scheduler.schedule(() => {
        expect(breaker.state(XR).open).to.be.true;
      }, 3_000);
    });
    // Each update costs 2 of the 100 tokens (plus 1/s refill), so the 52nd update finds the bucket short.
    expect(passed).to.equal(51);
    expect(await events(metrics, 'Allowed')).to.equal(51);
    expect(await events(metrics, 'Dropped')).to.equal(9);
    expect(await metricValue(metrics.registry, 'circuit_breaker_opens_total', { controller: CONTROLLER })).to.equal(1);
  });

  it('with the defaults, 49 updates in 3s do not open it, and all 49 pass', () => {
    const { scheduler, breaker } = setup();
    let passed = 0;
    scheduler.run(() => {
      rapid(49)
        .pipe(circuitBreaker({ breaker, scheduler }))
        .subscribe(() => (passed += 1));
    });
    expect(passed).to.equal(49);
    expect(breaker.state(XR).open).to.be.false;
  });

  it('a create costs 1 token: 60 creates in 3s do not open it', () => {
    const { scheduler, breaker } = setup();
    scheduler.run(() => {
      rapid(60, 'add').pipe(circuitBreaker({ breaker, scheduler })).subscribe();
    });
    expect(breaker.state(XR).open).to.be.false;
  });

  it("echoes of compositor's own writes cost nothing and trigger no reconcile", async () => {
    const { scheduler, metrics, breaker, ownWrites } = setup();
    let passed = 0;
    scheduler.run(() => {
      // The reconciler records every write's returned resourceVersion; the informer then delivers each as an event.
      const echoes = interval(50).pipe(
        take(200),
        map((i) => {
          const written = composed(String(1_000 + i));
          ownWrites.record(written);
          return { xrKey: XR, cause: 'update' as const, object: written };
        }),
      );
      echoes.pipe(circuitBreaker({ breaker, ownWrites, scheduler })).subscribe(() => (passed += 1));
    });
    expect(passed).to.equal(0);
    expect(breaker.state(XR).open).to.be.false;
    expect(await events(metrics, 'Allowed')).to.equal(0);
  });

  it('an echo of a nested XR of the same kind still reaches the XR composing it (its news, not its own write)', () => {
    const { scheduler, breaker, ownWrites } = setup();
    ownWrites.record(composed('5'));
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('a b |', { a: event('update', '5'), b: event('update', '5', { echoMatters: true }) });
      expectObservable(source.pipe(circuitBreaker({ breaker, ownWrites, scheduler }))).toBe('- k |', { k: XR });
    });
  });

  it('an echo seen by a relist after a watch gap still reconciles: a foreign change may hide behind it', () => {
    const { scheduler, breaker, ownWrites } = setup();
    ownWrites.record(composed('5'));
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('a b |', { a: event('update', '5'), b: event('update', '5', { afterGap: true }) });
      expectObservable(source.pipe(circuitBreaker({ breaker, ownWrites, scheduler }))).toBe('- k |', { k: XR });
    });
  });

  it('an update that is not an echo costs 2 tokens even when we wrote the same object before', () => {
    const { scheduler, breaker, ownWrites } = setup({ burst: 3 });
    ownWrites.record(composed('5'));
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('a b c 1s |', { a: event('update', '5'), b: event('update', '6'), c: event('update', '7') });
      // 3 tokens: the echo is free, the next update takes 2, the one after finds 1 and opens the circuit.
      expectObservable(source.pipe(circuitBreaker({ breaker, ownWrites, scheduler }))).toBe('- k - 1s |', { k: XR });
      scheduler.schedule(() => {
        expect(breaker.state(XR).open).to.be.true;
      }, 10);
    });
  });

  it('resyncs cost nothing and trigger no reconcile', async () => {
    const { scheduler, metrics, breaker } = setup({ burst: 1 });
    scheduler.run(({ cold, expectObservable }) => {
      const resyncs = cold('a 1s a 1s a', { a: event('resync') });
      expectObservable(resyncs.pipe(circuitBreaker({ breaker, scheduler }))).toBe('-----------');
    });
    expect(await events(metrics, 'Allowed')).to.equal(0);
  });

  it('emits the key when the circuit closes at the end of the cooldown, with no event arriving then', async () => {
    const { scheduler, metrics, breaker, transitions } = setup({ burst: 2 });
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('u 9ms u 400s |', { u: event('update') });
      // The first update passes; the second finds the bucket empty, opens the circuit and is dropped; 5 minutes
      // after the opening the circuit closes by itself and the XR is requeued.
      expectObservable(source.pipe(circuitBreaker({ breaker, scheduler }))).toBe('k 300009ms k 100000ms |', { k: XR });
    });
    expect(transitions.map((t) => [t.to, t.atMs])).to.deep.equal([
      ['open', 10],
      ['closed', 300_010],
    ]);
    expect(await metricValue(metrics.registry, 'circuit_breaker_closes_total', { controller: CONTROLLER })).to.equal(1);
  });

  it('lets one probe per half-open interval through while open', () => {
    const { scheduler, breaker } = setup({ burst: 2 });
    const passedAt: number[] = [];
    scheduler.run(() => {
      interval(1_000)
        .pipe(
          take(100),
          map(() => event('update')),
          circuitBreaker({ breaker, scheduler }),
        )
        .subscribe(() => passedAt.push(scheduler.now()));
    });
    // t=1s passes, t=2s opens; probes every 30s after the opening.
    expect(passedAt).to.deep.equal([1_000, 32_000, 62_000, 92_000]);
  });

  it('deletions always pass, even while open, and touch no breaker state or metric', async () => {
    const { scheduler, metrics, breaker } = setup({ burst: 2 });
    const deleting = event('update', '9', { object: composed('9', { deletionTimestamp: '2026-01-01T00:00:00Z' }) });
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('u u d x 10ms |', { u: event('update'), d: event('delete'), x: deleting });
      expectObservable(source.pipe(circuitBreaker({ breaker, scheduler }))).toBe('k - k k 10ms |', { k: XR });
      scheduler.schedule(() => {
        expect(breaker.state(XR).open).to.be.true;
      }, 10);
    });
    expect(await events(metrics, 'Allowed')).to.equal(1);
    expect(await events(metrics, 'Dropped')).to.equal(1);
  });

  it('deleting the XR resets its circuit: a full bucket again and no requeue when the old cooldown ends', () => {
    const { scheduler, breaker } = setup({ burst: 2 });
    const xr = { kind: 'CircuitBreakerTest', metadata: { name: 'circuit-breaker-xr', namespace: 'default' } };
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('u u 1s x 1s u 400s |', {
        u: event('update'),
        x: { xrKey: XR, cause: 'delete' as const, object: xr, isXr: true },
      });
      expectObservable(source.pipe(circuitBreaker({ breaker, scheduler }))).toBe('k - 1s k 1s k 400s |', { k: XR });
    });
  });

  it('the deletion of a composed resource does not reset the XR', () => {
    const { scheduler, breaker } = setup({ burst: 2 });
    let open: boolean | undefined;
    scheduler.run(({ cold }) => {
      cold('u u d 1s |', { u: event('update'), d: event('delete') })
        .pipe(circuitBreaker({ breaker, scheduler }))
        .subscribe();
      scheduler.schedule(() => (open = breaker.state(XR).open), 10);
    });
    expect(open).to.be.true;
  });

  it('cancels its timer on unsubscribe and completes when its input does', () => {
    const { scheduler, breaker } = setup({ burst: 2 });
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold('u u 10s |', { u: event('update') });
      expectObservable(source.pipe(circuitBreaker({ breaker, scheduler })), '^ 5s !').toBe('k', { k: XR });
    });
    expect(scheduler.actions).to.have.length(0);
  });

  it('passes errors from its input through', () => {
    const { scheduler, breaker } = setup();
    scheduler.run(({ cold, expectObservable }) => {
      const source = cold<XrEvent>('#', undefined, new Error('watch failed'));
      expectObservable(source.pipe(circuitBreaker({ breaker, scheduler }))).toBe(
        '#',
        undefined,
        new Error('watch failed'),
      );
    });
  });
});

describe('circuitBreaker operator: an echo that outruns its write response', () => {
  it('holds events about an object being written, then finds the echo free and lets a foreign change through', async () => {
    const { breaker, ownWrites } = setup({ burst: 100 });
    const source = new Subject<XrEvent>();
    const passed: string[] = [];
    const subscription = source.pipe(circuitBreaker({ breaker, ownWrites })).subscribe((key) => passed.push(key));
    let respond: (written: XrEvent['object']) => void = () => undefined;
    const write = ownWrites.track(composed(''), () => new Promise<XrEvent['object']>((resolve) => (respond = resolve)));
    // The API server delivers the echo (rv 7) and then a foreign change (rv 8) before our write's response.
    source.next(event('update', '7'));
    source.next(event('update', '8'));
    expect(passed).to.deep.equal([]);
    respond(composed('7'));
    await write;
    await Promise.resolve();
    expect(passed).to.deep.equal([XR]);
    expect(ownWrites.pending(composed('9'))).to.equal(undefined);
    // The breaker's idle sweep arms a real timer; unsubscribing cancels it.
    subscription.unsubscribe();
  });
});
