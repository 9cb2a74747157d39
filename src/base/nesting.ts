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

interface Pending {
  value: unknown;
  depth: number;
  path: readonly string[];
}

/**
 * The path of the first value nested deeper than `maxDepth` levels of objects and arrays, or undefined when none
 * is. Each value is visited once; Uint8Arrays count as leaves. The path shows its first segments, then "…".
 *
 * @example deeperThan({ spec: { a: { b: {} } } }, 2) // 'spec.a'
 */
export function deeperThan(root: unknown, maxDepth: number = MAX_NESTING_DEPTH): string | undefined {
  const stack: Pending[] = [{ value: root, depth: 0, path: [] }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, depth, path } = next;
    if (value === null || typeof value !== 'object' || value instanceof Uint8Array) continue;
    if (depth >= maxDepth) return pathText(path);
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((item, i): [string, unknown] => [`[${i}]`, item])
      : Object.entries(value);
    for (const [key, child] of entries) {
      if (child === null || typeof child !== 'object') continue;
      // Past the shown segments the path stays as it is: copying it per level would make the walk quadratic.
      const childPath = path.length < SHOWN_SEGMENTS ? [...path, key] : path;
      stack.push({ value: child, depth: depth + 1, path: childPath });
    }
  }
  return undefined;
}

function pathText(path: readonly string[]): string {
  const text = path.join('.').replaceAll('.[', '[');
  return path.length >= SHOWN_SEGMENTS ? `${text}…` : text || '(the top level)';
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
