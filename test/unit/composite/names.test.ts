import { expect } from 'chai';
import { childName } from '../../../src/composite/index.js';

describe('composite/childName', () => {
  const uid = '75e4a668-035f-4ce8-8c45-f4d3ac850155';
  const cases: Record<string, { parent: string; child: string; want: string }> = {
    'prefix ending in a hyphen': { parent: 'my-app-', child: 'database', want: 'my-app-38ce86992a27' },
    'prefix without a hyphen gets one': { parent: 'my-app', child: 'database', want: 'my-app-38ce86992a27' },
    'empty prefix is the suffix alone': { parent: '', child: 'database', want: '38ce86992a27' },
    'long prefix is cut to 50 plus a hyphen': {
      parent: 'very-long-parent-name-without-ending-hyphenvery-long-parent-name-without-ending-hyphen',
      child: 'database',
      want: 'very-long-parent-name-without-ending-hyphenvery-lo-38ce86992a27',
    },
  };
  for (const [reason, { parent, child, want }] of Object.entries(cases)) {
    it(`names ${JSON.stringify(parent)} + ${child} (${reason})`, () => {
      expect(childName(parent, uid, child)).to.equal(want);
    });
  }

  it('never exceeds 63 characters and differs per resource name and per owner', () => {
    const long = 'x'.repeat(100);
    expect(childName(long, uid, 'a')).to.have.length(63);
    expect(childName('p-', uid, 'a')).not.to.equal(childName('p-', uid, 'b'));
    expect(childName('p-', uid, 'a')).not.to.equal(childName('p-', 'other-uid', 'a'));
  });
});
