// Go's regexp on re2js: Go's error texts (a compatibility contract, compared byte for byte), Go's matching
// semantics where JavaScript's differ, and the bounds compositor adds.
import { expect } from 'chai';
import { LimitError } from '../../../../src/functions/builtin/limits.js';
import {
  GoRegexpError,
  MAX_MATCH_COST,
  MAX_PATTERN_LENGTH,
  compileGoRegexp,
} from '../../../../src/functions/builtin/re2.js';

const errors: Record<string, { reason: string; pattern: string; want: string }> = {
  Lookahead: { reason: 'RE2 has no lookaround', pattern: 'a(?=b)', want: 'invalid or unsupported Perl syntax: `(?=`' },
  Lookbehind: { reason: 'Go reads (?< as a name', pattern: '(?<=a)b', want: 'invalid named capture: `(?<=a)b`' },
  Backreference: { reason: 'RE2 has no backreferences', pattern: '(a)\\1', want: 'invalid escape sequence: `\\1`' },
  MissingParen: { reason: 'the whole pattern is named', pattern: '(a', want: 'missing closing ): `(a`' },
  UnexpectedParen: { reason: 'the whole pattern is named', pattern: 'a)', want: 'unexpected ): `a)`' },
  NestedRepeat: {
    reason: 'Go rejects a repeat of a repeat',
    pattern: 'a**',
    want: 'invalid nested repetition operator: `**`',
  },
  RepeatCount: { reason: 'at most 1000', pattern: 'x{1001}', want: 'invalid repeat count: `{1001}`' },
  RepeatProduct: {
    reason: 'nested counts multiply past 1000 (repeatIsValid)',
    pattern: '((a{100}){100})',
    want: 'invalid repeat count: `{100}`',
  },
  HexTooLarge: {
    reason: 'Go stops at the digit that passes U+10FFFF',
    pattern: '\\x{110000}',
    want: 'invalid escape sequence: `\\x{110000`',
  },
  TrailingBackslash: {
    reason: 'Go names no expression',
    pattern: 'ab\\',
    want: 'trailing backslash at end of expression: ``',
  },
  UnknownClass: {
    reason: 'an unknown Unicode class',
    pattern: '\\p{Foo}',
    want: 'invalid character class range: `\\p{Foo}`',
  },
};

const matches: Record<string, { reason: string; pattern: string; input: string; want: string[] | null }> = {
  DotNewline: { reason: '. does not match \\n', pattern: 'a.b', input: 'a\nb', want: null },
  DotCarriageReturn: { reason: '. matches \\r', pattern: 'a.b', input: 'a\rb', want: ['a\rb'] },
  DollarEndOnly: { reason: '$ is the end of text without (?m)', pattern: '^a$', input: 'a\n', want: null },
  AsciiSpace: { reason: '\\s is ASCII', pattern: '\\s+', input: '\u00a0 \t', want: [' \t'] },
  Ungreedy: { reason: '(?U) swaps greediness', pattern: '(?U)a+', input: 'aaa', want: ['a'] },
  SimpleFold: { reason: '(?i) folds K and the Kelvin sign', pattern: '(?i)k', input: '\u212a', want: ['\u212a'] },
  NoFullFold: { reason: 'no full case folding', pattern: '(?i)straße', input: 'STRASSE', want: null },
  NamedGroups: {
    reason: 'named groups count as numbered',
    pattern: '(?P<x>[0-9]+)-(?<y>[a-z]+)',
    input: '12-ab',
    want: ['12-ab', '12', 'ab'],
  },
  UnmatchedGroup: { reason: 'a group that took no part is empty', pattern: 'b(c)?', input: 'ab', want: ['b', ''] },
  LeftmostFirst: {
    reason: 'Perl-like leftmost-first alternation',
    pattern: '(a|ab)(c|bcd)(d*)',
    input: 'abcd',
    want: ['abcd', 'a', 'bcd', ''],
  },
  Astral: { reason: 'one code point is one character', pattern: '^.$', input: '😀', want: ['😀'] },
};

describe('functions/builtin/re2', () => {
  describe("Go's error texts", () => {
    for (const [name, tc] of Object.entries(errors)) {
      it(name, () => {
        const err = (() => {
          try {
            compileGoRegexp(tc.pattern);
          } catch (e) {
            return e;
          }
          return undefined;
        })();
        expect(err, tc.reason).to.be.instanceOf(GoRegexpError);
        expect((err as Error).message, tc.reason).to.equal(`error parsing regexp: ${tc.want}`);
      });
    }
  });

  describe("Go's matching", () => {
    for (const [name, tc] of Object.entries(matches)) {
      it(name, () => {
        expect(compileGoRegexp(tc.pattern).submatch(tc.input), tc.reason).to.deep.equal(tc.want);
        expect(compileGoRegexp(tc.pattern).test(tc.input), tc.reason).to.equal(tc.want !== null);
      });
    }
  });

  describe('bounds', () => {
    it('refuses a pattern longer than MAX_PATTERN_LENGTH', () => {
      expect(() => compileGoRegexp('a'.repeat(MAX_PATTERN_LENGTH + 1))).to.throw(LimitError, 'longer than');
      expect(compileGoRegexp('a'.repeat(MAX_PATTERN_LENGTH)).test('b')).to.equal(false);
    });

    it('refuses a program Go accepts but that takes seconds to compile, before compiling it', () => {
      for (const pattern of ['a{1000}'.repeat(6), `${'a{1000}'.repeat(6)}\\Qx`, '(?i:[\\pL]{1000})'.repeat(6)]) {
        const start = performance.now();
        expect(() => compileGoRegexp(pattern), pattern).to.throw(LimitError, 'instructions');
        expect(performance.now() - start, pattern).to.be.below(200);
      }
      expect(compileGoRegexp('a{1000}'.repeat(4)).test('b')).to.equal(false);
    });

    it('names the syntax error of a pattern whose size probe stopped early', () => {
      expect(() => compileGoRegexp(`${'a{1000}'.repeat(6)})\\Q`)).to.throw(GoRegexpError, 'unexpected )');
      expect(() => compileGoRegexp('a\\E')).to.throw(GoRegexpError, 'invalid escape sequence: `\\E`');
    });

    it('refuses a match whose program size times input length passes MAX_MATCH_COST', () => {
      const re = compileGoRegexp('(.*){500}$');
      expect(() => re.submatch('a'.repeat(MAX_MATCH_COST))).to.throw(LimitError, 'steps');
      expect(() => re.test('a'.repeat(1000))).to.throw(LimitError, 'steps');
      expect(re.submatch('ab')).to.deep.equal(['ab', '']);
    });

    it('reuses a compiled pattern and its error', () => {
      expect(compileGoRegexp('x+')).to.equal(compileGoRegexp('x+'));
      const first = (): unknown => compileGoRegexp('(');
      expect(first).to.throw(GoRegexpError);
      expect(first).to.throw(GoRegexpError);
    });
  });
});
