import { expect } from 'chai';
import { pino } from 'pino';
import { Counter, Registry } from 'prom-client';
import { IdleHeapCompactor, compactionReason, type HeapAccess, type HeapReading } from '../../../src/manager/index.js';
import { processHeap } from '../../../src/manager/idleHeap.js';
import { ManualClock } from '../../../src/base/index.js';

const MIB = 1024 * 1024;

/** A heap the test sets by hand: utilization and sizes are what the next check reads; a compaction takes 300 ms. */
class FakeHeap implements HeapAccess {
  busy = 0;
  committed = 600 * MIB;
  used = 150 * MIB;
  compactions = 0;

  constructor(readonly clock: ManualClock) {}

  utilization(): number {
    return this.busy;
  }
  heap(): { committedBytes: number; usedBytes: number } {
    return { committedBytes: this.committed, usedBytes: this.used };
  }
  compact(): void {
    this.compactions++;
    this.committed = this.used + 10 * MIB;
    this.clock.advance(300);
  }
}

describe('manager/idleHeap', () => {
  const idle: HeapReading = {
    utilization: 0.01,
    committedBytes: 600 * MIB,
    usedBytes: 150 * MIB,
    sinceLastMs: Infinity,
  };

  it('compacts an idle process that holds much more heap than it uses', () => {
    expect(compactionReason(idle)).to.equal('idle');
  });

  it('never compacts in a burst, a heap without slack, or twice within a minute', () => {
    expect(compactionReason({ ...idle, utilization: 0.6 }), 'a burst').to.equal(undefined);
    expect(compactionReason({ ...idle, committedBytes: 170 * MIB }), '20 MiB of slack').to.equal(undefined);
    expect(compactionReason({ ...idle, committedBytes: 190 * MIB }), '40 MiB of slack is worth giving back').to.equal(
      'idle',
    );
    expect(compactionReason({ ...idle, sinceLastMs: 30_000 }), '30 s after the last one').to.equal(undefined);
    expect(compactionReason({ ...idle, sinceLastMs: 60_000 }), 'a minute after the last one').to.equal('idle');
  });

  it('compacts a settled process, busy but not in a burst, only for more slack than an idle one', () => {
    const settled = { ...idle, utilization: 0.3 };
    expect(compactionReason({ ...settled, committedBytes: 190 * MIB }), '40 MiB of slack').to.equal(undefined);
    expect(compactionReason({ ...settled, committedBytes: 220 * MIB }), '70 MiB of slack').to.equal('settled');
    expect(compactionReason({ ...settled, utilization: 0.5 }), 'at the bound').to.equal('settled');
    expect(compactionReason({ ...settled, sinceLastMs: 59_000 }), 'within a minute').to.equal(undefined);
  });

  it('compacts once after a burst, then waits for the heap to grow again', () => {
    const clock = new ManualClock();
    const heap = new FakeHeap(clock);
    const compactor = new IdleHeapCompactor({ log: pino({ level: 'silent' }), access: heap, clock });

    heap.busy = 0.9;
    expect(compactor.check(), 'while converging').to.equal(false);
    heap.busy = 0.02;
    expect(compactor.check(), 'first idle check').to.equal(true);
    expect(heap.committed).to.equal(160 * MIB);

    clock.advance(120_000);
    expect(compactor.check(), 'idle again, nothing to give back').to.equal(false);
    heap.committed = 500 * MIB;
    clock.advance(10_000);
    expect(compactor.check(), 'grown back after another burst').to.equal(true);
    expect(heap.compactions).to.equal(2);
  });

  it('counts each compaction under its reason', async () => {
    const clock = new ManualClock();
    const heap = new FakeHeap(clock);
    const registry = new Registry();
    const compactions = new Counter({ name: 'c', help: 'c', labelNames: ['reason'], registers: [registry] });
    const compactor = new IdleHeapCompactor({ log: pino({ level: 'silent' }), access: heap, clock, compactions });
    heap.busy = 0.3;
    expect(compactor.check(), 'settled, 450 MiB of slack').to.equal(true);
    const values = (await compactions.get()).values.map((v) => [v.labels.reason, v.value]);
    expect(values).to.deep.equal([['settled', 1]]);
  });

  it('compacts once when it starts, start-up being done, and then only when idle a minute later', async () => {
    const clock = new ManualClock();
    const heap = new FakeHeap(clock);
    const compactor = new IdleHeapCompactor({
      log: pino({ level: 'silent' }),
      access: heap,
      clock,
      intervalMs: 3_600_000,
    });
    await compactor.start();
    try {
      expect(heap.compactions, 'at start').to.equal(1);
      heap.committed = 500 * MIB;
      heap.busy = 0.02;
      clock.advance(10_000);
      expect(compactor.check(), '10 s later, idle with slack').to.equal(false);
      clock.advance(50_000);
      expect(compactor.check(), 'a minute after start').to.equal(true);
      expect(heap.compactions).to.equal(2);
    } finally {
      await compactor.stop();
    }
  });

  it("gives back this process's unused young generation", () => {
    const access = processHeap();
    // Fill and drop ~64 MiB so the young generation grows, then compact: committed heap must shrink.
    let garbage: unknown[] = [];
    for (let i = 0; i < 400_000; i++) garbage.push({ i, text: `item-${i}`.repeat(8) });
    garbage = [];
    const before = access.heap().committedBytes;
    access.compact();
    const after = access.heap().committedBytes;
    expect(garbage).to.have.length(0);
    expect(after, `committed ${Math.round(before / MIB)} MiB before, ${Math.round(after / MIB)} MiB after`).to.be.below(
      before,
    );
  });
});
