import { expect } from 'chai';
import { ManualClock } from '../../../src/base/index.js';
import { ConnectionHealth } from '../../../src/kube/index.js';

/** A health check on a ManualClock whose probes the test answers by hand; verdicts run at once (no deferral). */
function harness(): {
  clock: ManualClock;
  health: ConnectionHealth;
  probes: { resolve: () => void; reject: (err: Error) => void; signal: AbortSignal }[];
  deaths: () => number;
} {
  const clock = new ManualClock();
  const probes: { resolve: () => void; reject: (err: Error) => void; signal: AbortSignal }[] = [];
  let deaths = 0;
  const health = new ConnectionHealth({
    readIdleMs: 2_000,
    pingTimeoutMs: 1_000,
    clock,
    probe: (signal) =>
      new Promise<void>((resolve, reject) => {
        probes.push({ resolve, reject, signal });
      }),
    onDead: () => {
      deaths++;
    },
    defer: (fn) => {
      fn();
    },
  });
  return { clock, health, probes, deaths: () => deaths };
}

/** Lets the probe's promise callbacks run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('kube/ConnectionHealth', () => {
  it('sends nothing while no stream is open, however long', () => {
    const { clock, probes } = harness();
    clock.advance(600_000);
    expect(probes).to.have.length(0);
  });

  it('sends nothing while reads keep coming', () => {
    const { clock, health, probes } = harness();
    health.open();
    for (let i = 0; i < 100; i++) {
      clock.advance(1_500);
      health.read();
    }
    expect(probes).to.have.length(0);
  });

  it('probes once per read idle period while open streams are silent, and stays alive when answered', async () => {
    const { clock, health, probes, deaths } = harness();
    health.open();
    clock.advance(1_999);
    expect(probes, 'before the read idle time').to.have.length(0);
    clock.advance(1);
    expect(probes).to.have.length(1);
    probes[0]?.resolve();
    await settle();
    clock.advance(1_999);
    expect(probes, 'the answer counts as a read').to.have.length(1);
    clock.advance(1);
    expect(probes).to.have.length(2);
    expect(deaths()).to.equal(0);
  });

  it('declares the connection dead once when a probe goes unanswered past its timeout', () => {
    const { clock, health, probes, deaths } = harness();
    health.open();
    health.open();
    clock.advance(2_000);
    clock.advance(999);
    expect(deaths()).to.equal(0);
    clock.advance(1);
    expect(deaths()).to.equal(1);
    expect(health.isDead).to.equal(true);
    expect(probes[0]?.signal.aborted, 'the probe is abandoned').to.equal(true);
    clock.advance(60_000);
    expect(probes, 'no probe after death').to.have.length(1);
    expect(deaths()).to.equal(1);
  });

  it('declares the connection dead when a probe fails outright', async () => {
    const { clock, health, probes, deaths } = harness();
    health.open();
    clock.advance(2_000);
    probes[0]?.reject(new Error('connection reset'));
    await settle();
    expect(deaths()).to.equal(1);
  });

  it('drops a probe in flight when the last stream closes, and gives no verdict', async () => {
    const { clock, health, probes, deaths } = harness();
    const close = health.open();
    clock.advance(2_000);
    close();
    close();
    expect(probes[0]?.signal.aborted).to.equal(true);
    probes[0]?.reject(new Error('aborted'));
    await settle();
    clock.advance(60_000);
    expect(deaths()).to.equal(0);
    expect(probes).to.have.length(1);
  });

  it('waits one turn before the verdict, so a reply read in the same turn as the timer counts', async () => {
    const clock = new ManualClock();
    const deferred: (() => void)[] = [];
    let answer: (() => void) | undefined;
    let deaths = 0;
    const health = new ConnectionHealth({
      readIdleMs: 2_000,
      pingTimeoutMs: 1_000,
      clock,
      probe: () =>
        new Promise<void>((resolve) => {
          answer = resolve;
        }),
      onDead: () => {
        deaths++;
      },
      defer: (fn) => deferred.push(fn),
    });
    health.open();
    clock.advance(3_000);
    answer?.();
    await settle();
    for (const fn of deferred) fn();
    expect(deaths).to.equal(0);
  });

  it('stop() ends checking for good', () => {
    const { clock, health, probes } = harness();
    health.open();
    health.stop();
    clock.advance(60_000);
    expect(probes).to.have.length(0);
  });
});
