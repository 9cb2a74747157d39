import { expect } from 'chai';
import { ClientRateLimiter, clientRateFor } from '../../../src/kube/index.js';

describe('kube/ClientRateLimiter', () => {
  it('derives qps 5N and burst 10N from --max-reconcile-rate', () => {
    expect(clientRateFor(10)).to.deep.equal({ perSecond: 50, burst: 100 });
  });

  it('lets a burst through at once, then spaces requests 1/qps apart, in order', async () => {
    let now = 0;
    const waits: number[] = [];
    const limiter = new ClientRateLimiter(
      clientRateFor(1),
      () => now,
      (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
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
      () => 0,
      (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    );
    for (let i = 0; i < 5_000; i++) await limiter.wait();
    const startedWithinMinute = 5_000 - waits.filter((ms) => ms >= 60_000).length;
    expect(startedWithinMinute).to.equal(3_099);
  });
});
