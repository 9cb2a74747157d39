// Comparing what a built-in module did with what a vector expects: a value, or an error (exact text, and/or the
// apimachinery field error it carries).
import { expect } from 'chai';
import { FieldError } from '../../src/functions/builtin/fieldError.js';
import type { Vector } from './corpus.js';

export type Outcome = { value: unknown; error?: undefined } | { value?: undefined; error: Error };

/** Runs fn, capturing a thrown error instead of letting it escape. */
export function outcome(fn: () => unknown): Outcome {
  try {
    return { value: fn() };
  } catch (err) {
    return { error: err instanceof Error ? err : new Error(String(err)) };
  }
}

export function given(v: Vector): Record<string, unknown> {
  return v.given ?? {};
}

export function want(v: Vector): Record<string, unknown> {
  return v.expect ?? {};
}

/** The field error an error is or wraps, if any. */
export function findFieldError(err: unknown): FieldError | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if (e instanceof FieldError) return e;
  return undefined;
}

/** Checks `error` and `fieldError` expectations; true when the vector expects an error. */
export function checkError(v: Vector, out: Outcome): boolean {
  const w = want(v);
  const fe = w.fieldError as { type: string; field: string } | undefined;
  if (w.error === undefined && fe === undefined && w.errorAny !== true) {
    if (out.error !== undefined) throw out.error;
    return false;
  }
  expect(out.error, `${v.id}: want an error`).to.be.instanceOf(Error);
  if (fe !== undefined) {
    const cause = findFieldError(out.error);
    expect(cause, `${v.id}: want a field error`).to.be.instanceOf(FieldError);
    expect({ type: cause?.type, field: cause?.field }, v.id).to.deep.equal(fe);
  }
  if (w.error !== undefined) expect(out.error?.message, v.id).to.equal(w.error);
  return true;
}

/** Plain JSON of a value, so undefined members and class instances compare as the YAML does. */
export function plain(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}
