// Transforms on hostile values: Go's int64 and float64 arithmetic where JavaScript's differs, and results refused
// before they are built when no object could store them.
import { expect } from 'chai';
import { LimitError, MAX_STRING_LENGTH } from '../../../../src/functions/builtin/limits.js';
import { resolveTransform, type Transform } from '../../../../src/functions/builtin/transforms.js';

const cases: Record<string, { reason: string; transform: Transform; input: unknown; want: unknown }> = {
  MultiplyWraps: {
    reason: 'int64 multiplication wraps around as in Go',
    transform: { type: 'math', math: { type: 'Multiply', multiply: 2 } },
    input: 2n ** 62n,
    want: -(2n ** 63n),
  },
  MultiplyFloatOverflows: {
    reason: 'float64 multiplication overflows to +Inf as in Go',
    transform: { type: 'math', math: { type: 'Multiply', multiply: 10 } },
    input: 1.7976931348623157e308,
    want: Infinity,
  },
  ClampNaN: {
    reason: "int64(NaN) is amd64's integer indefinite, below any ClampMin",
    transform: { type: 'math', math: { type: 'ClampMin', clampMin: 0 } },
    input: NaN,
    want: 0n,
  },
  ConvertHugeFloat: {
    reason: 'int64 of a float64 out of range is the integer indefinite',
    transform: { type: 'convert', convert: { toType: 'int64' } },
    input: 1e300,
    want: -(2n ** 63n),
  },
  ConvertHugeInt: {
    reason: 'a 100,000-digit number is out of range, found without quadratic BigInt parsing',
    transform: { type: 'convert', convert: { toType: 'int64' } },
    input: '9'.repeat(100_000),
    want: 'value out of range',
  },
  ReplaceEmptySearch: {
    reason: 'strings.ReplaceAll inserts around every rune for an empty search',
    transform: { type: 'string', string: { type: 'Replace', replace: { search: '', replace: '-' } } },
    input: 'a😀',
    want: '-a-😀-',
  },
};

describe('functions/builtin/transforms: Go arithmetic and bounds', () => {
  for (const [name, tc] of Object.entries(cases)) {
    it(name, () => {
      if (typeof tc.want === 'string' && tc.want.includes('range')) {
        expect(() => resolveTransform(tc.transform, tc.input), tc.reason).to.throw(tc.want);
      } else {
        expect(resolveTransform(tc.transform, tc.input), tc.reason).to.deep.equal(tc.want);
      }
    });
  }

  it('refuses a Join or a Replace whose result would pass MAX_STRING_LENGTH, before building it', () => {
    const join: Transform = { type: 'string', string: { type: 'Join', join: { separator: 'x'.repeat(4096) } } };
    expect(() => resolveTransform(join, Array<string>(1000).fill('a'))).to.throw(LimitError, 'cannot join');
    const replace: Transform = {
      type: 'string',
      string: { type: 'Replace', replace: { search: 'a', replace: 'b'.repeat(4096) } },
    };
    expect(() => resolveTransform(replace, 'a'.repeat(1000))).to.throw(LimitError, 'cannot replace');
    expect(resolveTransform(replace, 'a'.repeat(10))).to.have.length(40_960);
    expect(MAX_STRING_LENGTH).to.be.above(40_960);
  });

  it('refuses a Format whose width Go would pad to', () => {
    const format: Transform = { type: 'string', string: { type: 'Format', fmt: '%10000000s' } };
    expect(() => resolveTransform(format, 'a')).to.throw(LimitError, 'cannot format');
  });
});
