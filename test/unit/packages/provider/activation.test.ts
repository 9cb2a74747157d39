import { expect } from 'chai';
import { matchesActivation, planActivation } from '../../../../src/packages/provider/index.js';

// An activation policy's patterns as Go's filepath.Match reads them (apis/apiextensions/v1alpha1/mrd_policy_types.go).
describe('packages/provider/activation', () => {
  const cases: Record<string, { pattern: string; name: string; want: boolean }> = {
    everything: { pattern: '*', name: 'nopresources.nop.crossplane.io', want: true },
    suffix: { pattern: '*.nop.crossplane.io', name: 'nopresources.nop.crossplane.io', want: true },
    otherGroup: { pattern: '*.aws.crossplane.io', name: 'nopresources.nop.crossplane.io', want: false },
    exact: { pattern: 'nopresources.nop.crossplane.io', name: 'nopresources.nop.crossplane.io', want: true },
    dotIsLiteral: { pattern: 'nopresources.nop.crossplane.io', name: 'nopresourcesxnop.crossplane.io', want: false },
    question: { pattern: 'nopresource?.nop.crossplane.io', name: 'nopresources.nop.crossplane.io', want: true },
    class: { pattern: '[mn]opresources.*', name: 'nopresources.nop.crossplane.io', want: true },
    negatedClass: { pattern: '[^n]opresources.*', name: 'nopresources.nop.crossplane.io', want: false },
    escaped: { pattern: '\\*', name: 'x', want: false },
    malformed: { pattern: '[abc', name: '[abc', want: false },
    anchored: { pattern: 'nop', name: 'nopresources.nop.crossplane.io', want: false },
  };
  for (const [name, { pattern, name: mrd, want }] of Object.entries(cases)) {
    it(`matches ${name}: ${pattern} against ${mrd}`, () => {
      expect(matchesActivation(pattern, mrd)).to.equal(want);
    });
  }

  it('activates matching MRDs not yet Active, and lists every match sorted', () => {
    const plan = planActivation(
      ['*.nop.crossplane.io'],
      [
        { name: 'zs.nop.crossplane.io', state: 'Inactive' },
        { name: 'as.nop.crossplane.io', state: 'Active' },
        { name: 'buckets.aws.crossplane.io', state: 'Inactive' },
        { name: 'ms.nop.crossplane.io', state: undefined },
      ],
    );
    expect(plan).to.deep.equal({
      activate: ['zs.nop.crossplane.io', 'ms.nop.crossplane.io'],
      activated: ['as.nop.crossplane.io', 'ms.nop.crossplane.io', 'zs.nop.crossplane.io'],
    });
  });
});
