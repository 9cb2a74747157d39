import { expect } from 'chai';
import { ManualClock, MAX_TIMER_DELAY_MS, monotonicClock, systemClock, waitAtMost } from '../../../src/base/index.js';

describe('base/clock timers', () => {
  // Node fires a setTimeout past 2^31-1 ms after 1 ms (with a TimeoutOverflowWarning): a queue armed for a poll
  // interval of a month would spin. Clamped, no warning is raised and the timer is simply early.
  for (const [name, clock] of Object.entries({ systemClock, monotonicClock })) {
    it(`${name} clamps a delay past setTimeout's range instead of firing at once`, async () => {
      const warnings: string[] = [];
      const onWarning = (w: Error): void => {
        warnings.push(w.name);
      };
      process.on('warning', onWarning);
      let fired = false;
      const timer = clock.setTimer(() => {
        fired = true;
      }, 30 * 86_400_000);
      // Warnings are emitted on the next tick; a timer set to 1 ms would be due after a couple of immediates.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      timer.cancel();
      process.off('warning', onWarning);
      expect(warnings).to.not.include('TimeoutOverflowWarning');
      expect(fired).to.equal(false);
      expect(MAX_TIMER_DELAY_MS).to.equal(2_147_483_647);
    });
  }
});

/** Lets settled promises run their callbacks; no time passes. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('ManualClock', () => {
  it('fires a timer when advanced to its due time, reading that time, and never after a cancel', () => {
    const clock = new ManualClock(1_000);
    const fired: number[] = [];
    clock.setTimer(() => fired.push(clock.now()), 50);
    const cancelled = clock.setTimer(() => fired.push(-1), 60);
    cancelled.cancel();
    clock.advance(49);
    expect(fired).to.deep.equal([]);
    clock.advance(100);
    expect(fired).to.deep.equal([1_050]);
    expect(clock.now()).to.equal(1_149);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('fires an interval once per interval passed, until cancelled', () => {
    const clock = new ManualClock();
    const ticks: number[] = [];
    const interval = clock.setInterval(() => ticks.push(clock.now()), 100);
    clock.advance(350);
    expect(ticks, 'each interval in the window').to.deep.equal([100, 200, 300]);
    interval.cancel();
    clock.advance(1_000);
    expect(ticks).to.deep.equal([100, 200, 300]);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('lets an interval cancel itself from its own tick', () => {
    const clock = new ManualClock();
    let ticks = 0;
    const interval = clock.setInterval(() => {
      ticks += 1;
      interval.cancel();
    }, 10);
    clock.advance(100);
    expect(ticks).to.equal(1);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('ends a sleep when advanced past it, and not before', async () => {
    const clock = new ManualClock();
    let woke = false;
    const sleeping = clock.sleep(500).then(() => (woke = true));
    clock.advance(499);
    await settle();
    expect(woke).to.equal(false);
    clock.advance(1);
    await sleeping;
    expect(woke).to.equal(true);
  });

  it('rejects a sleep with an AbortError carrying the reason when its signal aborts, and cancels its timer', async () => {
    const clock = new ManualClock();
    const abort = new AbortController();
    const sleeping = clock.sleep(500, abort.signal);
    expect(clock.pendingTimers()).to.equal(1);
    const reason = new Error('stopping');
    abort.abort(reason);
    const err = await sleeping.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error).with.property('name', 'AbortError');
    expect((err as Error).cause).to.equal(reason);
    expect(clock.pendingTimers(), 'the aborted sleep left no timer').to.equal(0);
  });

  it('rejects a sleep at once when its signal has already aborted', async () => {
    const clock = new ManualClock();
    const err = await clock.sleep(10, AbortSignal.abort()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error).with.property('name', 'AbortError');
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('waits at most the bound for work that does not finish, and no longer than the work that does', async () => {
    const clock = new ManualClock();
    let done = false;
    const waiting = waitAtMost(clock, new Promise(() => undefined), 1_000).then(() => (done = true));
    await settle();
    expect(done).to.equal(false);
    clock.advance(1_000);
    await waiting;
    await waitAtMost(clock, Promise.resolve(), 1_000);
    expect(clock.pendingTimers(), 'the bound is cancelled once the work is done').to.equal(0);
  });
});
