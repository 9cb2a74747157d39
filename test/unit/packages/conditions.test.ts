import { expect } from 'chai';
import { runtime } from '../../../src/packages/conditions.js';

describe('packages/conditions', () => {
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
