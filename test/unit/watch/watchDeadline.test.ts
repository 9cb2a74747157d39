import { expect } from 'chai';
import {
  SilenceWatchdog,
  WATCH_GRACE_MS,
  WATCH_TIMEOUT_SECONDS,
  silenceLimitMs,
  watchTimeoutSeconds,
} from '../../../src/watch/index.js';
import { ManualClock } from '../../../src/base/index.js';

function watchdog(limitMs: number): { clock: ManualClock; dog: SilenceWatchdog; fired: number[] } {
  const clock = new ManualClock();
  const fired: number[] = [];
  const dog = new SilenceWatchdog(limitMs, clock, () => fired.push(clock.now()));
  return { clock, dog, fired };
}

describe('watch/SilenceWatchdog', () => {
  it('fires once, exactly when nothing arrived for the limit', () => {
    const { clock, dog, fired } = watchdog(13_000);
    dog.start();
    clock.advance(12_999);
    expect(fired).to.deep.equal([]);
    clock.advance(1);
    expect(fired).to.deep.equal([13_000]);
    clock.advance(60_000);
    expect(fired, 'never twice').to.deep.equal([13_000]);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('counts the silence from the last activity, with one timer however many events arrive', () => {
    const { clock, dog, fired } = watchdog(10_000);
    dog.start();
    for (let i = 0; i < 100; i++) {
      clock.advance(50);
      dog.activity();
    }
    expect(clock.pendingTimers(), 'activity stores a time, it sets no timer').to.equal(1);
    // Last activity at 5 s: the first timer (due at 10 s) re-arms for the 5 s left.
    clock.advance(9_999);
    expect(fired).to.deep.equal([]);
    clock.advance(1);
    expect(fired).to.deep.equal([15_000]);
  });

  it('does nothing before start() and nothing after stop()', () => {
    const { clock, dog, fired } = watchdog(1_000);
    clock.advance(5_000);
    expect(clock.pendingTimers()).to.equal(0);
    dog.start();
    clock.advance(500);
    dog.stop();
    expect(clock.pendingTimers()).to.equal(0);
    clock.advance(5_000);
    dog.start();
    clock.advance(5_000);
    expect(fired).to.deep.equal([]);
  });
});

describe('watch/watchTimeoutSeconds', () => {
  const cases: Record<string, { reason: string; random: number; want: number }> = {
    lowest: { reason: 'random 0 asks for the minimum', random: 0, want: WATCH_TIMEOUT_SECONDS.min },
    middle: { reason: 'random 0.5 asks for the middle', random: 0.5, want: 15 },
    highest: { reason: 'random just below 1 stays below the maximum', random: 0.9999, want: 19 },
  };
  for (const [name, { reason, random, want }] of Object.entries(cases)) {
    it(name, () => {
      expect(
        watchTimeoutSeconds(() => random),
        reason,
      ).to.equal(want);
    });
  }

  it('keeps the worst-case detection of a dead watch well inside the 30 s recovery target', () => {
    expect(silenceLimitMs(WATCH_TIMEOUT_SECONDS.max)).to.equal(WATCH_TIMEOUT_SECONDS.max * 1000 + WATCH_GRACE_MS);
    expect(silenceLimitMs(WATCH_TIMEOUT_SECONDS.max)).to.be.at.most(25_000);
  });
});
