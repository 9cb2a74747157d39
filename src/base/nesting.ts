// How deeply a JSON value nests, found without recursion. The engine walks objects recursively in many places
// (structuredClone, JSON.stringify, digests, comparisons, protobuf encoding); none of them may meet an object
// deeper than they can walk on the default stack. The API server accepts about 10,000 levels (Go's encoding/json)
// and function responses come with no limit at all, so objects are measured here, in linear time, before anything
// recursive touches them.

/**
 * Levels of objects and arrays the engine accepts in an XR, a composed or required resource, or a function response.
 * Kubernetes objects and their OpenAPI schemas nest a few dozen levels; the recursive walks of the engine stay
 * well within the default stack at this depth (structuredClone, the shallowest of them, fails near 1,600).
 */
export const MAX_NESTING_DEPTH = 512;

/** Segments of the path shown when a value nests too deeply. */
const SHOWN_SEGMENTS = 6;

/** A container still to visit; the path is kept as a parent link, so a visit copies nothing. */
interface Pending {
  value: object;
  depth: number;
  key: string;
  parent: Pending | undefined;
}

/**
 * The path of the first value nested deeper than `maxDepth` levels of objects and arrays, or undefined when none
 * is. Each value is visited once; Uint8Arrays count as leaves. The path shows its first segments, then "…".
 *
 * @example deeperThan({ spec: { a: { b: {} } } }, 2) // 'spec.a'
 */
export function deeperThan(root: unknown, maxDepth: number = MAX_NESTING_DEPTH): string | undefined {
  if (!isContainer(root)) return undefined;
  const stack: Pending[] = [{ value: root, depth: 0, key: '', parent: undefined }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.depth >= maxDepth) return pathText(next);
    const depth = next.depth + 1;
    if (Array.isArray(next.value)) {
      const list: unknown[] = next.value;
      for (let i = 0; i < list.length; i++) {
        const child = list[i];
        if (isContainer(child)) stack.push({ value: child, depth, key: `[${i}]`, parent: next });
      }
      continue;
    }
    const record = next.value as Record<string, unknown>;
    for (const key in record) {
      const child = record[key];
      if (isContainer(child)) stack.push({ value: child, depth, key, parent: next });
    }
  }
  return undefined;
}

function isContainer(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !(value instanceof Uint8Array);
}

function pathText(last: Pending): string {
  const keys: string[] = [];
  // The root has no parent and no key of its own.
  for (let p = last; p.parent !== undefined; p = p.parent) keys.push(p.key);
  keys.reverse();
  const shown = keys.slice(0, SHOWN_SEGMENTS).join('.').replaceAll('.[', '[');
  if (keys.length === 0) return '(the top level)';
  return keys.length > SHOWN_SEGMENTS ? `${shown}…` : shown;
}

/** A value nested deeper than the engine walks; the message names where. */
export class NestingDepthError extends Error {
  constructor(
    readonly what: string,
    readonly path: string,
    readonly maxDepth: number,
  ) {
    super(`${what} nests deeper than ${maxDepth} levels of objects and arrays (at ${path})`);
    this.name = 'NestingDepthError';
  }
}

/**
 * Throws NestingDepthError naming `what` when `value` nests deeper than `maxDepth`.
 *
 * @example assertNesting(xr, 'composite resource "my-app"');
 */
export function assertNesting(value: unknown, what: string, maxDepth: number = MAX_NESTING_DEPTH): void {
  const path = deeperThan(value, maxDepth);
  if (path !== undefined) throw new NestingDepthError(what, path, maxDepth);
}

/**
 * About how many bytes a JSON value takes in memory, in one linear walk without recursion: string lengths (keys
 * included, two bytes a character), 8 bytes a number or boolean, the byte length of a Uint8Array. For budgets, not
 * for accounting.
 *
 * @example approximateSize({ a: 'xyz' }) // 8
 */
export function approximateSize(root: unknown): number {
  let bytes = 0;
  const stack: unknown[] = [root];
  for (let value = stack.pop(); stack.length > 0 || value !== undefined; value = stack.pop()) {
    if (typeof value === 'string') bytes += 2 * value.length;
    else if (typeof value === 'number' || typeof value === 'boolean') bytes += 8;
    else if (value instanceof Uint8Array) bytes += value.byteLength;
    else if (Array.isArray(value)) for (const item of value as unknown[]) stack.push(item);
    else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const key in record) {
        bytes += 2 * key.length;
        stack.push(record[key]);
      }
    }
  }
  return bytes;
}
