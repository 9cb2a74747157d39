// Property: any path parses or fails with a parse error or a LimitError, and get, set and wildcard expansion on
// any object return or fail with their own errors, each within CALL_BOUND_MS. Seed PROPERTY_SEED; 400 runs each.
import fc from 'fast-check';
import { expandWildcards, getValue, parsePath, setValue } from '../../../../src/functions/builtin/fieldpath.js';
import { bounded, check, hostileString, isOwnError, jsonObject } from './bounded.js';

const SEGMENTS = [
  'spec',
  'list',
  'text',
  'a',
  '[0]',
  '[1]',
  '[*]',
  '[4294967296]',
  '[99999999]',
  "['a.b']",
  '.',
  '[',
  ']',
];

/** Paths from segments (with a long one now and then), plus arbitrary strings. */
const path: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 12 }).map((parts) => parts.join('.').replace(/\.\[/g, '[')),
  fc.nat({ max: 3000 }).map((n) => 'spec.'.repeat(n) + 'x'),
  hostileString,
);

describe('functions/builtin/fieldpath: properties', () => {
  it('parses any path, or says why, in bounded time', () => {
    check(path, 400, (p) => {
      bounded(`parsePath ${p.slice(0, 60)}`, () => parsePath(p), isOwnError);
    });
  });

  it('gets, sets and expands any path on any object in bounded time', () => {
    check(fc.tuple(path, jsonObject), 400, ([p, object]) => {
      const what = p.slice(0, 60);
      bounded(`getValue ${what}`, () => getValue(object, p), isOwnError);
      bounded(`expandWildcards ${what}`, () => expandWildcards(object, p), isOwnError);
      bounded(
        `setValue ${what}`,
        () => {
          setValue(structuredClone(object), p, 'v');
        },
        isOwnError,
      );
    });
  });
});
