import { expect } from 'chai';
import {
  TokenBucketBreaker,
  type EventResult,
  type TokenBucketBreakerOptions,
  type Transition,
} from '../../../src/circuitbreaker/index.js';
import { createMetrics, type Metrics } from '../../../src/metrics/index.js';
import { metricValue } from '../queue/testing.js';

const CONTROLLER = 'composite/xtests.example.org';
const configMap = { kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } };

interface Harness {
  breaker: TokenBucketBreaker;
  metrics: Metrics;
  transitions: Transition[];
  clock: { now: number };
}

function harness(settings: Partial<TokenBucketBreakerOptions> = {}): Harness {
  const clock = { now: 0 };
  const metrics = createMetrics({ processMetrics: false });
  const transitions: Transition[] = [];
  const breaker = new TokenBucketBreaker({
    controller: CONTROLLER,
    metrics,
    clock: { now: () => clock.now },
    onTransition: (t) => transitions.push(t),
    ...settings,
  });
  return { breaker, metrics, transitions, clock };
}

async function counts(metrics: Metrics): Promise<Record<string, number | undefined>> {
  const events = async (result: EventResult): Promise<number | undefined> =>
    metricValue(metrics.registry, 'circuit_breaker_events_total', { controller: CONTROLLER, result });
  return {
    Allowed: await events('Allowed'),
    Dropped: await events('Dropped'),
    HalfOpenAllowed: await events('HalfOpenAllowed'),
    opens: await metricValue(metrics.registry, 'circuit_breaker_opens_total', { controller: CONTROLLER }),
    closes: await metricValue(metrics.registry, 'circuit_breaker_closes_total', { controller: CONTROLLER }),
  };
}

describe('circuitbreaker/TokenBucketBreaker', () => {
  it('allows a full burst at one instant and opens on the next event, which it drops', async () => {
    const { breaker, metrics, transitions } = harness();
    const results = Array.from({ length: 101 }, () => breaker.record('ns/xr', 1, configMap));
    expect(results.filter((r) => r === 'Allowed')).to.have.length(100);
    expect(results[100]).to.equal('Dropped');
    expect(breaker.state('ns/xr')).to.deep.include({ open: true, closesAtMs: 300_000, nextAllowedAtMs: 30_000 });
    expect(transitions).to.deep.equal([{ key: 'ns/xr', to: 'open', atMs: 0, triggeredBy: 'ConfigMap/cm (default)' }]);
    expect(await counts(metrics)).to.deep.equal({ Allowed: 100, Dropped: 1, HalfOpenAllowed: 0, opens: 1, closes: 0 });
  });

  it('refills at the refill rate', async () => {
    const { breaker, metrics, clock } = harness({ burst: 10, refillRatePerSecond: 2 });
    for (let i = 0; i < 10; i++) expect(breaker.record('ns/xr', 1, configMap)).to.equal('Allowed');
    clock.now = 1_500;
    for (let i = 0; i < 3; i++) expect(breaker.record('ns/xr', 1, configMap)).to.equal('Allowed');
    expect(breaker.record('ns/xr', 1, configMap)).to.equal('Dropped');
    expect(await counts(metrics)).to.include({ Allowed: 13, Dropped: 1, opens: 1 });
  });

  it('keeps one bucket per key', () => {
    const { breaker } = harness({ burst: 2 });
    expect([1, 2, 3].map(() => breaker.record('ns/a', 1, configMap))).to.deep.equal(['Allowed', 'Allowed', 'Dropped']);
    expect(breaker.record('ns/b', 1, configMap)).to.equal('Allowed');
    expect(breaker.state('ns/b').open).to.be.false;
  });

  it('charges the whole cost or nothing: an update needing 2 tokens with 1.5 left opens the circuit', () => {
    const { breaker, clock } = harness({ burst: 2, refillRatePerSecond: 1 });
    expect(breaker.record('ns/xr', 2, configMap)).to.equal('Allowed');
    clock.now = 1_500;
    expect(breaker.record('ns/xr', 2, configMap)).to.equal('Dropped');
    expect(breaker.state('ns/xr').open).to.be.true;
  });

  it('lets exactly one probe through per half-open interval while open, charging nothing', async () => {
    const { breaker, metrics, clock } = harness({ burst: 1 });
    breaker.record('ns/xr', 1, configMap);
    breaker.record('ns/xr', 1, configMap);
    const probes: number[] = [];
    for (clock.now = 1_000; clock.now < 300_000; clock.now += 1_000) {
      if (breaker.record('ns/xr', 1, configMap) === 'HalfOpenAllowed') probes.push(clock.now);
    }
    expect(probes).to.deep.equal([30_000, 60_000, 90_000, 120_000, 150_000, 180_000, 210_000, 240_000, 270_000]);
    expect(await counts(metrics)).to.deep.equal({
      Allowed: 1,
      Dropped: 1 + 299 - 9,
      HalfOpenAllowed: 9,
      opens: 1,
      closes: 0,
    });
  });

  it('reports the next probe time and the close time while open', () => {
    const { breaker, clock } = harness({ burst: 1, refillRatePerSecond: 0.001 });
    breaker.record('ns/xr', 1, configMap);
    clock.now = 10_000;
    breaker.record('ns/xr', 1, configMap);
    clock.now = 45_000;
    expect(breaker.record('ns/xr', 1, configMap)).to.equal('HalfOpenAllowed');
    expect(breaker.state('ns/xr')).to.deep.equal({
      open: true,
      triggeredBy: 'ConfigMap/cm (default)',
      nextAllowedAtMs: 75_000,
      closesAtMs: 310_000,
    });
  });

  it('closes when the cooldown ends with no event, returning the key to requeue', async () => {
    const { breaker, metrics, clock, transitions } = harness({ burst: 1 });
    breaker.record('ns/xr', 1, configMap);
    breaker.record('ns/xr', 1, configMap);
    expect(breaker.nextDueAt()).to.equal(300_000);
    clock.now = 299_999;
    expect(breaker.advance()).to.deep.equal([]);
    expect(breaker.state('ns/xr').open).to.be.true;
    clock.now = 300_000;
    // State reads closed at the cooldown's end even before advance runs.
    expect(breaker.state('ns/xr')).to.deep.equal({ open: false });
    expect(breaker.advance()).to.deep.equal(['ns/xr']);
    expect(breaker.advance()).to.deep.equal([]);
    expect(transitions.map((t) => [t.to, t.atMs])).to.deep.equal([
      ['open', 0],
      ['closed', 300_000],
    ]);
    expect(await counts(metrics)).to.include({ opens: 1, closes: 1 });
    // Tokens refilled while open, so the next event passes.
    expect(breaker.record('ns/xr', 1, configMap)).to.equal('Allowed');
  });

  it('an event after the cooldown closes the circuit itself, and the pending close then requeues nothing', async () => {
    const { breaker, metrics, clock } = harness({ burst: 1 });
    breaker.record('ns/xr', 1, configMap);
    breaker.record('ns/xr', 1, configMap);
    clock.now = 300_500;
    expect(breaker.record('ns/xr', 1, configMap)).to.equal('Allowed');
    expect(breaker.advance()).to.deep.equal([]);
    expect(await counts(metrics)).to.include({ opens: 1, closes: 1 });
  });

  it('reopens at once when the bucket is still short after the cooldown, and closes on time again', () => {
    const { breaker, clock } = harness({ burst: 10, refillRatePerSecond: 0.001, cooldownMs: 1_000 });
    for (let i = 0; i < 11; i++) breaker.record('ns/xr', 1, configMap);
    clock.now = 1_000;
    expect(breaker.record('ns/xr', 1, configMap)).to.equal('Dropped');
    expect(breaker.advance()).to.deep.equal([]);
    clock.now = 2_000;
    expect(breaker.advance()).to.deep.equal(['ns/xr']);
  });

  it('reset forgets the key: a full bucket again and no close-time requeue for the old circuit', async () => {
    const { breaker, clock, metrics, transitions } = harness({ burst: 1 });
    breaker.record('ns/xr', 1, configMap);
    breaker.record('ns/xr', 1, configMap);
    breaker.reset('ns/xr');
    expect(breaker.state('ns/xr')).to.deep.equal({ open: false });
    expect(breaker.record('ns/xr', 1, configMap)).to.equal('Allowed');
    clock.now = 300_000;
    expect(breaker.advance()).to.deep.equal([]);
    // A reset is not a close: no closes_total, no Normal event.
    expect(await counts(metrics)).to.deep.equal({ Allowed: 2, Dropped: 1, HalfOpenAllowed: 0, opens: 1, closes: 0 });
    expect(transitions.map((t) => t.to)).to.deep.equal(['open']);
  });

  it('forgets state idle for 24h, sweeping at most hourly, but keeps recently active and open circuits', async () => {
    const hour = 3_600_000;
    const { breaker, clock, metrics } = harness({ burst: 1, cooldownMs: 48 * hour });
    breaker.record('ns/idle', 1, configMap);
    clock.now = 2 * hour;
    breaker.record('ns/open', 1, configMap);
    breaker.record('ns/open', 1, configMap);
    clock.now = 23 * hour;
    breaker.record('ns/busy', 1, configMap);
    expect(breaker.size).to.equal(3);
    clock.now = 24 * hour;
    breaker.advance();
    expect(breaker.size).to.equal(2);
    clock.now = 30 * hour;
    breaker.advance();
    expect(breaker.size).to.equal(2);
    clock.now = 48 * hour;
    breaker.advance();
    expect(breaker.size).to.equal(1);
    expect(breaker.state('ns/open').open).to.be.true;
    expect(await counts(metrics)).to.deep.equal({ Allowed: 3, Dropped: 1, HalfOpenAllowed: 0, opens: 1, closes: 0 });
  });

  it('sweeps on the clock alone: nextDueAt includes the sweep while state is held', () => {
    const { breaker, clock } = harness();
    expect(breaker.nextDueAt()).to.equal(undefined);
    breaker.record('ns/xr', 1, configMap);
    expect(breaker.nextDueAt()).to.equal(3_600_000);
    clock.now = 25 * 3_600_000;
    breaker.advance();
    expect(breaker.size).to.equal(0);
    expect(breaker.nextDueAt()).to.equal(undefined);
  });

  it('names the source of most of the last 16 events, not merely the last one', () => {
    const { breaker, transitions } = harness({ burst: 20 });
    const noisy = { kind: 'ConfigMap', metadata: { name: 'noisy', namespace: 'team-a' } };
    const quiet = { kind: 'Bucket', metadata: { name: 'b' } };
    for (let i = 0; i < 20; i++) breaker.record('ns/xr', 1, i % 4 === 0 ? quiet : noisy);
    // The event that empties the bucket comes from the quiet source; the circuit blames the noisy one.
    expect(breaker.record('ns/xr', 1, quiet)).to.equal('Dropped');
    expect(transitions[0]?.triggeredBy).to.equal('ConfigMap/noisy (team-a)');
    expect(breaker.state('ns/xr').triggeredBy).to.equal('ConfigMap/noisy (team-a)');
  });

  it('a throwing transition hook changes nothing', () => {
    const { breaker } = harness({
      burst: 1,
      onTransition: () => {
        throw new Error('recorder down');
      },
    });
    breaker.record('ns/xr', 1, configMap);
    expect(breaker.record('ns/xr', 1, configMap)).to.equal('Dropped');
    expect(breaker.state('ns/xr').open).to.be.true;
  });
});
