import { expect } from 'chai';
import { LimitError } from '../../../../src/functions/builtin/limits.js';
import {
  expandWildcards,
  findValue,
  getValue,
  isNotFound,
  MAX_PATH_LENGTH,
  MAX_PATH_SEGMENTS,
  parsePath,
  setValue,
} from '../../../../src/functions/builtin/fieldpath.js';

describe('functions/builtin/fieldpath', () => {
  const parses: Record<string, { path: string; want: unknown }> = {
    simple: {
      path: 'spec.forProvider.region',
      want: [{ field: 'spec' }, { field: 'forProvider' }, { field: 'region' }],
    },
    index: {
      path: 'spec.items[2].name',
      want: [{ field: 'spec' }, { field: 'items' }, { index: 2 }, { field: 'name' }],
    },
    dottedKey: {
      path: 'metadata.annotations[crossplane.io/external-name]',
      want: [{ field: 'metadata' }, { field: 'annotations' }, { field: 'crossplane.io/external-name' }],
    },
    quotedKey: { path: "labels['a.b']", want: [{ field: 'labels' }, { field: 'a.b' }] },
    leadingBracket: { path: '[a.b].c', want: [{ field: 'a.b' }, { field: 'c' }] },
  };
  for (const [name, c] of Object.entries(parses)) {
    it(`parses ${name}`, () => {
      expect(parsePath(c.path)).to.deep.equal(c.want);
    });
  }

  it('reports parse errors with the position, as crossplane-runtime does', () => {
    expect(() => parsePath('metadata..uid')).to.throw(
      `cannot parse path "metadata..uid": unexpected '.' at position 9`,
    );
    expect(() => parsePath('a[b')).to.throw(`cannot parse path "a[b": unterminated '[' at position 1`);
  });

  it('reports a missing field by the path up to it', () => {
    let thrown: unknown;
    try {
      getValue({ spec: {} }, 'spec.a.b');
    } catch (err) {
      thrown = err;
    }
    expect(isNotFound(thrown)).to.equal(true);
    expect((thrown as Error).message).to.equal('spec.a: no such field');
    expect(findValue({ spec: {} }, 'spec.a.b')).to.equal(undefined);
  });

  it('creates objects and arrays on the way when setting', () => {
    const o: Record<string, unknown> = {};
    setValue(o, 'spec.list[1].name', 'x');
    expect(o).to.deep.equal({ spec: { list: [null, { name: 'x' }] } });
  });

  it('expands wildcards only into paths that exist to their last segment', () => {
    // paved.go expandWildcards (crossplane-runtime): a missing segment after a wildcard drops that path.
    expect(expandWildcards({ a: [{ b: 1 }, {}] }, 'a[*].b')).to.deep.equal(['a[0].b']);
    expect(expandWildcards({ a: [{}, {}] }, 'a[*].b')).to.deep.equal([]);
    expect(expandWildcards({ m: { x: 1, y: 2 } }, 'm[*]')).to.deep.equal(['m.x', 'm.y']);
  });
});

describe('functions/builtin/fieldpath: bounds', () => {
  it('reads an index past uint32 as a field, as strconv.ParseUint(s, 10, 32) does', () => {
    expect(parsePath('a[4294967295]')).to.deep.equal([{ field: 'a' }, { index: 4294967295 }]);
    expect(parsePath('a[4294967296]')).to.deep.equal([{ field: 'a' }, { field: '4294967296' }]);
  });

  it('refuses paths past MAX_PATH_LENGTH or MAX_PATH_SEGMENTS', () => {
    expect(() => parsePath(`a${'b'.repeat(MAX_PATH_LENGTH)}`)).to.throw(LimitError, 'characters');
    expect(() => parsePath('a.'.repeat(MAX_PATH_SEGMENTS) + 'a')).to.throw(LimitError, 'segments');
  });

  it('refuses to grow an array to an index no stored object could hold, and changes nothing', () => {
    const object: Record<string, unknown> = { spec: { list: [] } };
    expect(() => {
      setValue(object, 'spec.list[999999999]', 1);
    }).to.throw(LimitError, 'cannot grow');
    expect(() => {
      setValue(object, 'spec.other[999999999].x', 1);
    }).to.throw(LimitError, 'cannot grow');
    expect(() => {
      setValue(object, 'spec.list[999999999].x', 1);
    }).to.throw(LimitError, 'cannot grow');
    expect(object).to.deep.equal({ spec: { list: [] } });
    setValue(object, 'spec.list[2]', 1);
    expect(object).to.deep.equal({ spec: { list: [null, null, 1] } });
  });
});
