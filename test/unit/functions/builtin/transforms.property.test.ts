// Property: every transform type, configured with generated (often hostile) options, resolves any Go value or fails
// with its own error (upstream's text or a LimitError), within CALL_BOUND_MS. Seed PROPERTY_SEED; 1000 runs.
import fc from 'fast-check';
import { resolveTransforms, type Transform } from '../../../../src/functions/builtin/transforms.js';
import { bounded, check, goValue, hostileString, isOwnError } from './bounded.js';

const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(Number);
const pattern = fc.oneof(
  fc.constantFrom('^(a+)+$', '(.*){500}$', '[0-9]+', 'a(?=b)', '(', '(?i)é', '^$'),
  hostileString,
);

const transform: fc.Arbitrary<Transform> = fc.oneof(
  fc.record({ type: fc.constant('map'), map: fc.dictionary(hostileString, goValue, { maxKeys: 3 }) }),
  fc.record({
    type: fc.constant('match'),
    match: fc.record({
      patterns: fc.array(
        fc.record({
          type: fc.constantFrom('literal', 'regexp', 'other'),
          literal: hostileString,
          regexp: pattern,
          result: goValue,
        }),
        { maxLength: 3 },
      ),
      fallbackValue: goValue,
      fallbackTo: fc.constantFrom('Value', 'Input', undefined),
    }),
  }),
  fc.record({
    type: fc.constant('math'),
    math: fc.record({
      type: fc.constantFrom('Multiply', 'ClampMin', 'ClampMax', 'Other'),
      multiply: int64,
      clampMin: int64,
      clampMax: int64,
    }),
  }),
  fc.record({
    type: fc.constant('string'),
    string: fc.record({
      type: fc.constantFrom('Format', 'Convert', 'TrimPrefix', 'TrimSuffix', 'Regexp', 'Join', 'Replace', 'Other'),
      fmt: fc.oneof(hostileString, fc.constantFrom('%999999999d', '%10000000s', '%1000000v', '%.200f', '%*d')),
      convert: fc.constantFrom(
        'ToUpper',
        'ToLower',
        'ToJson',
        'ToBase64',
        'FromBase64',
        'ToSha1',
        'ToSha256',
        'ToSha512',
        'ToAdler32',
        'Other',
      ),
      trim: hostileString,
      regexp: fc.record({ match: pattern, group: fc.nat({ max: 3 }) }),
      join: fc.record({ separator: hostileString }),
      replace: fc.record({ search: hostileString, replace: hostileString }),
    }),
  }),
  fc.record({
    type: fc.constant('convert'),
    convert: fc.record({
      toType: fc.constantFrom('string', 'int', 'int64', 'bool', 'float64', 'object', 'array', 'other'),
      format: fc.constantFrom('', 'none', 'quantity', 'json', 'other'),
    }),
  }),
);

/** Inputs: any Go value, plus strings the parsers behind convert and FromBase64 take apart. */
const input = fc.oneof(
  goValue,
  fc.constantFrom('NaN', '-Inf', '1e400', '9'.repeat(50_000), `[${'['.repeat(20_000)}`, '1.5Gi', 'QUJD'),
  fc.nat({ max: 50_000 }).map((n) => `{"a":[${'1,'.repeat(n)}1]}`),
);

describe('functions/builtin/transforms: properties', () => {
  it('resolves every transform type over any value, or says why, in bounded time', () => {
    check(fc.tuple(fc.array(transform, { minLength: 1, maxLength: 3 }), input), 1000, ([transforms, value]) => {
      bounded(
        `transforms ${transforms.map((t) => t.type).join(',')}`,
        () => resolveTransforms(transforms, value),
        isOwnError,
      );
    });
  });
});
