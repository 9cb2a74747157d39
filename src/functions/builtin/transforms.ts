// P&T transforms (function-patch-and-transform transforms.go): map, match, math, string and convert, with Go's
// value types and upstream's error texts, which users see in FATAL results.
import { createHash } from 'node:crypto';
import { FieldError } from './fieldError.js';
import { decodeGoBase64, goJsonMarshal, parseGoBool, parseGoFloat, parseGoInt } from './gostd.js';
import { goFormatV as formatV, goSprintf as sprintf } from './gofmt.js';
import { goJsonUnmarshal } from './gojson.js';
import { GoInt, formatFloatF, goFloatToInt64, goTypeName, type GoValue } from './govalue.js';
import { checkStringLength } from './limits.js';
import { parseQuantity } from './quantity.js';
import { compileGoRegexp, type GoRegexp } from './re2.js';

export interface Transform {
  type?: string;
  map?: Record<string, unknown>;
  match?: {
    patterns?: { type?: string; literal?: string; regexp?: string; result?: unknown }[];
    fallbackValue?: unknown;
    fallbackTo?: string;
  };
  math?: { type?: string; multiply?: number; clampMin?: number; clampMax?: number };
  string?: {
    type?: string;
    fmt?: string;
    convert?: string;
    trim?: string;
    regexp?: { match?: string; group?: number };
    join?: { separator?: string };
    replace?: { search?: string; replace?: string };
  };
  convert?: { toType?: string; format?: string };
}

function toInt64(v: GoValue): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (v instanceof GoInt) return v.value;
  return undefined;
}

function resolveMap(map: Record<string, unknown>, input: GoValue): GoValue {
  if (typeof input !== 'string') throw new Error(`type ${goTypeName(input)} is not supported for map transform`);
  if (!(input in map)) throw new Error(`key ${input} is not found in map`);
  return map[input] ?? null;
}

type MatchPattern = NonNullable<NonNullable<Transform['match']>['patterns']>[number];

/** A pattern against the input (Matches): literals and regexps match strings only, and say so otherwise. */
function matchPattern(p: MatchPattern, input: GoValue): boolean {
  const notString = (): Error => new Error(`unsupported input type '${goTypeName(input)}'`);
  switch (p.type) {
    case 'literal':
      if (p.literal === undefined) throw new Error('literal is required by type literal');
      if (typeof input !== 'string') throw notString();
      return input === p.literal;
    case 'regexp': {
      if (p.regexp === undefined) throw new Error('regexp is required by type regexp');
      const re = compileRegexp(p.regexp, 'cannot compile regexp');
      if (input === null || input === undefined) throw new Error(`unsupported input type 'null'`);
      if (typeof input !== 'string') throw notString();
      return re.test(input);
    }
    default:
      throw new Error(`unsupported pattern type '${p.type ?? ''}'`);
  }
}

/**
 * A Go (RE2) regexp, matched in linear time; a pattern Go rejects fails with `<context>: <Go's regexp error>`. The
 * match transform says `cannot compile regexp`, the string transform `could not compile regexp`.
 */
export function compileRegexp(source: string, context = 'cannot compile regexp'): GoRegexp {
  try {
    return compileGoRegexp(source);
  } catch (err) {
    throw new Error(`${context}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

function resolveMatch(match: NonNullable<Transform['match']>, input: GoValue): GoValue {
  const patterns = match.patterns ?? [];
  for (const [i, p] of patterns.entries()) {
    let ok: boolean;
    try {
      ok = matchPattern(p, input);
    } catch (err) {
      throw new Error(`cannot match pattern at index ${i}: ${(err as Error).message}`, { cause: err });
    }
    if (ok) return p.result ?? null;
  }
  if (match.fallbackTo === 'Input') {
    // A written fallbackValue is a non-empty raw JSON value upstream; null unmarshals to an empty one (extv1.JSON).
    if (match.fallbackValue !== undefined && match.fallbackValue !== null) {
      throw new Error('cannot set both a fallback value and the fallback to input flag');
    }
    return input;
  }
  return match.fallbackValue ?? null;
}

const MATH_BOUND: Readonly<Record<string, 'multiply' | 'clampMin' | 'clampMax'>> = {
  Multiply: 'multiply',
  ClampMin: 'clampMin',
  ClampMax: 'clampMax',
};

/** Multiply keeps the input's kind: int64 times int64, wrapping around on overflow as Go's does, or float64's. */
function multiply(int: bigint | undefined, input: GoValue, by: number): GoValue {
  return int !== undefined ? BigInt.asIntN(64, int * BigInt(by)) : (input as number) * by;
}

/** Clamps compare the input truncated to int64 and return the bound (int64) or the input unchanged. */
function clamp(type: string, int: bigint | undefined, input: GoValue, bound: number): GoValue {
  const value = int ?? goFloatToInt64(input as number);
  const b = BigInt(bound);
  const outside = type === 'ClampMin' ? value < b : value > b;
  return outside ? b : input;
}

/** The math transform's own validation (ValidateMathTransform), which upstream runs before the input check. */
function validMathBound(math: NonNullable<Transform['math']>): number {
  const type = math.type ?? '';
  if (type === '') throw new FieldError('Required value', 'type', 'math transform type is required');
  const field = MATH_BOUND[type];
  if (field === undefined) throw new FieldError('Invalid value', 'type', 'unknown math transform type', type);
  const bound = math[field];
  if (bound === undefined) {
    const name = { multiply: 'multiply', clampMin: 'clamp min', clampMax: 'clamp max' }[field];
    throw new FieldError('Required value', field, `must specify a value if a ${name} math transform is specified`);
  }
  return bound;
}

function resolveMath(math: NonNullable<Transform['math']>, input: GoValue): GoValue {
  const bound = validMathBound(math);
  const type = math.type ?? '';
  const int = toInt64(input);
  if (int === undefined && typeof input !== 'number') {
    throw new Error(`input is required to be a number for math transformer, got ${goTypeName(input)}`);
  }
  return type === 'Multiply' ? multiply(int, input, bound) : clamp(type, int, input, bound);
}

function adler32(bytes: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function hash(algorithm: string, input: GoValue): string {
  const data = typeof input === 'string' ? input : goJsonMarshal(input);
  return createHash(algorithm).update(data).digest('hex');
}

function fromBase64(text: string): string {
  try {
    return decodeGoBase64(text).toString('utf8');
  } catch (err) {
    throw new Error(`string is not valid base64: ${(err as Error).message}`, { cause: err });
  }
}

/** The string Convert operations; text is the input %v-formatted, as upstream formats it first. */
const STRING_CONVERSIONS: Readonly<Record<string, (text: string, input: GoValue) => string>> = {
  ToUpper: (text) => text.toUpperCase(),
  ToLower: (text) => text.toLowerCase(),
  ToJson: (_text, input) => goJsonMarshal(input),
  ToBase64: (text) => Buffer.from(text).toString('base64'),
  FromBase64: (text) => fromBase64(text),
  ToSha1: (_text, input) => hash('sha1', input),
  ToSha256: (_text, input) => hash('sha256', input),
  ToSha512: (_text, input) => hash('sha512', input),
  ToAdler32: (text) => String(adler32(Buffer.from(text))),
};

function stringConvert(kind: string | undefined, input: GoValue): string {
  const convert = STRING_CONVERSIONS[kind ?? ''];
  if (convert === undefined) throw new Error(`type ${kind ?? ''} is not supported for string convert`);
  return convert(formatV(input), input);
}

function stringRegexp(re: NonNullable<NonNullable<Transform['string']>['regexp']>, input: GoValue): string {
  const source = re.match ?? '';
  const group = re.group ?? 0;
  const m = compileRegexp(source, 'could not compile regexp').submatch(formatV(input));
  if (m === null || group >= m.length) throw new Error(`regexp "${source}" had no matches for group ${group}`);
  return m[group] ?? '';
}

type StringTransform = NonNullable<Transform['string']>;

function trim(s: StringTransform, input: GoValue): string {
  const text = formatV(input);
  const cut = s.trim ?? '';
  if (s.type === 'TrimPrefix') return text.startsWith(cut) ? text.slice(cut.length) : text;
  return text.endsWith(cut) && cut !== '' ? text.slice(0, text.length - cut.length) : text;
}

function join(s: StringTransform, input: GoValue): string {
  if (!Array.isArray(input))
    throw new Error(`type ${goTypeName(input)} is not supported for string transform type Join`);
  const parts = input.map(formatV);
  const separator = s.join?.separator ?? '';
  checkStringLength(
    'join',
    parts.reduce((n, p) => n + p.length, separator.length * Math.max(parts.length - 1, 0)),
  );
  return parts.join(separator);
}

/** strings.ReplaceAll: an empty search matches before every rune and at the end. */
function replace(s: StringTransform, input: GoValue): string {
  const text = formatV(input);
  const search = s.replace?.search ?? '';
  const replacement = s.replace?.replace ?? '';
  const parts = search === '' ? ['', ...Array.from(text), ''] : text.split(search);
  checkStringLength('replace', text.length + (parts.length - 1) * (replacement.length - search.length));
  return parts.join(replacement);
}

/** Each string transform type: the option it needs and what it does with the input. */
const STRING_TRANSFORMS: Readonly<
  Record<string, { option: keyof StringTransform; run: (s: StringTransform, input: GoValue) => string }>
> = {
  Format: { option: 'fmt', run: (s, input) => sprintf(s.fmt ?? '', [input]) },
  Convert: { option: 'convert', run: (s, input) => stringConvert(s.convert, input) },
  TrimPrefix: { option: 'trim', run: trim },
  TrimSuffix: { option: 'trim', run: trim },
  Regexp: { option: 'regexp', run: (s, input) => stringRegexp(s.regexp ?? {}, input) },
  Join: { option: 'join', run: join },
  Replace: { option: 'replace', run: replace },
};

function resolveString(s: StringTransform, input: GoValue): GoValue {
  const type = s.type ?? '';
  const t = STRING_TRANSFORMS[type];
  if (t === undefined) throw new Error(`type ${type} is not supported for string transform type`);
  if (s[t.option] === undefined) throw new Error(`string transform of type ${type} ${t.option} is not set`);
  return t.run(s, input);
}

const CONVERT_TYPES = new Set(['string', 'int', 'int64', 'bool', 'float64', 'object', 'array']);

type Converter = (v: GoValue) => GoValue;

/** json.Unmarshal into map[string]interface{} or []interface{}, with Go's error texts (gojson.ts). */
function parseJson(kind: 'object' | 'array'): Converter {
  return (v) => goJsonUnmarshal(v as string, kind);
}

const CONVERSIONS: Record<string, Converter> = {
  'string>int64>none': (v) => parseGoInt(v as string),
  'string>bool>none': (v) => parseGoBool(v as string),
  'string>float64>none': (v) => parseGoFloat(v as string),
  'string>float64>quantity': (v) => parseQuantity(v as string),
  'string>object>json': parseJson('object'),
  'string>array>json': parseJson('array'),
  'int64>string>none': (v) => String(v),
  'int64>bool>none': (v) => v === 1n,
  'int64>float64>none': (v) => Number(v),
  'bool>string>none': (v) => String(v),
  'bool>int64>none': (v) => (v === true ? 1n : 0n),
  'bool>float64>none': (v) => (v === true ? 1 : 0),
  'float64>string>none': (v) => formatFloatF(v as number),
  'float64>int64>none': (v) => goFloatToInt64(v as number),
  'float64>bool>none': (v) => v === 1,
};

/** The converter for a pair, or the upstream error when it is not supported. */
export function conversionFunc(from: string, toType: string, format = 'none'): Converter {
  const normal = (t: string): string => (t === 'int' ? 'int64' : t);
  if (normal(from) === normal(toType)) return (v) => (v instanceof GoInt ? v.value : v);
  const converter = CONVERSIONS[`${normal(from)}>${normal(toType)}>${format === '' ? 'none' : format}`];
  if (converter === undefined) {
    throw new Error(
      `conversion from ${from} to ${normal(toType)} is not supported with format ${format === '' ? 'none' : format}`,
    );
  }
  return converter;
}

const CONVERT_FORMATS = new Set(['', 'none', 'quantity', 'json']);

/** The Go types a convert transform takes (TransformIOType.IsValid of the input's %T). */
const CONVERT_INPUT_TYPES = new Set(['string', 'int', 'int64', 'bool', 'float64']);

function resolveConvert(c: NonNullable<Transform['convert']>, input: GoValue): GoValue {
  const toType = c.toType ?? '';
  if (!CONVERT_FORMATS.has(c.format ?? '')) throw new FieldError('Invalid value', 'format', 'invalid format', c.format);
  if (!CONVERT_TYPES.has(toType)) throw new FieldError('Invalid value', 'toType', 'invalid type', toType);
  const from = goTypeName(input);
  if (!CONVERT_INPUT_TYPES.has(from)) throw new Error(`invalid input type ${from}`);
  const fromNormal = from === 'int' ? 'int64' : from;
  const toNormal = toType === 'int' ? 'int64' : toType;
  if (fromNormal === toNormal) return input instanceof GoInt ? input.value : input;
  const format = c.format ?? 'none';
  return conversionFunc(from, toType, format)(input);
}

/** Runs one transform; errors are the upstream texts, before P&T wraps them with the transform's index. */
export function resolveTransform(t: Transform, input: GoValue): GoValue {
  const type = t.type ?? '';
  const missing = (): Error => new Error(`given transform type ${type} requires configuration`);
  switch (type) {
    case 'map':
      if (t.map === undefined) throw missing();
      return resolveMap(t.map, input);
    case 'match':
      if (t.match === undefined) throw missing();
      return resolveMatch(t.match, input);
    case 'math':
      if (t.math === undefined) throw missing();
      return resolveMath(t.math, input);
    case 'string':
      if (t.string === undefined) throw missing();
      return resolveString(t.string, input);
    case 'convert':
      if (t.convert === undefined) throw missing();
      return resolveConvert(t.convert, input);
    default:
      throw new Error(`transform type ${type} is not supported`);
  }
}

const CONFIGURED = new Set(['map', 'match', 'math', 'string', 'convert']);

/**
 * Runs one transform as upstream's Resolve does: a type's own error is wrapped as `<type> transform could not
 * resolve: ...`; an unknown type or a missing configuration is not.
 */
export function resolve(t: Transform, input: GoValue): GoValue {
  const type = t.type ?? '';
  if (!CONFIGURED.has(type) || (t as Record<string, unknown>)[type] === undefined) return resolveTransform(t, input);
  try {
    return resolveTransform(t, input);
  } catch (err) {
    throw new Error(`${type} transform could not resolve: ${(err as Error).message}`, { cause: err });
  }
}

/** Runs transforms in order, wrapping an error as `transform at index N returned error: ...`. */
export function resolveTransforms(transforms: readonly Transform[], input: GoValue): GoValue {
  let value = input;
  for (const [i, t] of transforms.entries()) {
    try {
      value = resolve(t, value);
    } catch (err) {
      throw new Error(`transform at index ${i} returned error: ${(err as Error).message}`, { cause: err });
    }
  }
  return value;
}
