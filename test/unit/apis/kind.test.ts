import { expect } from 'chai';
import { distinctKinds, groupOf, kindKey, kindOf } from '../../../src/apis/index.js';

describe('kind', () => {
  it('files a kind under "apiVersion/kind" and keeps only apiVersion and kind of an object', () => {
    const object = { apiVersion: 'example.org/v1', kind: 'XBucket', metadata: { name: 'a' } };
    expect(kindOf(object)).to.deep.equal({ apiVersion: 'example.org/v1', kind: 'XBucket' });
    expect(kindKey(object)).to.equal('example.org/v1/XBucket');
    expect(kindKey({ apiVersion: 'v1', kind: 'ConfigMap' })).to.equal('v1/ConfigMap');
  });

  it('lists each kind once, in first-seen order', () => {
    const refs = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'a' },
      { apiVersion: 'example.org/v1', kind: 'XBucket', name: 'b' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'c' },
    ];
    expect(distinctKinds(refs)).to.deep.equal([
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'example.org/v1', kind: 'XBucket' },
    ]);
  });

  const groups: Record<string, { reason: string; apiVersion: string; want: string }> = {
    core: { reason: 'the core group has no group part', apiVersion: 'v1', want: '' },
    named: { reason: 'a named group precedes the version', apiVersion: 'apps/v1', want: 'apps' },
    dotted: { reason: 'dots belong to the group', apiVersion: 'pkg.crossplane.io/v1beta1', want: 'pkg.crossplane.io' },
  };
  for (const [name, c] of Object.entries(groups)) {
    it(`groupOf: ${name}`, () => {
      expect(groupOf(c.apiVersion), c.reason).to.equal(c.want);
    });
  }
});
