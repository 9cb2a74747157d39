import { expect } from 'chai';
import { mergeConditions, runtime, sameConditions } from '../../../src/packages/conditions.js';

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

  const runtimeCases: Record<
    string,
    { reason: string; choice: Parameters<typeof runtime>[0]; want: { status: string; reason: string } }
  > = {
    'a built-in': {
      reason: 'served in-process',
      choice: { builtin: 'function-auto-ready', message: 'Running in-process ...' },
      want: { status: 'True', reason: 'BuiltinFunction' },
    },
    'a package': {
      reason: 'the package runs as written',
      choice: { message: 'Running the package as written: ...' },
      want: { status: 'True', reason: 'PackageAsWritten' },
    },
    'an invalid annotation': {
      reason: 'the annotation is reported whichever way the Function runs',
      choice: { builtin: 'function-auto-ready', message: 'Running in-process ...; ...', invalidAnnotation: 'yes' },
      want: { status: 'False', reason: 'InvalidBuiltinAnnotation' },
    },
  };
  for (const [name, c] of Object.entries(runtimeCases)) {
    it(`Runtime condition of ${name}`, () => {
      expect(runtime(c.choice), c.reason).to.deep.equal({ type: 'Runtime', ...c.want, message: c.choice.message });
    });
  }
});
