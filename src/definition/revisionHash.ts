import { createHash } from 'node:crypto';
import { Document, isScalar, Scalar, visit, type Pair, type ScalarTag, type Tags } from 'yaml';
import { assertNesting } from '../base/index.js';

// The Composition hash that names CompositionRevisions, byte-compatible with Crossplane's Composition.Hash() so a
// cluster moving between Crossplane and compositor keeps its revisions: sha256 over sigs.k8s.io/yaml.Marshal of
// labels, annotations and spec, concatenated. That Marshal is JSON then go-yaml v2, so this file renders JSON
// values as go-yaml v2 does: keys in go-yaml's "natural" order, sequences not indented under their key, YAML 1.1
// quoting, multi-line strings as literal blocks, long lines folded past column 80, and absent maps as `null`
// (Go marshals a nil map as `null\n`; only an empty one is `{}\n`). The `yaml` package lays out the collections;
// the scalars are written here, because its quoting and folding rules differ from go-yaml's.
//
// Known differences (best effort; a mismatch only means one extra revision when a cluster changes engines):
// numbers written with a fraction of zero ("1000000.0", which Go prints as 1e+06) are integers once parsed in
// JavaScript; strings holding U+2028, U+2029, U+0085 or a byte-order mark; and fields a typed Go CompositionSpec
// would drop (compositor's CRD preserves unknown fields). Checked against sigs.k8s.io/yaml v1.6.0 (go-yaml
// v2.4) on thousands of generated documents.

/** What the hash reads of a Composition. */
export interface HashedComposition {
  metadata: { labels?: Record<string, string> | null; annotations?: Record<string, string> | null };
  spec?: unknown;
}

/**
 * The sha256 hex digest Crossplane computes for a Composition: labels, annotations and spec, each as Go YAML.
 *
 * @example
 * const hash = compositionHash(composition);
 * const name = `${composition.metadata.name}-${hash.slice(0, 7)}`;
 */
export function compositionHash(composition: HashedComposition): string {
  // The yaml package lays documents out recursively: a spec nested past the engine's bound fails here, by name.
  assertNesting(composition.spec, 'the Composition spec');
  const { labels, annotations } = composition.metadata;
  const text = goYaml(labels ?? null) + goYaml(annotations ?? null) + goYaml(composition.spec ?? null);
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A JSON value as sigs.k8s.io/yaml.Marshal writes it (go-yaml v2 after a JSON round trip). */
export function goYaml(value: unknown): string {
  const doc = new Document(value, {
    schema: 'failsafe',
    customTags: goTags,
    sortMapEntries: (a: Pair, b: Pair) => compareGoKeys(keyText(a), keyText(b)),
  });
  visit(doc, {
    Pair: (_, pair) => {
      // go-yaml writes a key longer than 128 bytes or spanning lines as "? key"; the yaml package does so for a
      // key marked as a block scalar.
      if (isScalar(pair.key) && !isSimpleKey(keyText(pair))) pair.key.type = Scalar.BLOCK_LITERAL;
    },
  });
  return doc.toString({ indentSeq: false, lineWidth: 0 });
}

const isSimpleKey = (key: string): boolean => Buffer.byteLength(key, 'utf8') <= 128 && !Array.from(key).some(isBreak);

function keyText(pair: Pair): string {
  const key = pair.key as { value?: unknown } | null;
  return String(key?.value);
}

type StringifyContext = Parameters<NonNullable<ScalarTag['stringify']>>[1];

const scalarTag = (tag: string, identify: (v: unknown) => boolean, write: (v: unknown) => string): ScalarTag => ({
  tag: `tag:yaml.org,2002:${tag}`,
  default: true,
  identify,
  resolve: (text) => text,
  stringify: (item) => write(item.value),
});

/** failsafe's map and seq, with go-yaml's scalars in place of its string. */
function goTags(tags: Tags): Tags {
  const collections = tags.filter((t) => typeof t === 'object' && !Array.isArray(t) && 'collection' in t);
  const str: ScalarTag = {
    ...scalarTag('str', (v) => typeof v === 'string', String),
    stringify: (item, ctx) => goString(String(item.value), ctx),
  };
  return [
    ...collections,
    str,
    scalarTag(
      'float',
      (v) => typeof v === 'number',
      (v) => goNumber(v as number),
    ),
    scalarTag(
      'bool',
      (v) => typeof v === 'boolean',
      (v) => String(v),
    ),
    scalarTag(
      'null',
      (v) => v === null || v === undefined,
      () => 'null',
    ),
  ];
}

/**
 * go-yaml's map key order (sorter.go keyList.Less): non-letters before letters, runs of digits compared as
 * numbers, so "a2" < "a10" and "1" < "10" < "A" < "a".
 */
export function compareGoKeys(a: string, b: string): number {
  if (goKeyLess(a, b)) return -1;
  return goKeyLess(b, a) ? 1 : 0;
}

const isLetter = (c: string): boolean => /\p{L}/u.test(c);
const isDigit = (c: string | undefined): c is string => c !== undefined && /\p{Nd}/u.test(c);
const code = (c: string): number => c.codePointAt(0) ?? 0;

function goKeyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i] as string;
    const bc = br[i] as string;
    if (ac === bc) continue;
    const al = isLetter(ac);
    const bl = isLetter(bc);
    if (al && bl) return code(ac) < code(bc);
    if (al || bl) return bl;
    return digitRunLess(ar, br, i);
  }
  return ar.length < br.length;
}

function digitRunLess(ar: string[], br: string[], i: number): boolean {
  let an = 0n;
  let bn = 0n;
  if (ar[i] === '0' || br[i] === '0') {
    for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
      if (ar[j] !== '0') {
        an = bn = 1n;
        break;
      }
    }
  }
  const run = (rs: string[], n: bigint): [bigint, number] => {
    let k = i;
    for (; k < rs.length && isDigit(rs[k]); k++) n = BigInt.asIntN(64, n * 10n + BigInt(code(rs[k] as string) - 48));
    return [n, k];
  };
  const [av, ai] = run(ar, an);
  const [bv, bi] = run(br, bn);
  if (av !== bv) return av < bv;
  if (ai !== bi) return ai < bi;
  return code(ar[i] as string) < code(br[i] as string);
}

/** strconv.FormatFloat(n, 'g', -1, 64) for non-integers; integers that fit int64/uint64 print in full. */
export function goNumber(n: number): string {
  if (Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 64) return BigInt(n).toString();
  const [mantissa = '', exponent = '0'] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const sign = n < 0 ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const fraction = digits.slice(exp + 1);
  return fraction ? `${sign}${whole}.${fraction}` : `${sign}${whole}`;
}

// ---- strings: go-yaml v2's encoder (encode.go stringv) and emitter (emitterc.go), block context only ----

const BEST_WIDTH = 80;
const BEST_INDENT = 2;

type Style = 'plain' | 'single' | 'double' | 'literal';

function goString(value: string, ctx: StringifyContext): string {
  const chars = Array.from(value);
  // A "? key" is written like a value; only a simple (implicit) key is restricted.
  const key = ctx.implicitKey === true;
  const style = scalarStyle(value, chars, key);
  if (style === 'literal') return literal(chars, ctx.indent);
  // A map value starts after "key: " (the pair's indent is its key's column + 2); a sequence item after "- ".
  // The yaml package (2.x) sets indentAtStart for a map value only; the golden hashes in the tests catch a change.
  const column =
    ctx.indentAtStart === undefined ? ctx.indent.length : ctx.indent.length - BEST_INDENT + ctx.indentAtStart;
  return flowScalar(chars, style, { column, indent: ctx.indent, breaks: !key });
}

function scalarStyle(value: string, chars: string[], key: boolean): Style {
  const a = analyze(chars);
  let style: Style = value.includes('\n') ? 'literal' : resolvesToString(value) ? 'plain' : 'double';
  if (key && a.multiline) style = 'double';
  if (style === 'plain' && !a.blockPlain) style = 'single';
  if (style === 'single' && !a.singleQuoted) style = 'double';
  if (style === 'literal' && (!a.block || key)) style = 'double';
  return style;
}

const isBreak = (c: string | undefined): boolean =>
  c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t';

function isPrintable(c: string): boolean {
  const cp = code(c);
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

interface Analysis {
  multiline: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

/** yaml_emitter_analyze_scalar: which styles can carry the value. */
function analyze(chars: string[]): Analysis {
  if (chars.length === 0) return { multiline: false, blockPlain: true, singleQuoted: true, block: false };
  const ws = whitespace(chars);
  const special = chars.some((c) => !isPrintable(c));
  const singleQuoted = !(ws.breakSpace || ws.spaceBreak || special);
  const edges = ws.leadingSpace || ws.leadingBreak || ws.trailingSpace || ws.trailingBreak;
  return {
    multiline: ws.lineBreaks,
    blockPlain: singleQuoted && !edges && !ws.lineBreaks && !blockIndicators(chars),
    singleQuoted,
    block: !(ws.trailingSpace || ws.spaceBreak || special),
  };
}

function whitespace(
  chars: string[],
): Record<
  'leadingSpace' | 'leadingBreak' | 'trailingSpace' | 'trailingBreak' | 'breakSpace' | 'spaceBreak' | 'lineBreaks',
  boolean
> {
  const last = chars.length - 1;
  const flags = {
    leadingSpace: chars[0] === ' ',
    leadingBreak: isBreak(chars[0]),
    trailingSpace: chars[last] === ' ',
    trailingBreak: isBreak(chars[last]),
    breakSpace: false,
    spaceBreak: false,
    lineBreaks: chars.some(isBreak),
  };
  for (let i = 1; i < chars.length; i++) {
    const [previous, current] = [chars[i - 1], chars[i]];
    if (current === ' ' && isBreak(previous)) flags.breakSpace = true;
    if (isBreak(current) && previous === ' ') flags.spaceBreak = true;
  }
  return flags;
}

/** Characters that would start YAML syntax where a plain scalar stands in block context. */
function blockIndicators(chars: string[]): boolean {
  const head = chars.slice(0, 3).join('');
  if (head === '---' || head === '...') return true;
  return chars.some((c, i) => {
    const followedByBlank = i + 1 >= chars.length || isBlank(chars[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) return true;
      return (c === '?' || c === ':' || c === '-') && followedByBlank;
    }
    const previous = chars[i - 1];
    if (c === ':') return followedByBlank;
    return c === '#' && (isBlank(previous) || isBreak(previous) || previous === '\0');
  });
}

interface Layout {
  /** Column of the scalar's first character (its opening quote, if any). */
  column: number;
  /** Continuation lines start with this. */
  indent: string;
  /** False for map keys, which never fold. */
  breaks: boolean;
}

type FlowStyle = Exclude<Style, 'literal'>;

const QUOTES: Record<FlowStyle, string> = { plain: '', single: "'", double: '"' };

/** Plain, single- or double-quoted, folded at a space once past column 80 as go-yaml does. */
function flowScalar(chars: string[], style: FlowStyle, layout: Layout): string {
  const quote = QUOTES[style];
  let out = quote;
  let column = layout.column + quote.length;
  for (let i = 0; i < chars.length; i++) {
    // A double-quoted line that would start with a space escapes it, so the space is not lost to folding.
    const piece = foldsAt(chars, i, style, layout.breaks && column > BEST_WIDTH)
      ? `\n${layout.indent}${style === 'double' && chars[i + 1] === ' ' ? '\\' : ''}`
      : character(chars[i] as string, style);
    out += piece;
    const newline = piece.lastIndexOf('\n');
    column = newline < 0 ? column + piece.length : piece.length - newline - 1;
  }
  return out + quote;
}

/** go-yaml breaks the line at the first single space past the width, never at the scalar's first or last character. */
function foldsAt(chars: string[], i: number, style: FlowStyle, pastWidth: boolean): boolean {
  if (!pastWidth || chars[i] !== ' ' || chars[i - 1] === ' ' || i === 0 || i === chars.length - 1) return false;
  return style === 'double' || chars[i + 1] !== ' ';
}

function character(c: string, style: FlowStyle): string {
  if (style === 'double') return escapeDouble(c);
  return style === 'single' && c === "'" ? "''" : c;
}

const ESCAPES: Record<string, string> = {
  '\0': '0',
  '\x07': 'a',
  '\b': 'b',
  '\t': 't',
  '\n': 'n',
  '\v': 'v',
  '\f': 'f',
  '\r': 'r',
  '\x1b': 'e',
  '"': '"',
  '\\': '\\',
  '\u0085': 'N',
  '\u00a0': '_',
  '\u2028': 'L',
  '\u2029': 'P',
};

function escapeDouble(c: string): string {
  if (isPrintable(c) && !isBreak(c) && c !== '"' && c !== '\\') return c;
  const short = ESCAPES[c];
  if (short !== undefined) return `\\${short}`;
  const cp = code(c);
  const hex = cp.toString(16).toUpperCase();
  if (cp <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  return cp <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\U${hex.padStart(8, '0')}`;
}

/** A literal block ("|"), with go-yaml's indentation and chomping indicators; empty lines carry no indent. */
function literal(chars: string[], indent: string): string {
  const first = chars[0];
  const last = chars.length - 1;
  const hint = first === ' ' || isBreak(first) ? String(BEST_INDENT) : '';
  const chomp = !isBreak(chars[last]) ? '-' : last === 0 || isBreak(chars[last - 1]) ? '+' : '';
  const text = chars.join('');
  const body = (text.endsWith('\n') ? text.slice(0, -1) : text)
    .split('\n')
    .map((line) => (line === '' ? '' : indent + line))
    .join('\n');
  return `|${hint}${chomp}\n${body}`;
}

// ---- go-yaml v2 resolve.go: would the value, written plain, read back as something other than a string? ----

const NON_STRINGS = new Set([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'],
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'],
  ...['~', 'null', 'Null', 'NULL', '.nan', '.NaN', '.NAN'],
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF'],
]);
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const GO_INT = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;

function resolvesToString(value: string): boolean {
  if (value === '' || NON_STRINGS.has(value) || BASE60_FLOAT.test(value)) return false;
  const first = value[0] as string;
  if (first === '.') return !isFloat(value, DOT_FLOAT);
  return /^[-+0-9]/.test(first) ? !isNumberOrTime(value) : true;
}

/** The 'D' and 'S' (digit, sign) branch of resolve(): a timestamp, an int, a uint or a float. */
function isNumberOrTime(value: string): boolean {
  const plain = value.replaceAll('_', '');
  return isTimestamp(value) || isGoInt(plain) || isFloat(plain, YAML_FLOAT);
}

/** strconv.ParseFloat succeeds: the syntax matches and the value is in range. */
const isFloat = (text: string, syntax: RegExp): boolean => syntax.test(text) && Number.isFinite(Number(text));

/** strconv.ParseInt(s, 0, 64) or ParseUint(s, 0, 64) succeeds. */
function isGoInt(plain: string): boolean {
  const match = GO_INT.exec(plain);
  if (!match) return false;
  const [, sign = '', digits = ''] = match;
  const literalDigits = /^0[0-7]+$/.test(digits) ? `0o${digits.slice(1)}` : digits;
  const magnitude = BigInt(literalDigits);
  if (sign === '-') return magnitude <= 2n ** 63n;
  return magnitude < (sign === '+' ? 2n ** 63n : 2n ** 64n);
}

const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-]\d{2}:\d{2})|[ ](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?)$/;

/** go-yaml's timestamp forms: 2006-1-2, 2006-1-2T15:4:5.999999999Z07:00 (or t), 2006-1-2 15:4:5.999999999. */
function isTimestamp(value: string): boolean {
  const match = DATE.exec(value) ?? DATE_TIME.exec(value);
  if (!match) return false;
  const [year = 0, month = 0, day = 0, ...time] = (match.slice(1) as (string | undefined)[]).flatMap((part) =>
    part === undefined ? [] : [Number(part)],
  );
  const limits = [24, 60, 60];
  return validDate(year, month, day) && time.every((t, i) => t < (limits[i] ?? 0));
}

function validDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
