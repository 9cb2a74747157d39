// Go standard library behaviour the P&T transforms expose to users: strconv parsing and quoting, base64 decoding and
// json.Marshal, with Go's results and Go's error texts (users see them in FATAL results).
import { GoInt } from './govalue.js';

const QUOTE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** How strconv.Quote writes one character; undefined when it stays as it is. */
function quoteEscape(ch: string, code: number): string | undefined {
  if (code >= 0x20 && code < 0x7f && ch !== '"' && ch !== '\\') return undefined;
  const named = QUOTE_ESCAPES[ch];
  if (named !== undefined) return named;
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (/^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch)) return undefined;
  if (code > 0xffff) return `\\U${code.toString(16).padStart(8, '0')}`;
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** strconv.Quote: printable characters stay, the rest become Go escapes. Runs that stay are copied whole. */
export function goQuote(text: string): string {
  const parts = ['"'];
  let kept = 0;
  for (let i = 0; i < text.length;) {
    const code = text.codePointAt(i) ?? 0;
    const next = i + (code > 0xffff ? 2 : 1);
    const escaped = quoteEscape(text.slice(i, next), code);
    if (escaped !== undefined) {
      parts.push(text.slice(kept, i), escaped);
      kept = next;
    }
    i = next;
  }
  parts.push(text.slice(kept), '"');
  return parts.join('');
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(text, 10, 64). */
export function parseGoInt(text: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(text)) throw new Error(`strconv.ParseInt: parsing ${goQuote(text)}: invalid syntax`);
  const outOfRange = (): Error => new Error(`strconv.ParseInt: parsing ${goQuote(text)}: value out of range`);
  // More than 19 significant digits is out of range; BigInt of a long string takes quadratic time to find out.
  if (text.replace(/^[+-]?0*/, '').length > 19) throw outOfRange();
  const n = BigInt(text);
  if (n < INT64_MIN || n > INT64_MAX) throw outOfRange();
  return n;
}

/** strconv.ParseBool. */
export function parseGoBool(text: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  throw new Error(`strconv.ParseBool: parsing ${goQuote(text)}: invalid syntax`);
}

// Each digit can be read one way only, so a long run of digits that fails to match fails in linear time.
const DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const SPECIAL = /^[+-]?(?:inf|infinity|nan)$/i;

/** strconv.ParseFloat(text, 64): decimal and special forms; out of range is an error as in Go. */
export function parseGoFloat(text: string): number {
  const invalid = (): Error => new Error(`strconv.ParseFloat: parsing ${goQuote(text)}: invalid syntax`);
  if (SPECIAL.test(text)) return /nan/i.test(text) ? NaN : text.startsWith('-') ? -Infinity : Infinity;
  // Underscores are only allowed with a base prefix, which decimal floats never have.
  if (!DECIMAL.test(text)) throw invalid();
  const n = Number(text);
  if (!Number.isFinite(n)) throw new Error(`strconv.ParseFloat: parsing ${goQuote(text)}: value out of range`);
  return n;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Go's base64.CorruptInputError. */
function corrupt(at: number): Error {
  return new Error(`illegal base64 data at input byte ${at}`);
}

function isNewline(c: string | undefined): boolean {
  return c === '\n' || c === '\r';
}

/** The end of the padding that starts at src[si - 1] (Go's decodeQuantum padding rules), or an error. */
function padding(src: string, si: number, j: number): number {
  if (j === 0 || j === 1) throw corrupt(si - 1);
  let i = si;
  if (j === 2) {
    while (i < src.length && isNewline(src[i])) i++;
    if (i === src.length) throw corrupt(src.length);
    if (src[i] !== '=') throw corrupt(i - 1);
    i++;
  }
  while (i < src.length && isNewline(src[i])) i++;
  if (i < src.length) throw corrupt(i);
  return i;
}

/** What StdEncoding accepts once newlines are dropped: whole quanta, the last one padded with = or ==. */
const WELL_FORMED_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64_VALUES = new Map(Array.from(BASE64, (c, i) => [c, i]));

/** base64.StdEncoding.DecodeString: the decoded bytes, or Go's error naming the first bad input byte. */
export function decodeGoBase64(text: string): Buffer {
  const clean = text.replace(/[\r\n]/g, '');
  // Node decodes what Go accepts to the same bytes (both ignore a last quantum's unused bits); Go's own walk below
  // is only needed to find where the input goes wrong.
  if (clean.length % 4 === 0 && WELL_FORMED_BASE64.test(clean)) return Buffer.from(clean, 'base64');
  return decodeQuanta(Buffer.from(text, 'utf8').toString('latin1'));
}

/** Go's decode loop over the input's bytes (as latin1 characters), quantum by quantum. */
function decodeQuanta(src: string): Buffer {
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    let bits = 0;
    let n = 0;
    let done = false;
    while (n < 4) {
      if (si === src.length) {
        if (n === 0) break;
        throw corrupt(si - n);
      }
      const c = src[si++] ?? '';
      const v = BASE64_VALUES.get(c);
      if (v !== undefined) bits |= v << (18 - 6 * n++);
      else if (isNewline(c)) continue;
      else if (c !== '=') throw corrupt(si - 1);
      else {
        si = padding(src, si, n);
        done = true;
        break;
      }
    }
    for (let k = 0; k < n - 1; k++) out.push((bits >> (16 - 8 * k)) & 0xff);
    if (done) break;
  }
  return Buffer.from(out);
}

function sortedEntries(v: object): [string, unknown][] {
  return Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** json.Marshal's string encoding: HTML-safe (<, >, & escaped) and U+2028/U+2029 escaped, as Go's encoder does. */
function marshalString(s: string): string {
  return JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

/** json.Marshal's float64 encoding. */
function marshalFloat(f: number): string {
  // The value as strconv.FormatFloat(f, 'g', -1, 64) writes it: +Inf, -Inf, NaN.
  if (!Number.isFinite(f))
    throw new Error(`json: unsupported value: ${Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf'}`);
  return JSON.stringify(f);
}

/** json.Marshal of a Go value: sorted map keys, HTML-safe strings; int64 and int as integers. */
export function goJsonMarshal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return marshalString(v);
  if (typeof v === 'number') return marshalFloat(v);
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goJsonMarshal).join(',')}]`;
  if (v instanceof GoInt) return String(v.value);
  const fields = sortedEntries(v).map(([k, x]) => `${marshalString(k)}:${goJsonMarshal(x)}`);
  return `{${fields.join(',')}}`;
}
