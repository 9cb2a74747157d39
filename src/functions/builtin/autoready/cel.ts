// function-auto-ready's CEL health check customisations (fn.go:86-128, cel/resolver.go, GetNestedMap): the map of
// `<group>_<version>_<kind>` to a CEL expression over `object`, and its evaluation with the resolver's texts.
import { Environment } from '@marcbachmann/cel-js';
import type { JsonObject, Ready } from '../../types.js';
import { compileGoRegexp } from '../re2.js';
import { RE2_MATCHES, checkEvaluationCost, checkExpressionLength, withRe2Matches } from './celBounds.js';

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The key of a kind in a CEL customisation map: <group>_<version>_<kind> (cel/resolver.go GetHealthCheck). */
export function gvkKey(object: JsonObject): string {
  const apiVersion = str(object.apiVersion);
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return `${group}_${apiVersion.slice(slash + 1)}_${str(object.kind)}`;
}

/** fn.go ParseNestedKey: `a.b`, `a[b.c]` and `[a]` notations; undefined for a key with no parts. */
export function parseNestedKey(key: string): string[] | undefined {
  const parts = [...key.matchAll(/\[([^[\]]+)\]|([^.[\]]+)/g)].map((m) => m[1] ?? m[2] ?? '');
  return parts.length === 0 ? undefined : parts;
}

/** fn.go GetNestedMap: the string values of the map at the key in the context; non-strings are dropped. */
function nestedMap(context: JsonObject, key: string): Map<string, string> {
  let value: unknown = context;
  for (const part of parseNestedKey(key) ?? []) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !(part in value)) return new Map();
    value = (value as JsonObject)[part];
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return new Map();
  return new Map(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

interface CelInput {
  celHealthCheckCustomization?: Record<string, unknown>;
  celHealthCheckCustomizationFrom?: string;
}

/** The context's map merged with the inline one, inline entries winning key by key (fn.go:86-100). */
export function celHealthChecks(input: CelInput, context: JsonObject): Map<string, string> {
  const checks =
    typeof input.celHealthCheckCustomizationFrom === 'string'
      ? nestedMap(context, input.celHealthCheckCustomizationFrom)
      : new Map<string, string>();
  for (const [k, v] of Object.entries(input.celHealthCheckCustomization ?? {})) {
    if (typeof v === 'string') checks.set(k, v);
  }
  return checks;
}

const env = new Environment()
  .registerVariable('object', 'dyn')
  // cel-go's matches is RE2; cel-js's own is JavaScript's backtracking RegExp, which a pattern can stall.
  .registerFunction(`string.${RE2_MATCHES}(string): bool`, (text: string, pattern: string) =>
    compileGoRegexp(pattern).test(text),
  );

/** cel-js's first message line, with cel-go's lower-case start ("no such key: status"). */
function firstLine(err: unknown): string {
  const line = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  return line.charAt(0).toLowerCase() + line.slice(1);
}

/**
 * cel/resolver.go HealthDeriveFromCelQuery: READY_TRUE when the expression yields true, READY_FALSE otherwise.
 * An expression whose static type is not bool (e.g. `object.status.ready`, which is dyn) yields READY_UNSPECIFIED
 * with no error: upstream wraps a nil error there (resolver.go:50), so the other checks decide.
 *
 * @throws Error `failed to compile query: ...` or `failed to eval the program: ...` (resolver.go:46, :74).
 */
export function celReadiness(expression: string, object: JsonObject): Ready {
  const program = compile(expression);
  const checked = program.check();
  if (!checked.valid) throw new Error(`failed to compile query: ${firstLine(checked.error)}`);
  if (checked.type !== 'bool') return 'READY_UNSPECIFIED';
  let value: unknown;
  try {
    const input = JSON.parse(JSON.stringify(object)) as unknown;
    checkEvaluationCost(program.ast, expression, input);
    value = program({ object: input });
  } catch (err) {
    throw new Error(`failed to eval the program: ${firstLine(err)}`, { cause: err });
  }
  return value === true ? 'READY_TRUE' : 'READY_FALSE';
}

/** The parsed expression within the bounds, its `matches` calls on RE2; a parse error reads as a compile error. */
function compile(expression: string): ReturnType<Environment['parse']> {
  try {
    checkExpressionLength(expression);
    return env.parse(withRe2Matches(expression, env.parse(expression).ast));
  } catch (err) {
    throw new Error(`failed to compile query: ${firstLine(err)}`, { cause: err });
  }
}
