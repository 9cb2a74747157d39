// Error paths of function-patch-and-transform and crossplane-runtime's fieldpath, each with the upstream line it
// comes from. Line numbers are those of function-patch-and-transform transforms.go at 8ede59a7 (the function
// bodies are unchanged through v0.10.x) and of crossplane-runtime pkg/fieldpath/paved.go by function name.
// The texts are a compatibility contract: users see them in FATAL results, so they are compared byte for byte.
import { expect } from 'chai';
import { expandWildcards, getValue, setValue } from '../../../../src/functions/builtin/fieldpath.js';
import { patchAndTransform } from '../../../../src/functions/builtin/pt/patchAndTransform.js';
import { writeValue } from '../../../../src/functions/builtin/pt/patches.js';
import { resolveTransforms, type Transform } from '../../../../src/functions/builtin/transforms.js';

interface Case {
  reason: string;
  transform: Transform;
  input: unknown;
  want: { error: string } | { output: unknown };
}

const at0 = (text: string): string => `transform at index 0 returned error: ${text}`;

const transformCases: Record<string, Case> = {
  // transforms.go:98
  ResolveWrapsTypeErrors: {
    reason: "A type's own error is wrapped as `<type> transform could not resolve`",
    transform: { type: 'math', math: { type: 'Multiply', multiply: 2 } },
    input: 'ten',
    want: {
      error: at0('math transform could not resolve: input is required to be a number for math transformer, got string'),
    },
  },
  // transforms.go:71
  ConfigMissingIsNotWrapped: {
    reason: 'A missing configuration is returned before any wrapping',
    transform: { type: 'math' },
    input: 1,
    want: { error: at0('given transform type math requires configuration') },
  },
  // transforms.go:95
  UnknownTypeIsNotWrapped: {
    reason: 'An unknown transform type is returned before any wrapping',
    transform: { type: 'nope' },
    input: 1,
    want: { error: at0('transform type nope is not supported') },
  },
  // transforms.go:103 (ValidateMathTransform runs before the input check at transforms.go:109)
  MathValidatesBeforeInput: {
    reason: "The math transform's own validation comes before the input type check",
    transform: { type: 'math', math: {} },
    input: 'ten',
    want: { error: at0('math transform could not resolve: type: Required value: math transform type is required') },
  },
  // transforms.go:103, validate.go ValidateMathTransform
  MathClampMinMissing: {
    reason: 'A clamp without its bound says which clamp',
    transform: { type: 'math', math: { type: 'ClampMin' } },
    input: 1,
    want: {
      error: at0(
        'math transform could not resolve: clampMin: Required value: must specify a value if a clamp min math ' +
          'transform is specified',
      ),
    },
  },
  // transforms.go:182
  MapNonStringInput: {
    reason: 'A map transform takes strings only',
    transform: { type: 'map', map: { a: 'b' } },
    input: 1.5,
    want: { error: at0('map transform could not resolve: type float64 is not supported for map transform') },
  },
  // transforms.go:174
  MapKeyNotFound: {
    reason: 'A missing key is an error',
    transform: { type: 'map', map: { a: 'b' } },
    input: 'c',
    want: { error: at0('map transform could not resolve: key c is not found in map') },
  },
  // transforms.go:235
  MatchLiteralNonStringInput: {
    reason: 'A literal pattern against a non-string input is an error, not a miss',
    transform: { type: 'match', match: { patterns: [{ type: 'literal', literal: '1', result: 'x' }] } },
    input: 1,
    want: {
      error: at0(
        "match transform could not resolve: cannot match pattern at index 0: unsupported input type 'float64'",
      ),
    },
  },
  // transforms.go:249
  MatchRegexpNullInput: {
    reason: 'A regexp pattern against null says null',
    transform: { type: 'match', match: { patterns: [{ type: 'regexp', regexp: '.*', result: 'x' }] } },
    input: null,
    want: {
      error: at0("match transform could not resolve: cannot match pattern at index 0: unsupported input type 'null'"),
    },
  },
  // transforms.go:253
  MatchRegexpNonStringInput: {
    reason: 'A regexp pattern against a bool names the Go type',
    transform: { type: 'match', match: { patterns: [{ type: 'regexp', regexp: '.*', result: 'x' }] } },
    input: true,
    want: {
      error: at0("match transform could not resolve: cannot match pattern at index 0: unsupported input type 'bool'"),
    },
  },
  // transforms.go:246 (the regexp compiles before the input is checked)
  MatchRegexpLookahead: {
    reason: "RE2 has no lookahead; Go's parser names the construct",
    transform: { type: 'match', match: { patterns: [{ type: 'regexp', regexp: 'a(?=b)', result: 'x' }] } },
    input: 1,
    want: {
      error: at0(
        'match transform could not resolve: cannot match pattern at index 0: cannot compile regexp: error parsing ' +
          'regexp: invalid or unsupported Perl syntax: `(?=`',
      ),
    },
  },
  // transforms.go:205
  MatchFallbackBoth: {
    reason: 'fallbackTo Input and a fallbackValue together are an error once nothing matches',
    transform: { type: 'match', match: { patterns: [], fallbackTo: 'Input', fallbackValue: 'x' } },
    input: 'a',
    want: {
      error: at0('match transform could not resolve: cannot set both a fallback value and the fallback to input flag'),
    },
  },
  // transforms.go:204 (a null fallbackValue unmarshals to an empty extv1.JSON)
  MatchFallbackNullToInput: {
    reason: 'A null fallbackValue is no value',
    transform: { type: 'match', match: { patterns: [], fallbackTo: 'Input', fallbackValue: null } },
    input: 'a',
    want: { output: 'a' },
  },
  // transforms.go:226
  MatchUnknownPatternType: {
    reason: 'A pattern type other than literal and regexp is an error',
    transform: { type: 'match', match: { patterns: [{ type: 'glob' }] } },
    input: 'a',
    want: {
      error: at0("match transform could not resolve: cannot match pattern at index 0: unsupported pattern type 'glob'"),
    },
  },
  // transforms.go:357
  StringRegexpMissingParen: {
    reason: "The string transform says `could not compile regexp` with Go's parser message",
    transform: { type: 'string', string: { type: 'Regexp', regexp: { match: '(a' } } },
    input: 'a',
    want: {
      error: at0(
        'string transform could not resolve: could not compile regexp: error parsing regexp: missing closing ): `(a`',
      ),
    },
  },
  // transforms.go:357
  StringRegexpBackreference: {
    reason: 'RE2 has no backreferences',
    transform: { type: 'string', string: { type: 'Regexp', regexp: { match: '(a)\\1' } } },
    input: 'aa',
    want: {
      error: at0(
        'string transform could not resolve: could not compile regexp: error parsing regexp: invalid escape ' +
          'sequence: `\\1`',
      ),
    },
  },
  // transforms.go:357
  StringRegexpNestedRepeat: {
    reason: 'Go rejects a repetition of a repetition',
    transform: { type: 'string', string: { type: 'Regexp', regexp: { match: 'a**' } } },
    input: 'aa',
    want: {
      error: at0(
        'string transform could not resolve: could not compile regexp: error parsing regexp: invalid nested ' +
          'repetition operator: `**`',
      ),
    },
  },
  // transforms.go:365
  StringRegexpNoMatch: {
    reason: 'No match for the group is an error',
    transform: { type: 'string', string: { type: 'Regexp', regexp: { match: 'b(c)?', group: 2 } } },
    input: 'b',
    want: { error: at0('string transform could not resolve: regexp "b(c)?" had no matches for group 2') },
  },
  StringRegexpGoDot: {
    reason: "Go's `.` matches \\r, which JavaScript's does not",
    transform: { type: 'string', string: { type: 'Regexp', regexp: { match: 'a.b' } } },
    input: 'xa\rb',
    want: { output: 'a\rb' },
  },
  StringRegexpNamedGroup: {
    reason: 'Named groups count as groups',
    transform: {
      type: 'string',
      string: { type: 'Regexp', regexp: { match: '(?P<x>[0-9]+)-(?P<y>[a-z]+)', group: 2 } },
    },
    input: '12-ab',
    want: { output: 'ab' },
  },
  // transforms.go:309
  FromBase64BadByte: {
    reason: 'Go names the first byte that is not base64, wrapped as `string is not valid base64`',
    transform: { type: 'string', string: { type: 'Convert', convert: 'FromBase64' } },
    input: 'abc$',
    want: {
      error: at0('string transform could not resolve: string is not valid base64: illegal base64 data at input byte 3'),
    },
  },
  // transforms.go:309
  FromBase64Truncated: {
    reason: 'A quantum cut short is reported at its start',
    transform: { type: 'string', string: { type: 'Convert', convert: 'FromBase64' } },
    input: 'YWJjZ',
    want: {
      error: at0('string transform could not resolve: string is not valid base64: illegal base64 data at input byte 4'),
    },
  },
  // transforms.go:309
  FromBase64MissingPadding: {
    reason: 'One `=` where two are needed is reported at the end',
    transform: { type: 'string', string: { type: 'Convert', convert: 'FromBase64' } },
    input: 'YQ=',
    want: {
      error: at0('string transform could not resolve: string is not valid base64: illegal base64 data at input byte 3'),
    },
  },
  // transforms.go:309
  FromBase64TrailingGarbage: {
    reason: 'Bytes after the padding are reported where they start',
    transform: { type: 'string', string: { type: 'Convert', convert: 'FromBase64' } },
    input: 'YQ==x',
    want: {
      error: at0('string transform could not resolve: string is not valid base64: illegal base64 data at input byte 4'),
    },
  },
  FromBase64Newlines: {
    reason: 'Go skips \\r and \\n inside base64',
    transform: { type: 'string', string: { type: 'Convert', convert: 'FromBase64' } },
    input: 'YW\nJj',
    want: { output: 'abc' },
  },
  // transforms.go:303
  ToJsonEscapesHtml: {
    reason: "Go's json.Marshal escapes <, > and &",
    transform: { type: 'string', string: { type: 'Convert', convert: 'ToJson' } },
    input: { a: '<b&c>' },
    want: { output: '{"a":"\\u003cb\\u0026c\\u003e"}' },
  },
  // transforms.go:380
  ConvertObjectInput: {
    reason: 'An object is not a convert input type',
    transform: { type: 'convert', convert: { toType: 'string' } },
    input: { a: 1 },
    want: { error: at0('convert transform could not resolve: invalid input type map[string]interface {}') },
  },
  // transforms.go:380
  ConvertNullInput: {
    reason: 'null is not a convert input type',
    transform: { type: 'convert', convert: { toType: 'string' } },
    input: null,
    want: { error: at0('convert transform could not resolve: invalid input type <nil>') },
  },
  // transforms.go:374 (ValidateConvertTransform checks the format first)
  ConvertInvalidFormat: {
    reason: 'An unknown format is a field error',
    transform: { type: 'convert', convert: { toType: 'string', format: 'yaml' } },
    input: 'a',
    want: { error: at0('convert transform could not resolve: format: Invalid value: "yaml": invalid format') },
  },
  // transforms.go:424
  ConvertIntOutOfRange: {
    reason: 'strconv.ParseInt reports int64 overflow',
    transform: { type: 'convert', convert: { toType: 'int64' } },
    input: '9223372036854775808',
    want: {
      error: at0(
        'convert transform could not resolve: strconv.ParseInt: parsing "9223372036854775808": value out of range',
      ),
    },
  },
  // transforms.go:430
  ConvertFloatSpace: {
    reason: 'strconv.ParseFloat takes no surrounding spaces',
    transform: { type: 'convert', convert: { toType: 'float64' } },
    input: ' 1.5',
    want: { error: at0('convert transform could not resolve: strconv.ParseFloat: parsing " 1.5": invalid syntax') },
  },
  // transforms.go:430
  ConvertFloatHexInt: {
    reason: 'strconv.ParseFloat rejects hex without an exponent',
    transform: { type: 'convert', convert: { toType: 'float64' } },
    input: '0x10',
    want: { error: at0('convert transform could not resolve: strconv.ParseFloat: parsing "0x10": invalid syntax') },
  },
  // transforms.go:427
  ConvertBoolQuotes: {
    reason: "The bad value is quoted as Go's strconv.Quote quotes it",
    transform: { type: 'convert', convert: { toType: 'bool' } },
    input: 'yes\n',
    want: { error: at0('convert transform could not resolve: strconv.ParseBool: parsing "yes\\n": invalid syntax') },
  },
};

function outcome(fn: () => unknown): { error: string } | { output: unknown } {
  try {
    return { output: fn() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe('functions/builtin: fidelity of P&T transform errors', () => {
  for (const [name, c] of Object.entries(transformCases)) {
    it(name, () => {
      expect(
        outcome(() => resolveTransforms([c.transform], c.input)),
        c.reason,
      ).to.deep.equal(c.want);
    });
  }
});

interface PathCase {
  reason: string;
  run: () => unknown;
  want: { error: string } | { output: unknown };
}

const pathCases: Record<string, PathCase> = {
  // patches.go patchFieldValueToMultiple (errFmtExpandingArrayFieldPaths)
  WildcardOverMissingFields: {
    reason: 'A [*] ToFieldPath expands only into fields that exist; none existing is an error',
    run: () => {
      writeValue({ spec: { items: [{ n: 1 }] } }, 'spec.items[*].tag', 'x');
    },
    want: { error: 'cannot expand ToFieldPath spec.items[*].tag' },
  },
  // paved.go expandWildcards (unexpected wildcard usage), ExpandWildcards (cannot expand wildcards for segments)
  WildcardOverScalar: {
    reason: 'A [*] over a scalar fails',
    run: () => expandWildcards({ spec: { name: 'a' } }, 'spec.name[*]'),
    want: { error: 'cannot expand wildcards for segments: "spec.name[*]": "spec.name": unexpected wildcard usage' },
  },
  // paved.go expandWildcards (nested wrap)
  WildcardNestedOverNull: {
    reason: 'A nested [*] over null names the expanded path',
    run: () => expandWildcards({ a: [{ b: null }] }, 'a[*].b[*]'),
    want: {
      error:
        'cannot expand wildcards for segments: "a[*].b[*]": "a[0].b[*]": cannot expand wildcards: "a[0].b": ' +
        'unexpected wildcard usage',
    },
  },
  // patches.go ApplyFromFieldPathPatch ("cannot patch to object"), paved.go setValue ("%s is not an object")
  PatchIntoNullParent: {
    reason: 'A null parent is not replaced: the patch fails',
    run: () => {
      writeValue({ spec: { forProvider: null } }, 'spec.forProvider.region', 'x');
    },
    want: { error: 'cannot patch to object: spec.forProvider is not an object' },
  },
  // paved.go setValue ("%s is not an array")
  PatchIndexIntoObject: {
    reason: 'Indexing an object fails',
    run: () => {
      setValue({ spec: { list: {} } }, 'spec.list[0]', 'x');
    },
    want: { error: 'spec.list is not an array' },
  },
  // paved.go prepareElement (a null element becomes the container the next segment needs)
  PatchThroughNullElement: {
    reason: 'A null array element is prepared, unlike a null field',
    run: () => {
      const o = { list: [null] };
      setValue(o, 'list[0].a', 1);
      return o;
    },
    want: { output: { list: [{ a: 1 }] } },
  },
  // paved.go getValueFromInterface ("%s: not an object")
  ReadThroughNull: {
    reason: 'Reading through null is a wrong shape, not a missing field',
    run: () => getValue({ spec: { a: null } }, 'spec.a.b'),
    want: { error: 'spec.a: not an object' },
  },
  // paved.go getValueFromInterface ("%s: no such element")
  ReadPastArrayEnd: {
    reason: 'An index past the end is a missing element',
    run: () => getValue({ spec: { list: [1] } }, 'spec.list[3]'),
    want: { error: 'spec.list[3]: no such element' },
  },
};

describe('functions/builtin: fidelity of field path errors', () => {
  for (const [name, c] of Object.entries(pathCases)) {
    it(name, () => {
      expect(outcome(c.run), c.reason).to.deep.equal(c.want);
    });
  }
});

describe('functions/builtin: fidelity of v2 XR connection details', () => {
  // fn.go RunFunction: a modern XR's details go into a composed Secret and stay in the desired XR
  it('keeps the details in the desired composite beside the composed Secret', () => {
    const rsp = patchAndTransform({
      input: {
        apiVersion: 'pt.fn.crossplane.io/v1beta1',
        kind: 'Resources',
        resources: [
          {
            name: 'db',
            base: { apiVersion: 'example.org/v1', kind: 'DB' },
            connectionDetails: [{ type: 'FromConnectionSecretKey', name: 'password', fromConnectionSecretKey: 'pw' }],
          },
        ],
      },
      observed: {
        composite: {
          resource: {
            apiVersion: 'example.org/v1',
            kind: 'XR',
            metadata: { name: 'x', namespace: 'ns' },
            spec: { crossplane: {} },
          },
        },
        resources: {
          db: {
            resource: { apiVersion: 'example.org/v1', kind: 'DB', metadata: { name: 'db-1' } },
            connectionDetails: { pw: Buffer.from('s3cret') },
          },
        },
      },
    });
    expect(rsp.results ?? []).to.deep.equal([]);
    expect(rsp.desired?.composite?.connectionDetails).to.deep.equal({ password: Buffer.from('s3cret') });
    expect(rsp.desired?.resources?.['x-connection-secret']?.resource).to.include({ kind: 'Secret' });
  });
});
