// What Go's YAML encoder (go.yaml.in/yaml/v2 v2.4, under sigs.k8s.io/yaml) decides about each scalar and key before
// its libyaml emitter writes it: the style it asks for (encode.go stringv), what the emitter allows
// (emitterc.go yaml_emitter_analyze_scalar), the text of numbers as JSONToYAML round-trips them, and the order of
// mapping keys (sorter.go keyList.Less). goYaml.ts writes the text.

/** The styles the encoder asks for; the emitter may fall back from plain to single and from either to double. */
export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal';

export interface Scalar {
  value: string;
  style: ScalarStyle;
}

/** What yaml_emitter_analyze_scalar found: which styles can hold the value without changing it. */
export interface ScalarAnalysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

/** yamlprivateh.go is_printable, on code points: tab and astral characters are not, so they force escapes. */
export function isPrintable(cp: number): boolean {
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

export function isBreak(ch: string | undefined): boolean {
  return ch === '\r' || ch === '\n' || ch === '\u0085' || ch === '\u2028' || ch === '\u2029';
}

function isBlank(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t';
}

const FIRST_INDICATORS = new Set(['#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`']);

function indicatorAt(chars: readonly string[], i: number, precededByWhitespace: boolean): boolean {
  const ch = chars[i] ?? '';
  const followedByWhitespace = i + 1 >= chars.length || isBlank(chars[i + 1]);
  if (i === 0) return FIRST_INDICATORS.has(ch) || ((ch === '?' || ch === ':' || ch === '-') && followedByWhitespace);
  return (ch === ':' && followedByWhitespace) || (ch === '#' && precededByWhitespace);
}

/** Whether an indicator character makes the value unfit for a block plain scalar. */
function blockIndicators(chars: readonly string[]): boolean {
  const text = chars.join('');
  if (text.startsWith('---') || text.startsWith('...')) return true;
  return chars.some((_, i) => {
    const previous = chars[i - 1];
    return indicatorAt(chars, i, i === 0 || isBlank(previous) || isBreak(previous) || previous === '\0');
  });
}

interface Spacing {
  special: boolean;
  lineBreaks: boolean;
  edgeSpaceOrBreak: boolean;
  trailingSpace: boolean;
  breakSpace: boolean;
  spaceBreak: boolean;
}

function spacing(chars: readonly string[]): Spacing {
  const last = chars.length - 1;
  const spaceOrBreak = (ch: string | undefined): boolean => ch === ' ' || isBreak(ch);
  return {
    special: chars.some((ch) => !isPrintable(ch.codePointAt(0) ?? 0)),
    lineBreaks: chars.some((ch) => isBreak(ch)),
    edgeSpaceOrBreak: spaceOrBreak(chars[0]) || spaceOrBreak(chars[last]),
    trailingSpace: chars[last] === ' ',
    breakSpace: chars.some((ch, i) => ch === ' ' && isBreak(chars[i - 1])),
    spaceBreak: chars.some((ch, i) => isBreak(ch) && chars[i - 1] === ' '),
  };
}

/** yaml_emitter_analyze_scalar for a block context (flow_level 0: render never emits a non-empty flow collection). */
export function analyzeScalar(value: string): ScalarAnalysis {
  const chars = Array.from(value);
  if (chars.length === 0) {
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  const s = spacing(chars);
  const unquotable = s.spaceBreak || s.special;
  return {
    multiline: s.lineBreaks,
    blockPlainAllowed: !(s.edgeSpaceOrBreak || s.breakSpace || unquotable || s.lineBreaks || blockIndicators(chars)),
    singleQuotedAllowed: !(s.breakSpace || unquotable),
    blockAllowed: !(s.trailingSpace || unquotable),
  };
}

/** resolve.go's resolveMap: the words a plain scalar reads as a boolean, null or special float. */
const WORDS = new Map<string, boolean | number | null>([
  ...'y Y yes Yes YES true True TRUE on On ON'.split(' ').map((w) => [w, true] as const),
  ...'n N no No NO false False FALSE off Off OFF'.split(' ').map((w) => [w, false] as const),
  ...'~ null Null NULL'.split(' ').map((w) => [w, null] as const),
  ...'.nan .NaN .NAN'.split(' ').map((w) => [w, Number.NaN] as const),
  ...'.inf .Inf .INF +.inf +.Inf +.INF'.split(' ').map((w) => [w, Number.POSITIVE_INFINITY] as const),
  ...'-.inf -.Inf -.INF'.split(' ').map((w) => [w, Number.NEGATIVE_INFINITY] as const),
]);

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const GO_INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
/** resolve.go's last try: 0b followed by a signed binary number that ParseInt base 0 rejected. */
const GO_BINARY_FALLBACK = /^(-?)0b([-+]?)([01]+)$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** strconv.ParseInt(s, 0, 64) or ParseUint(s, 0, 64) succeeds (the sign only for ParseInt). */
function isGoInteger(s: string): boolean {
  if (!GO_INT.test(s)) return false;
  const negative = s.startsWith('-');
  let body = s.replace(/^[-+]/, '');
  // A leading 0 means octal to Go; BigInt reads it as decimal without the 0o prefix.
  if (/^0[0-7]+$/.test(body)) body = `0o${body.slice(1)}`;
  const magnitude = BigInt(body);
  return negative ? -magnitude >= INT64_MIN : magnitude <= UINT64_MAX;
}

function isFiniteFloat(s: string): boolean {
  return Number.isFinite(Number(s));
}

const TIMESTAMP =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))| (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?)?$/;

function validDate(year: number, month: number, day: number): boolean {
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth;
}

/** time.Parse with one of go-yaml's allowedTimestampFormats: a date, or a date and time (RFC 3339-like). */
function isTimestamp(s: string): boolean {
  const m = TIMESTAMP.exec(s);
  if (m === null) return false;
  const n = (i: number, j = i): number => Number(m[i] ?? m[j] ?? 0);
  const timeOk = n(4, 9) < 24 && n(5, 10) < 60 && n(6, 11) < 60 && n(7) <= 24 && n(8) <= 60;
  return timeOk && validDate(n(1), n(2), n(3));
}

/** strconv.ParseFloat of a scalar that starts with a dot: `.5`, `.5e3`, digits separated by underscores. */
function isDotFloat(s: string): boolean {
  return /^\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?$/.test(s) && isFiniteFloat(s.replaceAll('_', ''));
}

/** The tag go-yaml's resolve.go gives a plain scalar. */
export type PlainTag = 'str' | 'bool' | 'null' | 'int' | 'float' | 'timestamp';

function wordTag(word: boolean | number | null): PlainTag {
  if (word === null) return 'null';
  return typeof word === 'boolean' ? 'bool' : 'float';
}

/** resolve("", s) of go-yaml v2's resolve.go: what a plain (unquoted, untagged) scalar reads as. */
export function plainTag(s: string): PlainTag {
  if (s === '') return 'null';
  if (WORDS.has(s)) return wordTag(WORDS.get(s) ?? null);
  const first = s.charAt(0);
  if (first === '.') return isDotFloat(s) ? 'float' : 'str';
  if (!/^[-+0-9]$/.test(first)) return 'str';
  if (isTimestamp(s)) return 'timestamp';
  const plain = s.replaceAll('_', '');
  if (isGoInteger(plain)) return 'int';
  if (YAML_STYLE_FLOAT.test(plain) && isFiniteFloat(plain)) return 'float';
  return GO_BINARY_FALLBACK.test(plain) ? 'int' : 'str';
}

/** The integer strconv.ParseInt/ParseUint read (a JavaScript number: exact up to 2^53). */
function goIntegerValue(plain: string): number {
  const fallback = GO_BINARY_FALLBACK.exec(plain);
  if (fallback !== null) {
    const negative = (fallback[1] === '-') !== (fallback[2] === '-');
    const magnitude = Number(BigInt(`0b${fallback[3] ?? '0'}`));
    return negative ? -magnitude : magnitude;
  }
  const negative = plain.startsWith('-');
  let body = plain.replace(/^[-+]/, '');
  if (/^0[0-7]+$/.test(body)) body = `0o${body.slice(1)}`;
  const magnitude = Number(BigInt(body));
  return negative ? -magnitude : magnitude;
}

/**
 * The value go-yaml v2 reads a plain scalar as when it decodes into interface{}, as sigs.k8s.io/yaml does for every
 * input file: YAML 1.1 booleans (yes, on, y ...), null, Go integer literals (0x1F, 0o17, 0777 octal, 1_000) and
 * floats; a timestamp stays text. Infinite and NaN floats come back as such; JSON cannot hold them.
 */
export function plainValue(s: string): boolean | number | null | string {
  switch (plainTag(s)) {
    case 'null':
      return null;
    case 'bool':
      return WORDS.get(s) === true;
    case 'int':
      return goIntegerValue(s.replaceAll('_', ''));
    case 'float':
      return WORDS.get(s) ?? Number(s.replaceAll('_', ''));
    default:
      return s;
  }
}

/**
 * A string as JSONToYAML reads it back from Go's JSON text: encoding/json leaves U+0085 (NEL) unescaped, and to the
 * YAML parser a raw NEL in a double-quoted scalar is a line break that folds with the spaces around it (one becomes a
 * space, n of them n - 1 line feeds; tabs stay, as the JSON text escapes them).
 */
export function afterJsonRoundTrip(value: string): string {
  return value.replace(/ *(?:\u0085 *)+/g, (run) => {
    const breaks = run.split('\u0085').length - 1;
    return breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
  });
}

/** encode.go stringv: plain unless it would read back as another type, literal for text with line feeds. */
export function stringScalar(text: string): Scalar {
  const value = afterJsonRoundTrip(text);
  if (value.includes('\n')) return { value, style: 'literal' };
  const plain = plainTag(value) === 'str' && !BASE60_FLOAT.test(value);
  return { value, style: plain ? 'plain' : 'double' };
}

/** strconv.FormatFloat(n, 'g', -1, 64): the shortest digits, in exponent form below 1e-4 and from 1e6 on. */
function goFormatFloat(n: number): string {
  const [mantissa = '0', exponent = '0'] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}

/**
 * The text of a JSON number after JSONToYAML: Go's JSON text read back by go-yaml, so integers in int64 or uint64
 * range print as integers and anything else as strconv.FormatFloat 'g'.
 */
export function numberText(n: number): string {
  const json = JSON.stringify(n);
  if (/^-?[0-9]+$/.test(json)) {
    const big = BigInt(json);
    if (big >= INT64_MIN && big <= UINT64_MAX) return big.toString();
  }
  return goFormatFloat(n);
}

const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;

function codePoint(ch: string | undefined): number {
  return ch?.codePointAt(0) ?? 0;
}

/** The number a run of digits starting at i spells, as keyList.Less reads it (int64 arithmetic, wrapping). */
function digitRun(runes: readonly string[], i: number, start: bigint): { value: bigint; end: number } {
  let value = start;
  let end = i;
  for (; end < runes.length && DIGIT.test(runes[end] ?? ''); end++) {
    value = BigInt.asIntN(64, value * 10n + BigInt(codePoint(runes[end]) - 48));
  }
  return { value, end };
}

/** Where keyList.Less compares two differing non-letters: by the numbers they start, then by code point. */
function numericLess(ar: readonly string[], br: readonly string[], i: number): boolean {
  let start = 0n;
  if (ar[i] === '0' || br[i] === '0') {
    for (let j = i - 1; j >= 0 && DIGIT.test(ar[j] ?? ''); j--) {
      if (ar[j] !== '0') {
        start = 1n;
        break;
      }
    }
  }
  const a = digitRun(ar, i, start);
  const b = digitRun(br, i, start);
  if (a.value !== b.value) return a.value < b.value;
  if (a.end !== b.end) return a.end < b.end;
  return codePoint(ar[i]) < codePoint(br[i]);
}

/** sorter.go keyList.Less for two string keys: letters by code point, runs of digits by value, letters last. */
export function goKeyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = LETTER.test(ar[i] ?? '');
    const bl = LETTER.test(br[i] ?? '');
    if (al && bl) return codePoint(ar[i]) < codePoint(br[i]);
    if (al || bl) return bl;
    return numericLess(ar, br, i);
  }
  return ar.length < br.length;
}

/** The keys of a mapping in the order go-yaml writes them. */
export function goKeyOrder(keys: readonly string[]): string[] {
  return [...keys].sort((a, b) => (goKeyLess(a, b) ? -1 : goKeyLess(b, a) ? 1 : 0));
}
