import { expect } from 'chai';
import { ManualClock } from '../../../src/base/index.js';
import {
  ConnectionCheck,
  DEFAULT_PROBE_GRACE_MS,
  DEFAULT_READ_IDLE_MS,
  DEFAULT_ROUND_TIMEOUT_MS,
  DEFAULT_VERDICT_DELAY_MS,
} from '../../../src/kube/connectionCheck.js';

/** A probe the test answers (or never answers) by hand; records the signal it was given. */
class Probe {
  calls = 0;
  signal: AbortSignal | undefined;
  private answer: (() => void) | undefined;
  readonly run = (signal: AbortSignal): Promise<void> => {
    this.calls++;
    this.signal = signal;
    return new Promise((resolve) => (this.answer = resolve));
  };
  reply(): void {
    this.answer?.();
  }
}

/** Lets the probes' promise callbacks run (they are microtasks; the clock is virtual). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setUp(): { clock: ManualClock; pool: Probe; fresh: Probe; check: ConnectionCheck; dead: () => number } {
  const clock = new ManualClock();
  const pool = new Probe();
  const fresh = new Probe();
  let deaths = 0;
  const check = new ConnectionCheck({
    clock,
    probePool: pool.run,
    probeFresh: fresh.run,
    onDead: () => deaths++,
  });
  return { clock, pool, fresh, check, dead: () => deaths };
}

describe('kube/ConnectionCheck', () => {
  it('sends nothing while no request waits, however long the pool is silent', () => {
    const { clock, pool, fresh, check } = setUp();
    clock.advance(10 * DEFAULT_READ_IDLE_MS);
    check.opened();
    check.closed();
    clock.advance(10 * DEFAULT_READ_IDLE_MS);
    expect(pool.calls + fresh.calls).to.equal(0);
    expect(clock.nextTimerAt(), 'no timer left behind').to.equal(undefined);
  });

  it('sends nothing while responses keep arriving on the pool', () => {
    const { clock, pool, check } = setUp();
    check.opened();
    for (let i = 0; i < 20; i++) {
      clock.advance(DEFAULT_READ_IDLE_MS / 2);
      check.read();
    }
    expect(pool.calls).to.equal(0);
  });

  it('condemns a silent pool when a new connection answers and the pool does not', async () => {
    const { clock, pool, fresh, check, dead } = setUp();
    check.opened();
    clock.advance(DEFAULT_READ_IDLE_MS);
    expect([pool.calls, fresh.calls], 'both probed after the read idle time').to.deep.equal([1, 1]);
    clock.advance(50);
    fresh.reply();
    await settle();
    clock.advance(DEFAULT_PROBE_GRACE_MS - 50 - 1);
    expect(dead(), 'the pool gets its grace first').to.equal(0);
    clock.advance(1);
    expect(dead()).to.equal(1);
    expect(check.isDead).to.equal(true);
    expect(pool.signal?.aborted, 'the pool probe is given up').to.equal(true);
    clock.advance(10 * DEFAULT_READ_IDLE_MS);
    expect([pool.calls, dead()], 'stopped for good').to.deep.equal([1, 1]);
  });

  it('waits a little after a late fresh answer, for the pool answer read in the same turn', async () => {
    const { clock, pool, fresh, check, dead } = setUp();
    check.opened();
    clock.advance(DEFAULT_READ_IDLE_MS);
    clock.advance(3_000);
    fresh.reply();
    await settle();
    pool.reply();
    await settle();
    clock.advance(DEFAULT_VERDICT_DELAY_MS);
    expect(dead()).to.equal(0);
  });

  it('keeps a pool that answers its probe, and checks again after the next silence', async () => {
    const { clock, pool, fresh, check, dead } = setUp();
    check.opened();
    clock.advance(DEFAULT_READ_IDLE_MS);
    pool.reply();
    await settle();
    fresh.reply();
    await settle();
    clock.advance(DEFAULT_ROUND_TIMEOUT_MS);
    expect(dead()).to.equal(0);
    expect(pool.calls, 'a second round after another silence').to.equal(2);
  });

  it('keeps a pool on which another response arrived during the round', async () => {
    const { clock, fresh, check, dead } = setUp();
    check.opened();
    clock.advance(DEFAULT_READ_IDLE_MS);
    clock.advance(100);
    check.read();
    fresh.reply();
    await settle();
    clock.advance(DEFAULT_PROBE_GRACE_MS);
    expect(dead()).to.equal(0);
  });

  it('condemns nothing when neither answers (the server is down, not the connection)', () => {
    const { clock, pool, check, dead } = setUp();
    check.opened();
    clock.advance(DEFAULT_READ_IDLE_MS + DEFAULT_ROUND_TIMEOUT_MS);
    expect(dead()).to.equal(0);
    expect(pool.signal?.aborted, 'the round given up').to.equal(true);
    clock.advance(DEFAULT_READ_IDLE_MS);
    expect(pool.calls, 'tried again while requests still wait').to.equal(2);
  });

  it('ends the round when the last request ends', () => {
    const { clock, pool, check } = setUp();
    check.opened();
    clock.advance(DEFAULT_READ_IDLE_MS);
    check.closed();
    expect(pool.signal?.aborted).to.equal(true);
    expect(clock.nextTimerAt()).to.equal(undefined);
  });
});
