// Property: fmt.Sprintf of any format over any operands returns, or refuses a result past MAX_STRING_LENGTH with a
// LimitError, within CALL_BOUND_MS. Seed PROPERTY_SEED; 500 runs.
import fc from 'fast-check';
import { goFormatV, goSprintf } from '../../../../src/functions/builtin/gofmt.js';
import { LimitError } from '../../../../src/functions/builtin/limits.js';
import { bounded, check, goValue } from './bounded.js';

const FLAGS = ['', '-', '+', '#', ' ', '0', '-0'];
const NUMBERS = ['', '*', '5', '1000000', '99999999', '999999999', '[1]', '[2]*', '[9]'];
const VERBS = ['v', 's', 'q', 'x', 'X', 'd', 'b', 'o', 'O', 'c', 'U', 't', 'e', 'E', 'f', 'F', 'g', 'G', 'T', '%', '!'];

/** One directive: flags, width, precision and verb, each possibly hostile. */
const directive: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...FLAGS),
    fc.constantFrom(...NUMBERS),
    fc.constantFrom('', '.', ...NUMBERS.map((n) => `.${n}`)),
    fc.constantFrom(...VERBS),
  )
  .map(([flags, width, prec, verb]) => `%${flags}${width}${prec}${verb}`);

const format: fc.Arbitrary<string> = fc
  .array(fc.oneof(directive, fc.constantFrom('x', ' ', '%')), { maxLength: 6 })
  .map((parts) => parts.join(''));

describe('functions/builtin/gofmt: properties', () => {
  it('formats any operands under any format, or refuses an oversized result, in bounded time', () => {
    check(
      fc.tuple(format, fc.array(fc.oneof(goValue, fc.bigInt({ min: -2_000_000n, max: 2_000_000n })), { maxLength: 4 })),
      500,
      ([f, args]) => {
        bounded(
          `goSprintf ${JSON.stringify(f)}`,
          () => goSprintf(f, args),
          (err) => err instanceof LimitError,
        );
        bounded(
          'goFormatV',
          () => goFormatV(args),
          (err) => err instanceof LimitError,
        );
      },
    );
  });
});
