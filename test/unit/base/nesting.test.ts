import { expect } from 'chai';
import {
  approximateSize,
  assertNesting,
  deeperThan,
  MAX_NESTING_DEPTH,
  NestingDepthError,
} from '../../../src/base/index.js';

/** `levels` objects (or arrays) inside each other, built without recursion. */
function nested(levels: number, array = false): unknown {
  let value: unknown = array ? [] : {};
  for (let i = 1; i < levels; i++) value = array ? [value] : { a: value };
  return value;
}

describe('base/deeperThan', () => {
  const cases: Record<string, { reason: string; value: unknown; max: number; want: string | undefined }> = {
    scalar: { reason: 'a scalar nests nothing', value: 'text', max: 0, want: undefined },
    'at the limit': { reason: 'exactly max levels is accepted', value: nested(3), max: 3, want: undefined },
    'one past': { reason: 'the path names the value past the limit', value: nested(4), max: 3, want: 'a.a.a' },
    arrays: { reason: 'arrays count as levels too', value: { l: nested(3, true) }, max: 3, want: 'l[0][0]' },
    bytes: {
      reason: 'bytes are a leaf, not an array',
      value: { b: new Uint8Array(8) },
      max: 1,
      want: undefined,
    },
    'long path': {
      reason: 'the path shows its first six segments',
      value: nested(20),
      max: 10,
      want: 'a.a.a.a.a.a…',
    },
  };
  for (const [name, { reason, value, max, want }] of Object.entries(cases)) {
    it(name, () => {
      expect(deeperThan(value, max), reason).to.equal(want);
    });
  }

  // Timed against JSON.stringify of the same value, which is linear, so a loaded machine slows both alike.
  function timedAgainstStringify(value: unknown, walk: () => void): { walkMs: number; stringifyMs: number } {
    let started = performance.now();
    JSON.stringify(value);
    const stringifyMs = performance.now() - started;
    started = performance.now();
    walk();
    return { walkMs: performance.now() - started, stringifyMs };
  }

  it('measures 100,000 levels without recursion', () => {
    const deep = nested(100_000);
    const started = performance.now();
    expect(deeperThan(deep)).to.equal('a.a.a.a.a.a…');
    expect(deeperThan(deep, 200_000)).to.equal(undefined);
    // JSON.stringify cannot walk this deep (it overflows the stack), so the bound is absolute and generous.
    expect(performance.now() - started).to.be.below(5000);
  });

  it('walks a wide object (50,000 keys) in about the time JSON.stringify takes', () => {
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 50_000; i++) wide[`k${i}`] = { v: [i] };
    const { walkMs, stringifyMs } = timedAgainstStringify(wide, () => {
      expect(deeperThan(wide)).to.equal(undefined);
    });
    expect(walkMs).to.be.below(10 * stringifyMs + 200);
  });

  it('assertNesting throws a NestingDepthError naming what and where', () => {
    const err = (() => {
      try {
        assertNesting({ spec: nested(MAX_NESTING_DEPTH + 5) }, 'composite resource "x"');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).to.be.instanceOf(NestingDepthError);
    expect((err as Error).message).to.equal(
      `composite resource "x" nests deeper than ${MAX_NESTING_DEPTH} levels of objects and arrays (at spec.a.a.a.a.a…)`,
    );
  });
});

describe('base/approximateSize', () => {
  const cases: Record<string, { value: unknown; want: number }> = {
    'keys and strings, two bytes a character': { value: { a: 'xyz' }, want: 8 },
    'numbers, booleans and null': { value: [1, true, null], want: 16 },
    bytes: { value: { b: new Uint8Array(10) }, want: 12 },
    'nothing in undefined': { value: [undefined, 'a'], want: 2 },
  };
  for (const [name, { value, want }] of Object.entries(cases)) {
    it(name, () => {
      expect(approximateSize(value)).to.equal(want);
    });
  }

  it('measures 100,000 levels without recursion', () => {
    let value: unknown = 'x';
    for (let i = 0; i < 100_000; i++) value = { a: value };
    expect(approximateSize(value)).to.equal(200_002);
  });
});
