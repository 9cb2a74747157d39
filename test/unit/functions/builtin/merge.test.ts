import { expect } from 'chai';
import { merge, mergeOptionsOf } from '../../../../src/functions/builtin/pt/merge.js';
import { writeValue } from '../../../../src/functions/builtin/pt/patches.js';
import type { JsonObject } from '../../../../src/functions/types.js';

describe('functions/builtin/pt: toFieldPath merge policies', () => {
  const dst = { keep: 'me', shared: 'old', empty: '', list: ['a', 'b'], nested: { x: 1 } };
  const src = { shared: 'new', empty: 'filled', list: ['b', 'c'], nested: { y: 2 }, added: true };
  const cases: Record<string, { reason: string; policy: string | undefined; want: unknown }> = {
    Replace: { reason: 'no policy replaces the destination', policy: undefined, want: src },
    MergeObjects: {
      reason: 'keeps non-empty destination values, fills empty and missing ones, keeps destination arrays',
      policy: 'MergeObjects',
      want: { keep: 'me', shared: 'old', empty: 'filled', list: ['a', 'b'], nested: { x: 1, y: 2 }, added: true },
    },
    MergeObjectsAppendArrays: {
      reason: 'keeps destination values and appends source array items not already present',
      policy: 'MergeObjectsAppendArrays',
      want: {
        keep: 'me',
        shared: 'old',
        empty: 'filled',
        list: ['a', 'b', 'b', 'c'],
        nested: { x: 1, y: 2 },
        added: true,
      },
    },
    ForceMergeObjects: {
      reason: 'the source wins on shared keys, arrays are replaced',
      policy: 'ForceMergeObjects',
      want: { keep: 'me', shared: 'new', empty: 'filled', list: ['b', 'c'], nested: { x: 1, y: 2 }, added: true },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, () => {
      expect(merge(structuredClone(dst), structuredClone(src), mergeOptionsOf(c.policy)), c.reason).to.deep.equal(
        c.want,
      );
    });
  }

  it('drops source array items the destination already holds before appending at the top level', () => {
    expect(merge(['a', 'b'], ['b', 'c'], mergeOptionsOf('ForceMergeObjectsAppendArrays'))).to.deep.equal([
      'a',
      'b',
      'c',
    ]);
  });

  it('replaces a missing or null destination whatever the policy', () => {
    expect(merge(undefined, { a: 1 }, mergeOptionsOf('MergeObjects'))).to.deep.equal({ a: 1 });
    expect(merge(null, { a: 1 }, mergeOptionsOf('MergeObjects'))).to.deep.equal({ a: 1 });
  });

  it('writes a value at every element of a [*] path and fails when nothing expands', () => {
    const to: JsonObject = { spec: { items: [{ n: 1, tag: 'a' }, { n: 2, tag: 'b' }, { n: 3 }] } };
    writeValue(to, 'spec.items[*].tag', 'x');
    // Only elements that already have the field are written (paved.go expandWildcards).
    expect(to.spec).to.deep.equal({ items: [{ n: 1, tag: 'x' }, { n: 2, tag: 'x' }, { n: 3 }] });
    expect(() => {
      writeValue({}, 'spec.items[*].tag', 'x');
    }).to.throw('cannot expand ToFieldPath spec.items[*].tag');
  });

  it('turns int64 transform results into JSON numbers', () => {
    const to = {};
    writeValue(to, 'spec.count', 30n);
    expect(to).to.deep.equal({ spec: { count: 30 } });
  });
});

describe('functions/builtin/pt merge of empty arrays', () => {
  // crossplane-runtime fieldpath merge + removeSourceDuplicates; crank v2.3.4 prints null (awslabs
  // crossplane-on-eks elasticache-redis, MergeObjectsAppendArrays of spec.resourceConfig.tags: [] onto tags: []).
  it('appending an empty array to an empty array stores null', () => {
    expect(merge([], [], mergeOptionsOf('MergeObjectsAppendArrays'))).to.equal(null);
    expect(merge(['a'], ['a'], mergeOptionsOf('MergeObjectsAppendArrays'))).to.deep.equal(['a']);
  });
});
