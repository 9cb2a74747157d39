import { expect } from 'chai';
import { mergeConditions, sameConditions } from '../../../src/packages/conditions.js';

describe('packages/conditions', () => {
  it('rewriting a condition that holds changes nothing, though the API server returns its keys sorted', () => {
    const written = mergeConditions(
      [],
      [{ type: 'Healthy', status: 'True', reason: 'HealthyPackageRevision', message: 'in-process' }],
      '2026-01-01T00:00:00Z',
    );
    // As read back: the same fields, keys in alphabetical order.
    const read = written.map((c) => Object.fromEntries(Object.entries(c).sort(([a], [b]) => a.localeCompare(b))));
    const again = mergeConditions(
      read as typeof written,
      [{ ...written[0], lastTransitionTime: undefined } as never],
      'later',
    );
    expect(again[0]?.lastTransitionTime).to.equal('2026-01-01T00:00:00Z');
    expect(sameConditions(read as typeof written, again)).to.equal(true);
    expect(sameConditions(read as typeof written, [{ ...again[0], status: 'False' } as never])).to.equal(false);
  });
});
