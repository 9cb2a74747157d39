import { expect } from 'chai';
import { ManualClock } from '../../../src/base/index.js';
import {
  deadlineAfter,
  DeadlineError,
  startInOrder,
  startOrRelease,
  stopInReverse,
  type Lifecycle,
} from '../../../src/lifecycle/index.js';

/** A part that records its starts and stops in a shared log, and fails to start or stop when told to. */
function part(name: string, log: string[], fail: { start?: boolean; stop?: boolean } = {}): Lifecycle {
  return {
    start: () => {
      log.push(`start ${name}`);
      return fail.start ? Promise.reject(new Error(`cannot start ${name}`)) : Promise.resolve();
    },
    stop: (deadline) => {
      log.push(`stop ${name}${deadline.aborted ? ' at once' : ''}`);
      return fail.stop ? Promise.reject(new Error(`cannot stop ${name}`)) : Promise.resolve();
    },
  };
}

describe('lifecycle/sequence', () => {
  const signal = new AbortController().signal;

  it('startOrRelease stops a part whose start failed, at once, and rethrows the start error', async () => {
    const log: string[] = [];
    const error = await startOrRelease(part('a', log, { start: true, stop: true }), signal).catch((e: unknown) => e);
    expect((error as Error).message).to.equal('cannot start a');
    expect(log).to.deep.equal(['start a', 'stop a at once']);
  });

  it('startOrRelease leaves a part that started running', async () => {
    const log: string[] = [];
    await startOrRelease(part('a', log), signal);
    expect(log).to.deep.equal(['start a']);
  });

  it('startInOrder stops the failed part and those before it, in reverse, and none after it', async () => {
    const log: string[] = [];
    const parts = [part('a', log), part('b', log), part('c', log, { start: true }), part('d', log)];
    const error = await startInOrder(parts, signal).catch((e: unknown) => e);
    expect((error as Error).message).to.equal('cannot start c');
    expect(log).to.deep.equal(['start a', 'start b', 'start c', 'stop c at once', 'stop b at once', 'stop a at once']);
  });

  it('stopInReverse asks every part with the one deadline and rethrows the first failure', async () => {
    const log: string[] = [];
    const parts = [part('a', log), part('b', log, { stop: true }), part('c', log, { stop: true })];
    const error = await stopInReverse(parts, AbortSignal.abort()).catch((e: unknown) => e);
    expect((error as Error).message).to.equal('cannot stop c');
    expect(log).to.deep.equal(['stop c at once', 'stop b at once', 'stop a at once']);
  });

  it('deadlineAfter aborts on the injected clock, with a DeadlineError', () => {
    const clock = new ManualClock();
    const deadline = deadlineAfter(5_000, clock);
    clock.advance(4_999);
    expect(deadline.aborted).to.be.false;
    clock.advance(1);
    expect(deadline.aborted).to.be.true;
    expect(deadline.reason).to.be.instanceOf(DeadlineError);
  });
});
