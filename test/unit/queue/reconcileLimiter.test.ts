import { expect } from 'chai';
import { ManualClock, reconcileLimits } from '../../../src/base/index.js';
import { ReconcileLimiter, type TokenWaiter } from '../../../src/queue/index.js';
import { limiterOf } from './testing.js';

/** A queue as the limiter sees it: records each grant's name and time, and asks again while it has work. */
class FakeQueue implements TokenWaiter {
  /** Tokens it can still use; a grant past them is refused, as a stopped queue refuses. */
  constructor(
    readonly name: string,
    private readonly limiter: ReconcileLimiter,
    private readonly clock: ManualClock,
    private readonly log: string[],
    public work = Infinity,
  ) {}

  /** Takes tokens while they are there; returns how many it got at once. */
  ask(): number {
    let got = 0;
    while (this.work > 0 && this.limiter.take(this)) {
      this.work -= 1;
      got += 1;
    }
    return got;
  }

  grant(): boolean {
    if (this.work <= 0) return false;
    this.work -= 1;
    this.log.push(`${this.name}@${this.clock.now()}`);
    this.ask();
    return true;
  }
}

describe('queue/ReconcileLimiter', () => {
  it('derives every limit from --max-reconcile-rate N in one place: client 5N/10N, reconciles N/10N, 1s..60s, N workers, Normal Events N/50 burst N', () => {
    expect(reconcileLimits(10)).to.deep.equal({
      client: { perSecond: 50, burst: 100 },
      reconciles: { perSecond: 10, burst: 100 },
      backoff: { baseMs: 1_000, capMs: 60_000 },
      workers: 10,
      normalEvents: { perSecond: 0.2, burst: 10 },
    });
    expect(reconcileLimits(100).normalEvents, 'the default: 2 a second').to.deep.equal({ perSecond: 2, burst: 100 });
  });

  it('gives the burst of 10N at once, then one token per 1/N s with a single timer for the whole line', () => {
    const clock = new ManualClock();
    const limiter = limiterOf(clock, 2);
    const log: string[] = [];
    const queues = ['a', 'b', 'c'].map((name) => new FakeQueue(name, limiter, clock, log));
    expect(queues.map((q) => q.ask())).to.deep.equal([20, 0, 0]);
    expect(limiter.waiting).to.equal(3);
    expect(clock.pendingTimers()).to.equal(1);
    clock.advance(3_000);
    // Six tokens in 3 s at 2/s, round-robin in the order the queues asked.
    expect(log).to.deep.equal(['a@500', 'b@1000', 'c@1500', 'a@2000', 'b@2500', 'c@3000']);
    expect(clock.pendingTimers()).to.equal(1);
  });

  it('puts a newcomer behind the queues already waiting, never ahead of them', () => {
    const clock = new ManualClock();
    const limiter = limiterOf(clock, 1);
    const log: string[] = [];
    const storm = new FakeQueue('storm', limiter, clock, log);
    const other = new FakeQueue('other', limiter, clock, log);
    storm.ask();
    other.ask();
    clock.advance(1_500);
    const late = new FakeQueue('late', limiter, clock, log, 1);
    // The bucket holds half a token: nothing for the newcomer now, and its turn comes after both waiting queues.
    expect(late.ask()).to.equal(0);
    clock.advance(3_000);
    expect(log).to.deep.equal(['storm@1000', 'other@2000', 'storm@3000', 'late@4000']);
  });

  it('gives a token the waiter cannot use to the next in line at once, or back to the bucket', () => {
    const clock = new ManualClock();
    const limiter = limiterOf(clock, 1);
    const log: string[] = [];
    const busy = new FakeQueue('busy', limiter, clock, log);
    busy.ask();
    const stopped = new FakeQueue('stopped', limiter, clock, log, 1);
    const next = new FakeQueue('next', limiter, clock, log, 1);
    stopped.ask();
    next.ask();
    clock.advance(1_000);
    expect(log).to.deep.equal(['busy@1000']);
    stopped.work = 0; // it stopped while waiting, without cancelling
    clock.advance(1_000);
    expect(log).to.deep.equal(['busy@1000', 'next@2000']);
    // Alone and refusing: the token stays in the bucket, so a new asker gets it without waiting.
    busy.work = 0;
    clock.advance(1_000);
    expect(limiter.waiting).to.equal(0);
    expect(new FakeQueue('fresh', limiter, clock, log, 1).ask()).to.equal(1);
  });

  it('cancel takes a queue out of the line, and the last cancel disarms the timer', () => {
    const clock = new ManualClock();
    const limiter = limiterOf(clock, 1);
    const log: string[] = [];
    const a = new FakeQueue('a', limiter, clock, log);
    const b = new FakeQueue('b', limiter, clock, log);
    a.ask();
    b.ask();
    limiter.cancel(a);
    clock.advance(2_000);
    expect(log).to.deep.equal(['b@1000', 'b@2000']);
    limiter.cancel(b);
    expect(limiter.waiting).to.equal(0);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('refuses a rate or burst that would never give a token', () => {
    const clock = new ManualClock();
    expect(() => new ReconcileLimiter({ perSecond: 0, burst: 10 }, clock)).to.throw(RangeError);
    expect(() => new ReconcileLimiter({ perSecond: 1, burst: 0.5 }, clock)).to.throw(RangeError);
  });
});
