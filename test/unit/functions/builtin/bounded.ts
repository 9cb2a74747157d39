// Shared by the property tests of the built-ins: generated hostile input, and the contract each call must keep,
// measured rather than waited for: it returns, or throws the error its module means to throw, within CALL_BOUND_MS.
//
// Every property runs with the fixed seed PROPERTY_SEED and a fixed number of runs (stated in each file), so a
// failure reproduces exactly; the whole suite stays well under 20 s on a loaded 2-core machine.
import fc from 'fast-check';
import { GoInt } from '../../../../src/functions/builtin/govalue.js';

export const PROPERTY_SEED = 20_261_128;

/** Longest a single synchronous call may take (performance.now() around it). */
export const CALL_BOUND_MS = 200;

/** The runtime's own failures: a crash (stack overflow, invalid length, wrong type), never a meant error. */
function isRuntimeFailure(err: unknown): boolean {
  return (
    err instanceof TypeError || err instanceof RangeError || err instanceof SyntaxError || err instanceof ReferenceError
  );
}

/** An error a built-in means to throw: its own, with upstream's text or a LimitError, not a runtime failure. */
export function isOwnError(err: unknown): boolean {
  return err instanceof Error && !isRuntimeFailure(err);
}

/**
 * Calls f once and checks the contract; returns f's result, or undefined when it threw an accepted error. The time
 * is measured with performance.now() around the call; a call over the bound fails unless the process spent less
 * than the bound on the CPU meanwhile (process.cpuUsage()), which is the scheduler of a loaded machine, not f.
 *
 * @example bounded('parsePath', () => parsePath(path), isOwnError)
 */
export function bounded<T>(what: string, f: () => T, accepted: (err: unknown) => boolean): T | undefined {
  const cpu = process.cpuUsage();
  const start = performance.now();
  let result: T | undefined;
  let failure: { err: unknown } | undefined;
  try {
    result = f();
  } catch (err) {
    failure = { err };
  }
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  if (ms >= CALL_BOUND_MS && cpuMs >= CALL_BOUND_MS) {
    throw new Error(
      `${what} took ${ms.toFixed(1)} ms (${cpuMs.toFixed(1)} ms on the CPU), more than ${CALL_BOUND_MS} ms`,
    );
  }
  if (failure !== undefined && !accepted(failure.err)) {
    throw new Error(`${what} threw ${String(failure.err)}`, { cause: failure.err });
  }
  return result;
}

/** Runs a property with the suite's seed and a fixed number of runs. */
export function check<T>(arbitrary: fc.Arbitrary<T>, numRuns: number, predicate: (value: T) => void): void {
  fc.assert(
    fc.property(arbitrary, (value) => {
      predicate(value);
    }),
    { seed: PROPERTY_SEED, numRuns },
  );
}

/** Characters that mean something to the parsers under test, and some that are awkward in JavaScript. */
const AWKWARD = [
  'a',
  'b',
  'z',
  '0',
  '9',
  '.',
  '*',
  '[',
  ']',
  '(',
  ')',
  '{',
  '}',
  '%',
  '\\',
  '"',
  "'",
  '\n',
  '😀',
  '\u0000',
];

/** Strings: short random ones, short ones over awkward characters, and long runs built to be hostile. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: fc.constantFrom(...AWKWARD), maxLength: 200 }),
  fc
    .tuple(fc.constantFrom('a', '9', '[', '.', '%', '😀', 'ab'), fc.nat({ max: 20_000 }), fc.constantFrom('', 'b', '!'))
    .map(([unit, n, tail]) => unit.repeat(n) + tail),
);

/** The values P&T's transforms see: Go's string, float64, int64, int, bool, nil, slices and maps. */
export const goValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.double(),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    fc.bigInt({ min: -1000n, max: 1000n }).map((n) => new GoInt(n)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** JSON objects as the API server stores them, some with a long list or a long string somewhere. */
export const jsonObject: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
  fc
    .nat({ max: 5000 })
    .map((n) => ({ spec: { list: Array.from({ length: n }, (_, i) => i), text: `${'a'.repeat(n)}b` } })),
);
