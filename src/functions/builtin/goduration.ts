// Go's time.ParseDuration (go/src/time/format.go), with its error texts: function-auto-ready reports them as
// `cannot set ttl: time: invalid duration "x"`, so they are a compatibility contract.

/** Nanoseconds per unit, as time's unitMap. */
const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n],
  ['\u03bcs', 1_000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

const MAX = 2n ** 63n;

/** time's own quote: ASCII printables stay (with \" and \\ escaped), other bytes become \xNN. */
export function goTimeQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code >= 0x80 || code < 0x20) {
      for (const byte of Buffer.from(ch, 'utf8')) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    } else out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
  }
  return `${out}"`;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

interface Term {
  nanos: bigint;
  rest: string;
}

interface LeadingNumber {
  int: string;
  frac: string;
  rest: string;
}

/** The `[0-9]*(\.[0-9]*)?` of a term; Go's leadingInt and leadingFraction. */
function leadingNumber(s: string, orig: string): LeadingNumber {
  const invalid = new Error(`time: invalid duration ${goTimeQuote(orig)}`);
  if (!(s[0] === '.' || isDigit(s[0]))) throw invalid;
  const int = /^[0-9]*/.exec(s)?.[0] ?? '';
  let rest = s.slice(int.length);
  let frac = '';
  if (rest.startsWith('.')) {
    frac = /^[0-9]*/.exec(rest.slice(1))?.[0] ?? '';
    rest = rest.slice(1 + frac.length);
    if (int === '' && frac === '') throw invalid;
  }
  return { int, frac, rest };
}

/** One `[0-9]*(\.[0-9]*)?unit` term of the duration `orig`. */
function term(s: string, orig: string): Term {
  const { int, frac, rest } = leadingNumber(s, orig);
  const unitLength = /^[^0-9.]*/.exec(rest)?.[0].length ?? 0;
  if (unitLength === 0) throw new Error(`time: missing unit in duration ${goTimeQuote(orig)}`);
  const unitText = rest.slice(0, unitLength);
  const unit = UNITS.get(unitText);
  if (unit === undefined) {
    throw new Error(`time: unknown unit ${goTimeQuote(unitText)} in duration ${goTimeQuote(orig)}`);
  }
  const whole = BigInt(int === '' ? '0' : int);
  if (whole > MAX / unit) throw new Error(`time: invalid duration ${goTimeQuote(orig)}`);
  // Fractions beyond what a nanosecond can hold are dropped, as Go's leadingFraction does.
  const nanos = whole * unit + (frac === '' ? 0n : (BigInt(frac) * unit) / 10n ** BigInt(frac.length));
  if (nanos > MAX) throw new Error(`time: invalid duration ${goTimeQuote(orig)}`);
  return { nanos, rest: rest.slice(unitLength) };
}

/**
 * time.ParseDuration, in nanoseconds.
 *
 * @example parseGoDuration('1m30s') === 90_000_000_000n
 * @throws Error with Go's text, e.g. `time: unknown unit "d" in duration "1d"`.
 */
export function parseGoDuration(orig: string): bigint {
  let s = orig;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw new Error(`time: invalid duration ${goTimeQuote(orig)}`);
  let total = 0n;
  while (s !== '') {
    const next = term(s, orig);
    total += next.nanos;
    if (total > MAX) throw new Error(`time: invalid duration ${goTimeQuote(orig)}`);
    s = next.rest;
  }
  if (negative) return -total;
  if (total > MAX - 1n) throw new Error(`time: invalid duration ${goTimeQuote(orig)}`);
  return total;
}
