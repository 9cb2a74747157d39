import { expect } from 'chai';
import { repeat, sleepOn, type Clock } from '../../../src/base/index.js';
import { ClientRateLimiter, clientRateFor } from '../../../src/kube/index.js';

/** A clock at `now()` whose timers fire at once, recording how long each would have waited. */
function recordingClock(now: () => number, waits: number[]): Clock {
  const clock: Clock = {
    now,
    setTimer: (callback, delayMs) => {
      waits.push(delayMs);
      callback();
      return { cancel: () => undefined };
    },
    setInterval: (callback, intervalMs) => repeat(clock, callback, intervalMs),
    sleep: (ms, signal) => sleepOn(clock, ms, signal),
  };
  return clock;
}

describe('kube/ClientRateLimiter', () => {
  it('derives qps 5N and burst 10N from --max-reconcile-rate', () => {
    expect(clientRateFor(10)).to.deep.equal({ perSecond: 50, burst: 100 });
  });

  it('lets a burst through at once, then spaces requests 1/qps apart, in order', async () => {
    let now = 0;
    const waits: number[] = [];
    const limiter = new ClientRateLimiter(
      clientRateFor(1),
      recordingClock(() => now, waits),
    );
    for (let i = 0; i < 10; i++) await limiter.wait();
    expect(waits).to.deep.equal([]);
    for (let i = 0; i < 3; i++) await limiter.wait();
    expect(waits).to.deep.equal([200, 400, 600]);
    // A second later five tokens are back, of which three were promised: two requests go at once.
    now = 1_000;
    waits.length = 0;
    await limiter.wait();
    await limiter.wait();
    await limiter.wait();
    expect(waits).to.deep.equal([200]);
  });

  it('lets 10N + 5N per second through in a saturated minute (N = 10: 100 + 2,999 requests start before 60 s)', async () => {
    const waits: number[] = [];
    const limiter = new ClientRateLimiter(
      clientRateFor(10),
      recordingClock(() => 0, waits),
    );
    for (let i = 0; i < 5_000; i++) await limiter.wait();
    const startedWithinMinute = 5_000 - waits.filter((ms) => ms >= 60_000).length;
    expect(startedWithinMinute).to.equal(3_099);
  });

  it('gives a separate budget the same limits and a full bucket of its own', async () => {
    const waits: number[] = [];
    const limiter = new ClientRateLimiter(
      clientRateFor(1),
      recordingClock(() => 0, waits),
    );
    for (let i = 0; i < 11; i++) await limiter.wait();
    expect(waits, 'the first budget is spent').to.deep.equal([200]);
    const separate = limiter.separate();
    waits.length = 0;
    for (let i = 0; i < 10; i++) await separate.wait();
    expect(waits, 'the separate budget starts full').to.deep.equal([]);
    await separate.wait();
    expect(waits, 'and refills at the same rate').to.deep.equal([200]);
  });
});
