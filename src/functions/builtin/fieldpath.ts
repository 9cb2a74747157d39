// Crossplane field paths (crossplane-runtime pkg/fieldpath): `spec.items[0].name`,
// `metadata.annotations[crossplane.io/external-name]`, `spec.list[*].x` for wildcards. Errors read as upstream's,
// because users see them in FATAL results and warnings.

export type Segment = { field: string } | { index: number };

export class FieldPathNotFoundError extends Error {
  constructor(path: string) {
    super(`${path}: no such field`);
    this.name = 'FieldPathNotFoundError';
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof FieldPathNotFoundError;
}

function fieldOrIndex(text: string): Segment {
  return /^[0-9]+$/.test(text) ? { index: Number(text) } : { field: text };
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
  return segments;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function render(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) {
    if ('index' in s) out += `[${s.index}]`;
    else if (/[.[\]]/.test(s.field)) out += `[${s.field}]`;
    else out += out === '' ? s.field : `.${s.field}`;
  }
  return out;
}

/** Marks a missing segment without the cost of an Error: misses are common (optional patches, new fields). */
const MISSING = Symbol('missing');

/** One step down from current along s; MISSING when absent; a wrong shape is an error naming the path so far. */
function step(current: unknown, s: Segment, segments: readonly Segment[], i: number): unknown {
  if (current === undefined || current === null) return MISSING;
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
  if ('missing' in found) throw new FieldPathNotFoundError(render(segments.slice(0, found.missing + 1)));
  return found.value;
}

/** The value at path, or undefined when it does not exist; a path through a wrong shape still throws. */
export function findValue(object: unknown, path: string): unknown {
  const found = walk(object, parsePath(path));
  return 'missing' in found ? undefined : found.value;
}

/** The container for the segment after s: an array before an index, an object before a field. */
function containerFor(next: Segment | undefined): unknown {
  return next !== undefined && 'index' in next ? [] : {};
}

function setIn(current: unknown, s: Segment, value: unknown, where: string): void {
  if ('index' in s) {
    if (!Array.isArray(current)) throw new Error(`${where}: not an array`);
    while (current.length <= s.index) current.push(null);
    current[s.index] = value;
    return;
  }
  if (!isObject(current)) throw new Error(`${where}: not an object`);
  current[s.field] = value;
}

function childOf(current: unknown, s: Segment): unknown {
  if ('index' in s) return Array.isArray(current) ? (current[s.index] as unknown) : undefined;
  return isObject(current) ? current[s.field] : undefined;
}

/** Sets the value at path, creating objects and arrays on the way (arrays grow with nulls). */
export function setValue(object: Record<string, unknown>, path: string, value: unknown): void {
  const segments = parsePath(path);
  if (segments.length === 0) throw new Error(`cannot set value: empty path`);
  let current: unknown = object;
  for (const [i, s] of segments.entries()) {
    const where = render(segments.slice(0, i));
    if (i === segments.length - 1) {
      setIn(current, s, value, where);
      return;
    }
    let child = childOf(current, s);
    if (child === null || typeof child !== 'object') {
      child = containerFor(segments[i + 1]);
      setIn(current, s, child, where);
    }
    current = child;
  }
}

interface Expansion {
  segments: Segment[];
  value: unknown;
}

function expandOne(p: Expansion, s: Segment): Expansion[] {
  if ('field' in s && s.field === '*') {
    if (Array.isArray(p.value)) {
      return p.value.map((v: unknown, i) => ({ segments: [...p.segments, { index: i }], value: v }));
    }
    if (!isObject(p.value)) return [];
    return Object.entries(p.value).map(([k, v]) => ({ segments: [...p.segments, { field: k }], value: v }));
  }
  return [{ segments: [...p.segments, s], value: childOf(p.value, s) }];
}

/** Expands every `[*]` of path against the arrays and objects that exist in object. */
export function expandWildcards(object: unknown, path: string): string[] {
  let paths: Expansion[] = [{ segments: [], value: object }];
  for (const s of parsePath(path)) paths = paths.flatMap((p) => expandOne(p, s));
  return paths.map((p) => render(p.segments));
}
