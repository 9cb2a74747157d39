// Go's fmt.Sprintf over the values P&T's transforms see (string, float64, int64, int, bool, nil, []interface{},
// map[string]interface{}), written from the behaviour the fmt package documents: flags `+ - # 0 space`, width and
// precision (digits, `*`, explicit `[n]` argument indexes), the verbs v s q x X d b o O c U t e E f F g G T and %%,
// and Go's error forms: %!d(string=foo), %!s(MISSING), %!(EXTRA string=foo), %!d(BADINDEX), %!(BADWIDTH),
// %!(BADPREC), %!(NOVERB).
import { formatAbsFloat } from './goFloat.js';
import { goQuote } from './gostd.js';
import { checkStringLength } from './limits.js';
import { GoInt, goTypeName, type GoValue } from './govalue.js';

interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  wid: number | undefined;
  prec: number | undefined;
}

const NO_FLAGS: Flags = {
  plus: false,
  minus: false,
  sharp: false,
  space: false,
  zero: false,
  wid: undefined,
  prec: undefined,
};

/** Go's runes of a string: its code points. */
function runes(s: string): string[] {
  return Array.from(s);
}

function runeCount(s: string): number {
  return runes(s).length;
}

/** Pads to the width with spaces (or zeros when the zero flag is set), on the right with the minus flag. */
function pad(s: string, f: Flags, zeroAllowed = true): string {
  const n = (f.wid ?? 0) - runeCount(s);
  if (n <= 0) return s;
  if (f.minus) return s + ' '.repeat(n);
  return (f.zero && zeroAllowed ? '0' : ' ').repeat(n) + s;
}

function isInt(v: GoValue): v is bigint | GoInt {
  return typeof v === 'bigint' || v instanceof GoInt;
}

function intValue(v: bigint | GoInt): bigint {
  return v instanceof GoInt ? v.value : v;
}

function badVerb(verb: string, v: GoValue, f: Flags): string {
  if (v === null || v === undefined) return `%!${verb}(<nil>)`;
  return `%!${verb}(${goTypeName(v)}=${printArg(v, 'v', f)})`;
}

// ---- integers (fmt/format.go fmtInteger) ----

function signOf(negative: boolean, f: Flags): string {
  if (negative) return '-';
  if (f.plus) return '+';
  return f.space ? ' ' : '';
}

function basePrefix(base: number, verb: string, f: Flags, upper: boolean): string {
  if (verb === 'O') return '0o';
  if (!f.sharp) return '';
  if (base === 2) return '0b';
  if (base === 8) return '0';
  if (base === 16) return upper ? '0X' : '0x';
  return '';
}

function fmtInteger(n: bigint, base: number, verb: string, f: Flags): string {
  const negative = n < 0n;
  const upper = verb === 'X';
  let digits = (negative ? -n : n).toString(base);
  if (upper) digits = digits.toUpperCase();
  const sign = signOf(negative, f);
  if (f.prec !== undefined) {
    // An explicit precision of 0 prints nothing for 0; it also turns the zero flag off.
    if (f.prec === 0 && n === 0n) return pad('', { ...f, zero: false });
    digits = digits.padStart(f.prec, '0');
  } else if (f.zero && f.wid !== undefined && !f.minus) {
    digits = digits.padStart(f.wid - sign.length, '0');
  }
  // Go's octal # prefix is a leading 0 unless the digits already start with one.
  let prefix = basePrefix(base, verb, f, upper);
  if (prefix === '0' && digits.startsWith('0')) prefix = '';
  return pad(sign + prefix + digits, { ...f, zero: false });
}

function fmtUnicode(n: bigint, f: Flags): string {
  let hex = n.toString(16).toUpperCase();
  hex = hex.padStart(Math.max(4, f.prec ?? 0), '0');
  let out = `U+${hex}`;
  if (f.sharp && n >= 0n && n <= 0x10ffffn) out += ` '${String.fromCodePoint(Number(n))}'`;
  return pad(out, { ...f, zero: false });
}

function runeOf(n: bigint): string {
  const valid = n >= 0n && n <= 0x10ffffn && !(n >= 0xd800n && n <= 0xdfffn);
  return valid ? String.fromCodePoint(Number(n)) : '\uFFFD';
}

function quoteRune(r: string): string {
  if (r === "'") return "'\\''";
  if (r === '"') return `'"'`;
  const quoted = goQuote(r);
  return `'${quoted.slice(1, -1)}'`;
}

const INT_BASES: Readonly<Record<string, number>> = { v: 10, d: 10, b: 2, o: 8, O: 8, x: 16, X: 16 };

function printInteger(n: bigint, verb: string, f: Flags, original: GoValue): string {
  const base = INT_BASES[verb];
  if (base !== undefined) return fmtInteger(n, base, verb, f);
  if (verb === 'c') return pad(runeOf(n), f);
  if (verb === 'q') return pad(quoteRune(runeOf(n)), f);
  if (verb === 'U') return fmtUnicode(n, f);
  return badVerb(verb, original, f);
}

// ---- floats (strconv.FormatFloat and fmt/format.go fmtFloat) ----

/**
 * The sign fmt writes: '-' for negatives; strconv writes "+Inf", which fmt keeps; NaN and positive numbers get '+'
 * or ' ' only when the flags ask.
 */
function floatSign(f: number, flags: Flags): string {
  if (f < 0 || Object.is(f, -0)) return '-';
  if (flags.plus) return '+';
  if (flags.space) return ' ';
  return f === Infinity ? '+' : '';
}

/** The sharp flag keeps the decimal point of %e and %f with precision 0 (fmt/format.go fmtFloat). */
function withPoint(body: string, verb: string): string {
  if (body.includes('.')) return body;
  if (verb === 'f' || verb === 'F') return `${body}.`;
  if (verb === 'e' || verb === 'E') return body.replace(/[eE]/, (e) => `.${e}`);
  return body;
}

/** fmt's %e %E %f %F %g %G %v of a float64: zero padding goes after the sign; Inf and NaN pad with spaces. */
function fmtFloat(f: number, verb: string, defaultPrec: number, flags: Flags): string {
  let body = formatAbsFloat(f, verb === 'v' ? 'g' : verb, flags.prec ?? defaultPrec);
  const finite = Number.isFinite(f);
  if (flags.sharp && finite) body = withPoint(body, verb);
  const sign = floatSign(f, flags);
  if (flags.zero && finite && flags.wid !== undefined && !flags.minus) {
    return sign + body.padStart(flags.wid - sign.length, '0');
  }
  return pad(sign + body, { ...flags, zero: false });
}

const FLOAT_PRECS: Readonly<Record<string, number>> = { v: -1, g: -1, G: -1, e: 6, E: 6, f: 6, F: 6 };

function printFloat(v: number, verb: string, f: Flags): string {
  const prec = FLOAT_PRECS[verb];
  return prec === undefined ? badVerb(verb, v, f) : fmtFloat(v, verb, prec, f);
}

// ---- strings and bools ----

function truncate(s: string, f: Flags): string {
  return f.prec === undefined ? s : runes(s).slice(0, f.prec).join('');
}

function hexOf(s: string, f: Flags, upper: boolean): string {
  let bytes = Buffer.from(s, 'utf8');
  if (f.prec !== undefined) bytes = bytes.subarray(0, f.prec);
  const parts = [...bytes].map((b) => b.toString(16).padStart(2, '0'));
  const prefix = f.sharp ? '0x' : '';
  const joined = f.space ? parts.map((p) => prefix + p).join(' ') : prefix + parts.join('');
  const out = upper ? joined.toUpperCase() : joined;
  return pad(out, f);
}

function printString(s: string, verb: string, flags: Flags): string {
  // The zero flag is ignored for strings (fmt docs: "ignored for strings, byte slices and byte arrays").
  const f = { ...flags, zero: false };
  switch (verb) {
    case 'v':
    case 's':
      return pad(truncate(s, f), f);
    case 'q':
      return pad(f.sharp && !s.includes('`') ? `\`${truncate(s, f)}\`` : goQuote(truncate(s, f)), f);
    case 'x':
    case 'X':
      return hexOf(s, f, verb === 'X');
    default:
      return badVerb(verb, s, f);
  }
}

function printBool(b: boolean, verb: string, f: Flags): string {
  return verb === 't' || verb === 'v' ? pad(String(b), f) : badVerb(verb, b, f);
}

// ---- composite values (fmt/print.go printValue) ----

function printComposite(v: GoValue, verb: string, f: Flags): string {
  // A nil element of a slice or map prints as <nil> whatever the verb (printValue's invalid reflect.Value).
  const element = (x: GoValue): string => (x === null || x === undefined ? '<nil>' : printArg(x, verb, f));
  if (Array.isArray(v)) return `[${joinBounded(v.map((x) => () => element(x)))}]`;
  const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[${joinBounded(
    entries.map(
      ([k, x]) =>
        () =>
          `${printString(k, verb, f)}:${element(x)}`,
    ),
  )}]`;
}

/** The parts joined by spaces, each built only while the whole stays within the string limit (a width pads each). */
function joinBounded(parts: readonly (() => string)[]): string {
  const out: string[] = [];
  let length = 0;
  for (const part of parts) {
    const text = part();
    length += text.length + 1;
    checkStringLength('format', length);
    out.push(text);
  }
  return out.join(' ');
}

/** fmt's printArg: one operand under one verb. */
function printArg(v: GoValue, verb: string, f: Flags): string {
  if (verb === 'T') return pad(goTypeName(v), f);
  if (v === null || v === undefined) return verb === 'v' ? pad('<nil>', f) : badVerb(verb, v, f);
  if (typeof v === 'boolean') return printBool(v, verb, f);
  if (typeof v === 'number') return printFloat(v, verb, f);
  if (isInt(v)) return printInteger(intValue(v), verb, f, v);
  if (typeof v === 'string') return printString(v, verb, f);
  return printComposite(v, verb, f);
}

/** %v of a value, as fmt.Sprint prints it. */
export function goFormatV(v: GoValue): string {
  return printArg(v, 'v', NO_FLAGS);
}

// ---- the format string (fmt/print.go doPrintf) ----

interface State {
  format: string;
  i: number;
  args: readonly GoValue[];
  argNum: number;
  reordered: boolean;
  goodArgNum: boolean;
}

/** `[n]` (fmt's argNumber): sets the argument number and returns true; a bad index marks the directive. */
function argNumber(s: State): boolean {
  if (s.format[s.i] !== '[') return false;
  s.reordered = true;
  const close = s.format.indexOf(']', s.i);
  if (s.format.length - s.i < 3 || close < 0) {
    s.goodArgNum = false;
    s.i += 1;
    return false;
  }
  const text = s.format.slice(s.i + 1, close);
  s.i = close + 1;
  if (!/^\d+$/.test(text)) {
    s.goodArgNum = false;
    return false;
  }
  const index = Number(text) - 1;
  if (index >= 0 && index < s.args.length) s.argNum = index;
  else s.goodArgNum = false;
  return true;
}

/** fmt's parsenum: a number that grows past 1e6 before its last digit is "crazy long" and ends the format. */
function parseNumber(s: State): number | undefined {
  let n: number | undefined;
  for (let c = s.format.charAt(s.i); c >= '0' && c <= '9'; c = s.format.charAt(s.i)) {
    if (n !== undefined && n > 1_000_000) {
      s.i = s.format.length;
      return undefined;
    }
    n = (n ?? 0) * 10 + Number(c);
    s.i++;
  }
  return n;
}

/** A `*` operand (fmt's intFromArg): an int within ±1e6, or undefined (Go's BADWIDTH / BADPREC). */
function starArg(s: State): number | undefined {
  if (s.argNum >= s.args.length) return undefined;
  const v = s.args[s.argNum++];
  if (!isInt(v)) return undefined;
  const n = intValue(v);
  return n > 1_000_000n || n < -1_000_000n ? undefined : Number(n);
}

function parseFlags(s: State, f: Flags): void {
  for (; s.i < s.format.length; s.i++) {
    const c = s.format[s.i];
    if (c === '#') f.sharp = true;
    else if (c === '0') f.zero = !f.minus;
    else if (c === '+') f.plus = true;
    else if (c === '-') {
      f.minus = true;
      f.zero = false;
    } else if (c === ' ') f.space = true;
    else return;
  }
}

/** Width: `*` or digits; returns whether an explicit index is still in effect (fmt's afterIndex). */
function parseWidth(s: State, f: Flags, out: string[]): boolean {
  const afterIndex = argNumber(s);
  if (s.format[s.i] === '*') {
    s.i++;
    const w = starArg(s);
    if (w === undefined) out.push('%!(BADWIDTH)');
    else if (w < 0) {
      f.minus = true;
      f.zero = false;
      f.wid = -w;
    } else f.wid = w;
    return false;
  }
  f.wid = parseNumber(s);
  // "%[3]2d": a width after an index is a bad index.
  if (afterIndex && f.wid !== undefined) s.goodArgNum = false;
  return afterIndex;
}

/** Precision: `.` then `*` or digits (none means 0); a `.` that ends the format is the verb. */
function parsePrecision(s: State, f: Flags, out: string[], afterWidth: boolean): boolean {
  if (s.format[s.i] !== '.' || s.i + 1 >= s.format.length) return afterWidth;
  s.i++;
  // "%[3].2d": a precision after an index is a bad index.
  if (afterWidth) s.goodArgNum = false;
  const afterIndex = argNumber(s);
  if (s.format[s.i] === '*') {
    s.i++;
    const p = starArg(s);
    if (p === undefined || p < 0) out.push('%!(BADPREC)');
    else f.prec = p;
    return false;
  }
  f.prec = parseNumber(s) ?? 0;
  return afterIndex;
}

/** One directive after its `%`. */
function directive(s: State): string {
  const f: Flags = { ...NO_FLAGS };
  const out: string[] = [];
  parseFlags(s, f);
  const afterIndex = parsePrecision(s, f, out, parseWidth(s, f, out));
  // Go pads to any width up to ~1e7 a directive; no result that long could be stored.
  checkStringLength('format', Math.max(f.wid ?? 0, f.prec ?? 0));
  if (!afterIndex) argNumber(s);
  if (s.i >= s.format.length) return `${out.join('')}%!(NOVERB)`;
  const verb = String.fromCodePoint(s.format.codePointAt(s.i) ?? 0);
  s.i += verb.length;
  if (verb === '%') return `${out.join('')}%`;
  if (!s.goodArgNum) return `${out.join('')}%!${verb}(BADINDEX)`;
  if (s.argNum >= s.args.length) return `${out.join('')}%!${verb}(MISSING)`;
  const v = s.args[s.argNum++];
  return out.join('') + printArg(v, verb, f);
}

/**
 * fmt.Sprintf. As Go, an explicit argument index anywhere turns off the EXTRA report.
 *
 * @example goSprintf('%05.1f|%-4d|%q', [3.14159, 7n, 'a"b']) === '003.1|7   |"a\\"b"'
 */
export function goSprintf(format: string, args: readonly GoValue[]): string {
  const s: State = { format, i: 0, args, argNum: 0, reordered: false, goodArgNum: true };
  let out = '';
  while (s.i < format.length) {
    const next = format.indexOf('%', s.i);
    if (next < 0) {
      out += format.slice(s.i);
      break;
    }
    out += format.slice(s.i, next);
    s.i = next + 1;
    s.goodArgNum = true;
    out += directive(s);
    checkStringLength('format', out.length);
  }
  if (!s.reordered && s.argNum < args.length) {
    const extra = args
      .slice(s.argNum)
      .map((a) => (a === null || a === undefined ? '<nil>' : `${goTypeName(a)}=${goFormatV(a)}`));
    out += `%!(EXTRA ${extra.join(', ')})`;
  }
  return out;
}
