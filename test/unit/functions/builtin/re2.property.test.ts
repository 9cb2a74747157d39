// Property: any pattern compiles or fails with Go's error or a LimitError, and any match of a compiled pattern
// returns or fails with a LimitError, each within CALL_BOUND_MS. Seed PROPERTY_SEED; 300 patterns, 300 matches.
import fc from 'fast-check';
import { LimitError } from '../../../../src/functions/builtin/limits.js';
import { GoRegexpError, compileGoRegexp } from '../../../../src/functions/builtin/re2.js';
import { bounded, check, hostileString } from './bounded.js';

const ATOMS = ['a', 'b', '.', '\\d', '\\w', '\\s', '\\pL', '[a-c]', '[^b]', '(?i)a', '\\b', '^', '$', '\\x{1F600}'];

/** Patterns from RE2's grammar (nested groups, alternation, counted repeats up to 1000) and raw metacharacters. */
const pattern: fc.Arbitrary<string> = fc.oneof(
  fc.letrec<{ re: string }>((tie) => ({
    re: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(...ATOMS),
      fc.tuple(tie('re'), tie('re')).map(([x, y]) => x + y),
      fc.tuple(tie('re'), tie('re')).map(([x, y]) => `${x}|${y}`),
      fc.tuple(fc.constantFrom('(', '(?:', '(?P<n>'), tie('re')).map(([open, x]) => `${open}${x})`),
      fc
        .tuple(tie('re'), fc.constantFrom('*', '+', '?', '*?', '{2}', '{0,5}', '{1000}', '{3,}'))
        .map(([x, op]) => `(?:${x})${op}`),
    ),
  })).re,
  fc.string({
    unit: fc.constantFrom('a', '(', ')', '[', ']', '{', '}', '*', '+', '?', '\\', '|', '^', '$', '1', ','),
    maxLength: 60,
  }),
);

const isCompileError = (err: unknown): boolean => err instanceof GoRegexpError || err instanceof LimitError;

describe('functions/builtin/re2: properties', () => {
  it('compiles any pattern, or says why, in bounded time', () => {
    check(pattern, 300, (source) => {
      bounded(`compile ${JSON.stringify(source)}`, () => compileGoRegexp(source), isCompileError);
    });
  });

  it('matches any input against any compiled pattern, or refuses it, in bounded time', () => {
    check(fc.tuple(pattern, hostileString), 300, ([source, input]) => {
      const re = bounded(`compile ${JSON.stringify(source)}`, () => compileGoRegexp(source), isCompileError);
      if (re === undefined) return;
      const what = `${JSON.stringify(source)} against ${input.length} characters`;
      bounded(
        `test ${what}`,
        () => re.test(input),
        (err) => err instanceof LimitError,
      );
      bounded(
        `submatch ${what}`,
        () => re.submatch(input),
        (err) => err instanceof LimitError,
      );
    });
  });
});
