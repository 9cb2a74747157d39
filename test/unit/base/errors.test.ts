import { expect } from 'chai';
import { errorMessage } from '../../../src/base/index.js';

describe('base/errorMessage', () => {
  const cases: Record<string, { reason: string; err: unknown; cause?: boolean; want: string }> = {
    error: { reason: "an Error's message", err: new Error('boom'), want: 'boom' },
    status: {
      reason: 'an Error-like object, as a watch ERROR event carries a Status',
      err: { kind: 'Status', message: 'too old resource version' },
      want: 'too old resource version',
    },
    value: { reason: 'anything else as a string', err: 42, want: '42' },
    withoutCause: {
      reason: 'the cause only when asked for',
      err: new Error('fetch failed', { cause: new Error('ECONNREFUSED') }),
      want: 'fetch failed',
    },
    withCause: {
      reason: 'the cause appended after a colon',
      err: new Error('fetch failed', { cause: new Error('ECONNREFUSED') }),
      cause: true,
      want: 'fetch failed: ECONNREFUSED',
    },
  };
  for (const [name, { reason, err, cause, want }] of Object.entries(cases)) {
    it(name, () => {
      expect(errorMessage(err, { cause }), reason).to.equal(want);
    });
  }
});
