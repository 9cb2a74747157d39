// Go's fmt.Sprintf as the string transform's Format and the CombineFromComposite / combine patches' string strategy
// use it (function-patch-and-transform transforms.go and patches.go call fmt.Sprintf). Expected strings are what Go's
// fmt package prints, as its doc.go documents and fmt_test.go asserts (golang/go src/fmt).
import { expect } from 'chai';
import { LimitError, MAX_STRING_LENGTH } from '../../../../src/functions/builtin/limits.js';
import { goFormatV, goSprintf } from '../../../../src/functions/builtin/gofmt.js';
import { GoInt } from '../../../../src/functions/builtin/govalue.js';

const cases: Record<string, { format: string; args: unknown[]; want: string }> = {
  // Integers (P&T produces int64 from convert, JSON numbers are float64).
  d: { format: '%d', args: [12345n], want: '12345' },
  width: { format: '%7d|', args: [12345n], want: '  12345|' },
  minus: { format: '%-7d|', args: [12345n], want: '12345  |' },
  'zero pads after the sign': { format: '%07d', args: [-12345n], want: '-012345' },
  plus: { format: '%+d', args: [5n], want: '+5' },
  space: { format: '% d', args: [5n], want: ' 5' },
  'precision pads digits, zero flag ignored': { format: '%08.3d', args: [7n], want: '     007' },
  'precision 0 of 0 prints nothing': { format: '%.0d|', args: [0n], want: '|' },
  hex: { format: '%x %X %#x %#X', args: [255n, 255n, 255n, 255n], want: 'ff FF 0xff 0XFF' },
  'negative hex': { format: '%#x', args: [-255n], want: '-0xff' },
  'octal and binary': { format: '%o %#o %O %b %#b', args: [8n, 8n, 8n, 5n, 5n], want: '10 010 0o10 101 0b101' },
  'rune verbs': { format: '%c %q %U %#U', args: [65n, 65n, 0x1f600n, 65n], want: "A 'A' U+1F600 U+0041 'A'" },
  'int is int': { format: '%d %T', args: [new GoInt(3n), new GoInt(3n)], want: '3 int' },
  // Floats.
  f: { format: '%f', args: [3.14159], want: '3.141590' },
  'f precision and width': { format: '%8.2f|%-8.2f|', args: [3.14159, 3.14159], want: '    3.14|3.14    |' },
  'f zero pad after sign': { format: '%08.2f', args: [-3.14159], want: '-0003.14' },
  'plus float': { format: '%+.1f', args: [2], want: '+2.0' },
  'e and E': { format: '%e %E %.2e', args: [1234.5678, 1234.5678, 0], want: '1.234568e+03 1.234568E+03 0.00e+00' },
  'g shortest': { format: '%g %g %g', args: [1234.5678, 0.0001, 0.00001], want: '1234.5678 0.0001 1e-05' },
  'v uses %g: exponent from 1e+06 (strconv ftoa.go eprec 6)': {
    format: '%v %v %v',
    args: [100000, 1000000, 1234567],
    want: '100000 1e+06 1.234567e+06',
  },
  'g precision': { format: '%.3g %.3g %.3g', args: [1234.5678, 100, 1.5], want: '1.23e+03 100 1.5' },
  'negative zero': { format: '%v', args: [-0], want: '-0' },
  'infinities and NaN': {
    format: '%v %f %5.1f| %+v % v %08f',
    args: [Infinity, -Infinity, Infinity, NaN, NaN, Infinity],
    want: '+Inf -Inf  +Inf| +NaN  NaN     +Inf',
  },
  'sharp keeps the point': { format: '%#.0f %#.0e', args: [3, 3], want: '3. 3.e+00' },
  // Strings and bools.
  'string width and precision': { format: '%5s|%-5s|%.2s', args: ['ab', 'ab', 'hello'], want: '   ab|ab   |he' },
  'zero flag ignored for strings': { format: '%05s', args: ['ab'], want: '   ab' },
  'width counts runes': { format: '%4s|', args: ['é'], want: '   é|' },
  q: { format: '%q %#q', args: ['a"b\n', 'ab'], want: '"a\\"b\\n" `ab`' },
  'string hex': { format: '%x % x %#x %# X', args: ['hi', 'hi', 'hi', 'hi'], want: '6869 68 69 0x6869 0X68 0X69' },
  t: { format: '%t %v %6t|', args: [true, false, true], want: 'true false   true|' },
  T: { format: '%T %T %T %T %T', args: ['a', 1.5, 2n, null, ['x']], want: 'string float64 int64 <nil> []interface {}' },
  // Composite values: elements are formatted with the verb, a nil element is <nil>.
  slice: { format: '%v %d', args: [[1, 'a', null], ['a']], want: '[1 a <nil>] [%!d(string=a)]' },
  'map sorted': { format: '%v', args: [{ b: 'x', a: 1 }], want: 'map[a:1 b:x]' },
  'width per element': { format: '%3v', args: [[1, 2]], want: '[  1   2]' },
  // Errors.
  'wrong type': { format: '%d %t %s', args: ['foo', 'x', 1.5], want: '%!d(string=foo) %!t(string=x) %!s(float64=1.5)' },
  'wrong type keeps flags': { format: '%5d', args: ['foo'], want: '%!d(string=  foo)' },
  'nil operand': { format: '%s %v', args: [null, null], want: '%!s(<nil>) <nil>' },
  missing: { format: '%s %s', args: ['a'], want: 'a %!s(MISSING)' },
  extra: { format: '%s', args: ['a', 'b', 2n, null], want: 'a%!(EXTRA string=b, int64=2, <nil>)' },
  'percent takes no operand': { format: '100%% %s', args: ['x'], want: '100% x' },
  'no verb': { format: 'abc%', args: [], want: 'abc%!(NOVERB)' },
  'star width and precision': { format: '%*d|%-*d|%.*f', args: [5n, 3n, 4n, 7n, 2n, 3.14159], want: '    3|7   |3.14' },
  'bad width': { format: '%*d', args: ['x', 3n], want: '%!(BADWIDTH)3' },
  'bad precision': { format: '%.*d', args: ['x', 3n], want: '%!(BADPREC)3' },
  'explicit indexes': { format: '%[2]d %[1]d', args: [1n, 2n], want: '2 1' },
  'bad index': { format: '%[0]d %[3]d', args: [1n, 2n], want: '%!d(BADINDEX) %!d(BADINDEX)' },
  'width after index is a bad index': { format: '%[1]2d', args: [1n], want: '%!d(BADINDEX)' },
  'star index': { format: '%[2]*[1]d', args: [7n, 3n], want: '  7' },
};

describe('functions/builtin goSprintf (Go fmt.Sprintf)', () => {
  for (const [name, tc] of Object.entries(cases)) {
    it(name, () => expect(goSprintf(tc.format, tc.args), tc.format).to.equal(tc.want));
  }

  it('goFormatV is fmt.Sprint of one value', () => {
    expect(goFormatV(2.5)).to.equal('2.5');
    expect(goFormatV(1e21)).to.equal('1e+21');
    expect(goFormatV({ k: [true, null] })).to.equal('map[k:[true <nil>]]');
  });
});

describe('functions/builtin goSprintf: widths and precisions past what can be stored', () => {
  const limits: Record<string, { format: string; args: unknown[]; want: string }> = {
    'a crazy long width ends the format, as parsenum': {
      format: '%999999999d|x',
      args: [5n],
      want: '%!(NOVERB)%!(EXTRA int64=5)',
    },
    'a crazy long precision ends it too': {
      format: '%.99999999f',
      args: [1.5],
      want: '%!(NOVERB)%!(EXTRA float64=1.5)',
    },
    'a precision past JavaScript’s 100 digits prints the exact value': {
      format: '%.110f',
      args: [0.1],
      want: `0.1000000000000000055511151231257827021181583404541015625${'0'.repeat(55)}`,
    },
    'ties round to even': { format: '%.0f %.0f %.1f %.2e', args: [2.5, 3.5, 0.25, 1.125], want: '2 4 0.2 1.12e+00' },
  };
  for (const [name, tc] of Object.entries(limits)) {
    it(name, () => expect(goSprintf(tc.format, tc.args), tc.format).to.equal(tc.want));
  }

  it('refuses a width Go would pad to, past MAX_STRING_LENGTH, before padding', () => {
    expect(() => goSprintf('%10000000d', [1n])).to.throw(LimitError, 'cannot format');
    expect(() => goSprintf('%.5000000f', [1.5])).to.throw(LimitError, 'cannot format');
  });

  it('refuses a result that grows past MAX_STRING_LENGTH directive by directive or element by element', () => {
    expect(() => goSprintf('%1000000d'.repeat(4), [1n, 2n, 3n, 4n])).to.throw(LimitError);
    expect(() => goSprintf('%1000000v', [[1, 2, 3, 4]])).to.throw(LimitError);
    expect(goSprintf('%1000000d', [1n])).to.have.length(1_000_000);
    expect(MAX_STRING_LENGTH).to.be.above(1_000_000);
  });
});
