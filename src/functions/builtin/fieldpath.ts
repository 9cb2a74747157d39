// Crossplane field paths (crossplane-runtime pkg/fieldpath): `spec.items[0].name`,
// `metadata.annotations[crossplane.io/external-name]`, `spec.list[*].x` for wildcards. Errors read as upstream's,
// because users see them in FATAL results and warnings.

import { goQuote } from './gostd.js';
import { LimitError } from './limits.js';

/** Longest path parsed: Kubernetes' longest names (an annotation key is 253+63) leave room for dozens of segments. */
export const MAX_PATH_LENGTH = 8192;
/** Most segments in a path; no object Kubernetes stores nests deeper in practice, and each costs a walk step. */
export const MAX_PATH_SEGMENTS = 1000;
/**
 * Longest array a set grows with nulls (Go grows to any index): a million nulls are 5 MB of JSON, more than etcd
 * stores for a whole object.
 */
export const MAX_GROWN_ARRAY_LENGTH = 1 << 20;

export type Segment = { field: string } | { index: number };

export class FieldPathNotFoundError extends Error {
  constructor(path: string, what: 'field' | 'element' = 'field') {
    super(`${path}: no such ${what}`);
    this.name = 'FieldPathNotFoundError';
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof FieldPathNotFoundError;
}

/** FieldOrIndex: an index when strconv.ParseUint(text, 10, 32) takes it, else a field (`[4294967296]` is one). */
function fieldOrIndex(text: string): Segment {
  const index = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  return index <= 0xffffffff ? { index } : { field: text };
}

function parseError(path: string, message: string): Error {
  return new Error(`cannot parse path "${path}": ${message}`);
}

/** A '.' must sit between two segments. */
function checkDot(path: string, i: number): void {
  if (i === 0 || i === path.length - 1) throw parseError(path, `unexpected '.' at position ${i}`);
  if (path[i + 1] === '.') throw parseError(path, `unexpected '.' at position ${i + 1}`);
}

/** Reads `[...]` starting at i; returns the segment and the index after `]`. */
function readBracket(path: string, i: number): { segment: Segment; next: number } {
  const end = path.indexOf(']', i + 1);
  if (end < 0) throw parseError(path, `unterminated '[' at position ${i}`);
  const inner = path.slice(i + 1, end);
  if (inner === '') throw parseError(path, `unexpected ']' at position ${end}`);
  const next = end + 1;
  const after = path.charAt(next);
  if (after !== '' && after !== '.' && after !== '[')
    throw parseError(path, `unexpected '${after}' at position ${next}`);
  return { segment: fieldOrIndex(inner.replace(/^(["'])(.*)\1$/, '$2')), next };
}

/**
 * Parsed paths, reused: a composition's few paths are parsed on every reconcile otherwise. Bounded, because paths
 * come from user input; clearing when full is enough for a cache whose entries are cheap to rebuild.
 */
const parsed = new Map<string, readonly Segment[]>();
const MAX_PARSED = 10_000;

/** Parses a path into segments; errors name the offending character and its position. */
export function parsePath(path: string): readonly Segment[] {
  let segments = parsed.get(path);
  if (segments === undefined) {
    segments = parseUncached(path);
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(path, segments);
  }
  return segments;
}

function parseUncached(path: string): Segment[] {
  if (path.length > MAX_PATH_LENGTH) {
    throw new LimitError(`cannot parse path: ${path.length} characters is longer than the limit of ${MAX_PATH_LENGTH}`);
  }
  const segments: Segment[] = [];
  let field = '';
  const flush = (): void => {
    if (field !== '') segments.push({ field });
    field = '';
  };
  for (let i = 0; i < path.length;) {
    const c = path.charAt(i);
    if (c === '.') {
      checkDot(path, i);
      flush();
      i++;
    } else if (c === '[') {
      flush();
      const { segment, next } = readBracket(path, i);
      segments.push(segment);
      i = next;
    } else if (c === ']') {
      throw parseError(path, `unexpected ']' at position ${i}`);
    } else {
      field += c;
      i++;
    }
  }
  flush();
  if (segments.length > MAX_PATH_SEGMENTS) {
    throw new LimitError(
      `cannot parse path: ${segments.length} segments are more than the limit of ${MAX_PATH_SEGMENTS}`,
    );
  }
  return segments;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Segments as Go's Segments.String() writes them: `[*]` and fields with a dot in brackets. */
function render(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) {
    if ('index' in s) out += `[${s.index}]`;
    else if (s.field === '*' || s.field.includes('.')) out += `[${s.field}]`;
    else out += `.${s.field}`;
  }
  return out.startsWith('.') ? out.slice(1) : out;
}

/** Marks a missing segment without the cost of an Error: misses are common (optional patches, new fields). */
const MISSING = Symbol('missing');

/**
 * One step down from current along s; MISSING when absent; a wrong shape is an error naming the path so far. A
 * null on the way is a wrong shape, not a missing field, as in Go (a nil is neither a map nor a slice).
 */
function step(current: unknown, s: Segment, segments: readonly Segment[], i: number): unknown {
  if ('index' in s) {
    if (!Array.isArray(current)) throw new Error(`${render(segments.slice(0, i))}: not an array`);
    return s.index < current.length ? (current[s.index] as unknown) : MISSING;
  }
  if (!isObject(current)) throw new Error(`${render(segments.slice(0, i))}: not an object`);
  return s.field in current ? current[s.field] : MISSING;
}

/** The value at path, or the index of the first missing segment. */
function walk(object: unknown, segments: readonly Segment[]): { value: unknown } | { missing: number } {
  let current: unknown = object;
  for (const [i, s] of segments.entries()) {
    current = step(current, s, segments, i);
    if (current === MISSING) return { missing: i };
  }
  return { value: current };
}

/** The value at path; FieldPathNotFoundError when any segment is missing. */
export function getValue(object: unknown, path: string): unknown {
  const segments = parsePath(path);
  const found = walk(object, segments);
  if ('missing' in found) {
    const what = 'index' in (segments[found.missing] ?? {}) ? 'element' : 'field';
    throw new FieldPathNotFoundError(render(segments.slice(0, found.missing + 1)), what);
  }
  return found.value;
}

/** The value at path, or undefined when it does not exist; a path through a wrong shape still throws. */
export function findValue(object: unknown, path: string): unknown {
  const found = walk(object, parsePath(path));
  return 'missing' in found ? undefined : found.value;
}

/** Refuses to grow an array to reach an index no storable object could hold. */
function checkGrowth(index: number): void {
  if (index >= MAX_GROWN_ARRAY_LENGTH) {
    throw new LimitError(`cannot grow an array to index ${index}: the limit is ${MAX_GROWN_ARRAY_LENGTH - 1}`);
  }
}

/** A new container for the segment after the current one: nulls up to an index, or an object. */
function containerFor(next: Segment): unknown {
  if (!('index' in next)) return {};
  checkGrowth(next.index);
  return new Array<unknown>(next.index + 1).fill(null);
}

/** Grows an array that the next segment indexes past its end (Go's prepareField/prepareElement). */
function grow(value: unknown, next: Segment): void {
  if (!('index' in next) || !Array.isArray(value) || value.length > next.index) return;
  checkGrowth(next.index);
  while (value.length <= next.index) value.push(null);
}

/**
 * Sets the value at path as crossplane-runtime's Paved.SetValue does: a missing field (or a null array element) on
 * the way becomes the container the next segment needs and arrays grow with nulls; a field that holds null or a
 * value of the wrong shape is an error (`spec.x is not an object`), never replaced.
 */
export function setValue(object: Record<string, unknown>, path: string, value: unknown): void {
  const segments = parsePath(path);
  if (segments.length === 0) throw new Error(`cannot set value: empty path`);
  let current: unknown = object;
  for (const [i, s] of segments.entries()) {
    const next = segments[i + 1];
    if ('index' in s) {
      if (!Array.isArray(current)) throw new Error(`${render(segments.slice(0, i))} is not an array`);
      if (next === undefined) {
        if (s.index >= current.length) checkGrowth(s.index);
        current[s.index] = value;
        return;
      }
      if (current[s.index] === null || current[s.index] === undefined) current[s.index] = containerFor(next);
      else grow(current[s.index], next);
      current = current[s.index];
      continue;
    }
    if (!isObject(current)) throw new Error(`${render(segments.slice(0, i))} is not an object`);
    if (next === undefined) {
      current[s.field] = value;
      return;
    }
    if (!(s.field in current)) current[s.field] = containerFor(next);
    else grow(current[s.field], next);
    current = current[s.field];
  }
}

/** The value at segments, Go's getValueFromInterface: MISSING when absent, an error for a wrong shape. */
function valueAt(object: unknown, segments: readonly Segment[]): unknown {
  const found = walk(object, segments);
  return 'missing' in found ? MISSING : found.value;
}

const quoted = (segments: readonly Segment[]): string => goQuote(render(segments));

/** Go's expandWildcards: only paths whose every segment exists; a `*` over a scalar (or null) is an error. */
function expand(object: unknown, segments: readonly Segment[]): Segment[][] {
  for (const [i, s] of segments.entries()) {
    if ('field' in s && s.field === '*') {
      const here = i === 0 ? object : valueAt(object, segments.slice(0, i));
      const keys: Segment[] = Array.isArray(here)
        ? here.map((_v, ix) => ({ index: ix }))
        : isObject(here)
          ? Object.keys(here).map((k) => ({ field: k }))
          : [];
      if (!Array.isArray(here) && !isObject(here)) {
        throw new Error(`${quoted(segments.slice(0, i))}: unexpected wildcard usage`);
      }
      return keys.flatMap((k) => {
        const expanded = [...segments.slice(0, i), k, ...segments.slice(i + 1)];
        try {
          return expand(object, expanded);
        } catch (err) {
          throw new Error(`${quoted(expanded)}: cannot expand wildcards: ${(err as Error).message}`, { cause: err });
        }
      });
    }
    if (valueAt(object, segments.slice(0, i + 1)) === MISSING) return [];
  }
  return [[...segments]];
}

/**
 * Expands every `[*]` of path against what object holds (Paved.ExpandWildcards): only into paths that exist to
 * their last segment; a `*` over a scalar or null fails, wrapped as `cannot expand wildcards for segments: "..."`.
 */
export function expandWildcards(object: unknown, path: string): string[] {
  const segments = parsePath(path);
  try {
    return expand(object, segments).map(render);
  } catch (err) {
    throw new Error(`cannot expand wildcards for segments: ${quoted(segments)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
