import { expect } from 'chai';
import { formatDuration, InvalidDurationError, parseDuration } from '../../../src/apis/index.js';

describe('apis/duration', () => {
  describe('parseDuration', () => {
    const valid: Record<string, { reason: string; want: number }> = {
      '500ms': { reason: 'milliseconds', want: 500 },
      '30s': { reason: 'seconds', want: 30_000 },
      '1m30s': { reason: 'compound units', want: 90_000 },
      '1h': { reason: 'hours', want: 3_600_000 },
      '1.5h': { reason: 'fractions, as Go accepts', want: 5_400_000 },
      '0': { reason: 'bare zero, as Go accepts', want: 0 },
      '0s': { reason: 'zero with a unit', want: 0 },
      '2h45m': { reason: 'hours and minutes', want: 9_900_000 },
      '1500us': { reason: 'microseconds truncate to milliseconds', want: 1 },
      '2562047h': { reason: "just within Go's longest duration (2^63-1 ns)", want: 9_223_369_200_000 },
    };
    for (const [text, { reason, want }] of Object.entries(valid)) {
      it(`parses ${text} (${reason})`, () => {
        expect(parseDuration(text), reason).to.equal(want);
      });
    }

    const invalid: Record<string, string> = {
      abc: 'not a number',
      '': 'empty',
      '5': 'a number without a unit (Go rejects it)',
      '1d': 'days are not a Go unit',
      '1w': 'weeks are not a Go unit',
      '1m 30s': 'spaces are not Go syntax',
      ' 5s': 'leading space',
      '1.s.': 'malformed number',
      '2562048h': "past Go's longest duration (ParseDuration overflows)",
      '99999999999999999999h': 'far past it',
      [`${'9'.repeat(400)}h`]: 'a number past a double',
    };
    for (const [text, reason] of Object.entries(invalid)) {
      it(`rejects ${JSON.stringify(text.slice(0, 24))} (${reason})`, () => {
        expect(() => parseDuration(text), reason).to.throw(InvalidDurationError);
      });
    }
  });

  it('rejects a 200,000-character value in linear time', () => {
    const started = performance.now();
    expect(() => parseDuration(`${'1'.repeat(200_000)}x`)).to.throw(InvalidDurationError);
    expect(() => parseDuration(`${'1h'.repeat(100_000)}x`)).to.throw(InvalidDurationError);
    expect(performance.now() - started).to.be.below(500);
  });

  describe('formatDuration', () => {
    const cases: Record<string, { ms: number; want: string }> = {
      zero: { ms: 0, want: '0s' },
      'sub-second': { ms: 500, want: '500ms' },
      seconds: { ms: 30_000, want: '30s' },
      'minutes and seconds': { ms: 90_000, want: '1m30s' },
      'whole minute prints 0s as Go does': { ms: 60_000, want: '1m0s' },
      'hour prints 0m0s as Go does': { ms: 3_600_000, want: '1h0m0s' },
      'fractional seconds': { ms: 1_500, want: '1.5s' },
    };
    for (const [reason, { ms, want }] of Object.entries(cases)) {
      it(`formats ${ms}ms as ${want} (${reason})`, () => {
        expect(formatDuration(ms)).to.equal(want);
      });
    }

    it('round-trips through parseDuration', () => {
      for (const ms of [0, 1, 999, 1_000, 61_500, 3_725_000]) expect(parseDuration(formatDuration(ms))).to.equal(ms);
    });
  });
});
