// Go fmt's explicit argument indexes (fmt/print.go argNumber and doPrintf), as the string transform's Format uses
// them: `%[1]s` repeats an argument, implicit verbs continue after the last index, a bad index is BADINDEX, and an
// explicit index turns off the EXTRA report.
import { expect } from 'chai';
import { goSprintf as sprintf } from '../../../../src/functions/builtin/gofmt.js';

const cases: Record<string, { reason: string; format: string; args: unknown[]; want: string }> = {
  Repeat: {
    reason: 'One argument used twice (upbound configuration-gitops-flux)',
    format: 'flux2-%[1]s/flux2-%[1]s.tgz',
    args: ['2.10.6'],
    want: 'flux2-2.10.6/flux2-2.10.6.tgz',
  },
  ContinueAfterIndex: {
    reason: 'An implicit verb takes the argument after the last explicit one',
    format: '%[2]s-%s-%[1]s',
    args: ['a', 'b'],
    want: 'b-%!s(MISSING)-a',
  },
  BadIndex: { reason: 'An index past the arguments', format: '%[3]s', args: ['a'], want: '%!s(BADINDEX)' },
  Extra: {
    reason: 'Without an index, unused arguments are reported',
    format: '%s',
    args: ['a', 'b'],
    want: 'a%!(EXTRA string=b)',
  },
};

describe('functions/builtin sprintf argument indexes', () => {
  for (const [name, tc] of Object.entries(cases)) {
    it(name, () => expect(sprintf(tc.format, tc.args), tc.reason).to.equal(tc.want));
  }
});
