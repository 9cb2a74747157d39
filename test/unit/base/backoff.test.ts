import { expect } from 'chai';
import { backoffDelay, type Backoff } from '../../../src/base/index.js';

const cases: Record<string, { reason: string; backoff: Backoff; attempts: number; random?: number; want: number[] }> = {
  queue: {
    reason: "the work queue: 1 s doubling to 60 s, as Crossplane's controllers",
    backoff: { baseMs: 1_000, capMs: 60_000 },
    attempts: 8,
    want: [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000],
  },
  grpc: {
    reason: 'the gRPC runner: 100 ms doubling to 2 s',
    backoff: { baseMs: 100, capMs: 2_000 },
    attempts: 7,
    want: [100, 200, 400, 800, 1_600, 2_000, 2_000],
  },
  critical: {
    reason: "critical annotation writes: client-go's DefaultBackoff, x5, capped at 1 s",
    backoff: { baseMs: 10, capMs: 1_000, factor: 5 },
    attempts: 4,
    want: [10, 50, 250, 1_000],
  },
  jitterLow: {
    reason: 'informer relists with equal jitter: half of each step is fixed',
    backoff: { baseMs: 500, capMs: 30_000, jitter: 0.5 },
    attempts: 3,
    random: 0,
    want: [250, 500, 1_000],
  },
  jitterHigh: {
    reason: 'and the other half random, up to the whole step',
    backoff: { baseMs: 500, capMs: 30_000, jitter: 0.5 },
    attempts: 3,
    random: 0.999_999,
    want: [500, 1_000, 2_000],
  },
};

describe('base/backoffDelay', () => {
  for (const [name, { reason, backoff, attempts, random, want }] of Object.entries(cases)) {
    it(name, () => {
      const delays = Array.from({ length: attempts }, (_, attempt) =>
        backoffDelay(backoff, attempt, () => random ?? 0),
      );
      expect(delays, reason).to.deep.equal(want);
    });
  }

  it('stays at the cap after very many attempts', () => {
    expect(backoffDelay({ baseMs: 5, capMs: 1_000 }, 5_000)).to.equal(1_000);
  });
});
