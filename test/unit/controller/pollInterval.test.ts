import { expect } from 'chai';
import { effectivePollInterval, POLL_INTERVAL_ANNOTATION, withJitter } from '../../../src/controller/index.js';

const flags = { pollIntervalMs: 60_000, minPollIntervalMs: 1_000 };

describe('controller/effectivePollInterval', () => {
  const cases: Record<string, { value: string | undefined; ms: number; text: string; source: string }> = {
    'no annotation uses --poll-interval': { value: undefined, ms: 60_000, text: '1m0s', source: 'default' },
    'a Go duration is used as is': { value: '10s', ms: 10_000, text: '10s', source: 'annotation' },
    'a compound duration': { value: '1m30s', ms: 90_000, text: '1m30s', source: 'annotation' },
    'below the minimum clamps up': { value: '100ms', ms: 1_000, text: '1s', source: 'clamped' },
    '0s means the minimum': { value: '0s', ms: 1_000, text: '1s', source: 'clamped' },
    'garbage falls back': { value: 'abc', ms: 60_000, text: '1m0s', source: 'invalid' },
    'days are not Go syntax and fall back': { value: '1d', ms: 60_000, text: '1m0s', source: 'invalid' },
    'negative falls back': { value: '-5s', ms: 60_000, text: '1m0s', source: 'invalid' },
    "past Go's longest duration falls back": {
      value: '99999999999999999999h',
      ms: 60_000,
      text: '1m0s',
      source: 'invalid',
    },
    'a month is a valid interval (timers clamp it, see base/clock)': {
      value: '720h',
      ms: 2_592_000_000,
      text: '720h0m0s',
      source: 'annotation',
    },
  };
  for (const [reason, { value, ms, text, source }] of Object.entries(cases)) {
    it(reason, () => {
      const annotations: Record<string, string> = value === undefined ? {} : { [POLL_INTERVAL_ANNOTATION]: value };
      const got = effectivePollInterval(annotations, flags);
      expect(got).to.include({ ms, text, source });
      expect(got.invalidValue).to.equal(source === 'invalid' ? value : undefined);
    });
  }
});

describe('controller/withJitter', () => {
  it('stays within +/-10%', () => {
    expect(withJitter(10_000, () => 0)).to.equal(9_000);
    expect(withJitter(10_000, () => 0.5)).to.equal(10_000);
    expect(withJitter(10_000, () => 0.999_999)).to.be.within(10_999, 11_000);
  });
});
