// The convert transform's json format: function-patch-and-transform transforms.go conversions call json.Unmarshal
// into map[string]any (toType object) or []any (toType array) and return its error as is. Expected texts are Go's
// encoding/json scanner.go SyntaxError messages and decode.go UnmarshalTypeError.Error().
import { expect } from 'chai';
import { goJsonUnmarshal } from '../../../../src/functions/builtin/gojson.js';

const errors: Record<string, { text: string; into: 'object' | 'array'; want: string }> = {
  empty: { text: '', into: 'object', want: 'unexpected end of JSON input' },
  truncated: { text: '{"a": [1, 2', into: 'object', want: 'unexpected end of JSON input' },
  notJson: { text: 'hello', into: 'object', want: "invalid character 'h' looking for beginning of value" },
  badLiteral: { text: 'trux', into: 'array', want: "invalid character 'x' in literal true (expecting 'e')" },
  keyNotString: {
    text: '{a:1}',
    into: 'object',
    want: "invalid character 'a' looking for beginning of object key string",
  },
  noColon: { text: '{"a" 1}', into: 'object', want: "invalid character '1' after object key" },
  afterPair: { text: '{"a":1 "b":2}', into: 'object', want: `invalid character '"' after object key:value pair` },
  afterElement: { text: '[1 2]', into: 'array', want: "invalid character '2' after array element" },
  trailing: { text: '{} x', into: 'object', want: "invalid character 'x' after top-level value" },
  leadingZero: { text: '[01]', into: 'array', want: "invalid character '1' after array element" },
  minus: { text: '[-x]', into: 'array', want: "invalid character 'x' in numeric literal" },
  decimal: { text: '[1.]', into: 'array', want: "invalid character ']' after decimal point in numeric literal" },
  exponent: { text: '[1e]', into: 'array', want: "invalid character ']' in exponent of numeric literal" },
  escape: { text: '["\\q"]', into: 'array', want: "invalid character 'q' in string escape code" },
  unicodeEscape: {
    text: '["\\u12g4"]',
    into: 'array',
    want: "invalid character 'g' in \\u hexadecimal character escape",
  },
  control: { text: '["a\tb"]', into: 'array', want: "invalid character '\\t' in string literal" },
  quote: { text: "'a'", into: 'object', want: "invalid character '\\'' looking for beginning of value" },
  arrayIntoMap: {
    text: '[1]',
    into: 'object',
    want: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
  },
  stringIntoMap: {
    text: '"a"',
    into: 'object',
    want: 'json: cannot unmarshal string into Go value of type map[string]interface {}',
  },
  numberIntoSlice: {
    text: '1.5',
    into: 'array',
    want: 'json: cannot unmarshal number into Go value of type []interface {}',
  },
  objectIntoSlice: {
    text: '{}',
    into: 'array',
    want: 'json: cannot unmarshal object into Go value of type []interface {}',
  },
  boolIntoSlice: {
    text: 'true',
    into: 'array',
    want: 'json: cannot unmarshal bool into Go value of type []interface {}',
  },
};

describe('functions/builtin goJsonUnmarshal (Go json.Unmarshal)', () => {
  for (const [name, c] of Object.entries(errors)) {
    it(`fails as Go does: ${name}`, () => expect(() => goJsonUnmarshal(c.text, c.into)).to.throw(c.want));
  }

  it('parses what Go accepts; null leaves the target nil', () => {
    expect(goJsonUnmarshal(' {"a": [1, -2.5e3, "x\\u00e9", true, null]} ', 'object')).to.deep.equal({
      a: [1, -2500, 'xé', true, null],
    });
    expect(goJsonUnmarshal('[]', 'array')).to.deep.equal([]);
    expect(goJsonUnmarshal('null', 'object')).to.equal(null);
  });
});

describe('functions/builtin goJsonUnmarshal: nesting', () => {
  it("takes Go's 10000 levels without recursion and fails on the next as Go's scanner does", () => {
    expect(goJsonUnmarshal(`${'['.repeat(10_000)}${']'.repeat(10_000)}`, 'array')).to.be.an('array');
    expect(() => goJsonUnmarshal(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'array')).to.throw(
      "invalid character '[' exceeded max depth",
    );
    expect(() => goJsonUnmarshal(`{"a":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_001)}`, 'object')).to.throw(
      "invalid character '{' exceeded max depth",
    );
  });
});
