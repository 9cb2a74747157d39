// Readiness checks of a composed template (ready.go). No checks: ready when condition Ready is True. Otherwise
// every check must pass; the first error stops the evaluation and is reported as a warning by the caller.
import type { JsonObject } from '../../types.js';
import { findValue } from '../fieldpath.js';
import type { ReadinessCheck } from './input.js';
import { validateReadinessCheck } from './validate.js';

function conditionStatus(object: JsonObject, type: string): string {
  const conditions = (object.status as { conditions?: unknown } | undefined)?.conditions;
  const found = Array.isArray(conditions)
    ? (conditions as { type?: unknown; status?: unknown }[]).find((c) => c.type === type)
    : undefined;
  // A missing condition reads as Unknown, as crossplane-runtime's GetCondition returns it.
  return typeof found?.status === 'string' ? found.status : 'Unknown';
}

function typed<T>(path: string, value: unknown, ok: (v: unknown) => v is T, what: string): T | undefined {
  if (value === undefined) return undefined;
  if (!ok(value)) throw new Error(`${path}: not ${what}`);
  return value;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
// JSON has one number type; an integral number is what upstream's typed (int64) objects hold here.
const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

type Runner = (c: ReadinessCheck, object: JsonObject, path: string) => boolean;

const CHECKS: Readonly<Record<string, Runner>> = {
  None: () => true,
  NonEmpty: (_c, o, path) => findValue(o, path) !== undefined,
  MatchString: (c, o, path) => typed(path, findValue(o, path), isString, 'a string') === c.matchString,
  MatchInteger: (c, o, path) => typed(path, findValue(o, path), isInteger, 'an int') === c.matchInteger,
  MatchTrue: (_c, o, path) => typed(path, findValue(o, path), isBool, 'a bool') === true,
  MatchFalse: (_c, o, path) => typed(path, findValue(o, path), isBool, 'a bool') === false,
  MatchCondition: (c, o) => conditionStatus(o, c.matchCondition?.type ?? '') === c.matchCondition?.status,
};

/** Runs one check (RunReadinessCheck); invalid checks are errors prefixed `invalid`. */
export function runReadinessCheck(c: ReadinessCheck, object: JsonObject): boolean {
  const invalid = validateReadinessCheck(c);
  if (invalid !== undefined) throw new Error(`invalid: ${invalid.message}`, { cause: invalid });
  const run = CHECKS[c.type ?? ''] as Runner;
  return run(c, object, c.fieldPath ?? '');
}

/** Whether an observed composed resource is ready (IsReady). */
export function isReady(object: JsonObject, checks: readonly ReadinessCheck[] = []): boolean {
  if (checks.length === 0) return conditionStatus(object, 'Ready') === 'True';
  for (const [i, c] of checks.entries()) {
    let ready: boolean;
    try {
      ready = runReadinessCheck(c, object);
    } catch (err) {
      throw new Error(`cannot run readiness check at index ${i}: ${(err as Error).message}`, { cause: err });
    }
    if (!ready) return false;
  }
  return true;
}
