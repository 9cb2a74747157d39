// Applying one patch (patches.go): read from an observed object, run the transforms, write into a desired one
// with the patch's merge policy. Patches always read observed state and write desired state; a patch from an
// observed composed resource that does not exist yet is a no-op.
import type { JsonObject, JsonValue } from '../../types.js';
import { expandWildcards, findValue, getValue, setValue } from '../fieldpath.js';
import { goSprintf as sprintf } from '../gofmt.js';
import { GoInt } from '../govalue.js';
import { resolveTransforms } from '../transforms.js';
import { patchType, toFieldPath, type Combine, type Patch } from './input.js';
import { merge, mergeOptionsOf, type MergeOptions } from './merge.js';

/**
 * A Go value back as JSON: int64 results of transforms become numbers, as P&T's JSON round-trip makes them.
 * Strings that are not valid UTF-8 stay as they are; the wire carries them as they come.
 */
export function toJson(value: unknown): JsonValue {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof GoInt) return Number(value.value);
  if (Array.isArray(value)) return value.map(toJson);
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toJson(v);
    return out;
  }
  return value as JsonValue;
}

function mergeAt(to: JsonObject, path: string, value: unknown, mo: MergeOptions | undefined): void {
  // Replace needs no look at the destination; a missing destination is replaced by any policy.
  setValue(to, path, mo === undefined ? value : merge(findValue(to, path), value, mo));
}

/**
 * Writes value at path, once per element when the path has `[*]` (expanded against what `to` holds); a plain
 * path's error reads `cannot patch to object: ...` as upstream's patchFieldValueToObject wrap.
 */
export function writeValue(to: JsonObject, path: string, value: unknown, mo?: MergeOptions): void {
  const json = toJson(value);
  if (!path.includes('[*]')) {
    try {
      mergeAt(to, path, json, mo);
    } catch (err) {
      throw new Error(`cannot patch to object: ${(err as Error).message}`, { cause: err });
    }
    return;
  }
  const paths = expandWildcards(to, path);
  if (paths.length === 0) throw new Error(`cannot expand ToFieldPath ${path}`);
  for (const p of paths) mergeAt(to, p, structuredClone(json), mo);
}

/** A FromFieldPath-style patch: value at fromFieldPath, transformed, written at toFieldPath. */
export function applyFromFieldPathPatch(p: Patch, from: JsonObject, to: JsonObject): void {
  const value = resolveTransforms(p.transforms ?? [], getValue(from, p.fromFieldPath ?? ''));
  writeValue(to, toFieldPath(p), value, mergeOptionsOf(p.policy?.toFieldPath));
}

/** Combines values with the combine's strategy; only `string` (Go's fmt.Sprintf) exists. */
export function combine(c: Combine, values: readonly unknown[]): string {
  if (c.strategy !== 'string') throw new Error(`combine strategy ${c.strategy ?? ''} is not supported`);
  return sprintf(c.string?.fmt ?? '', values);
}

/** A Combine patch: every variable must exist; the combined value is transformed and written (no merge). */
export function applyCombinePatch(p: Patch, from: JsonObject, to: JsonObject): void {
  const c = p.combine ?? {};
  const values = (c.variables ?? []).map((v) => getValue(from, v.fromFieldPath ?? ''));
  const value = resolveTransforms(p.transforms ?? [], combine(c, values));
  writeValue(to, p.toFieldPath ?? '', value);
}

/** The objects a composed resource's patches read and write. */
export interface ComposedPatchObjects {
  observedXr: JsonObject;
  desiredXr: JsonObject;
  /** Undefined until the composed resource exists. */
  observed: JsonObject | undefined;
  desired: JsonObject;
  environment: JsonObject;
}

type Route = (o: ComposedPatchObjects) => [from: JsonObject | undefined, to: JsonObject, combine: boolean];

const COMPOSED_ROUTES: Readonly<Record<string, Route>> = {
  FromCompositeFieldPath: (o) => [o.observedXr, o.desired, false],
  CombineFromComposite: (o) => [o.observedXr, o.desired, true],
  FromEnvironmentFieldPath: (o) => [o.environment, o.desired, false],
  CombineFromEnvironment: (o) => [o.environment, o.desired, true],
  ToCompositeFieldPath: (o) => [o.observed, o.desiredXr, false],
  CombineToComposite: (o) => [o.observed, o.desiredXr, true],
  ToEnvironmentFieldPath: (o) => [o.observed, o.environment, false],
  CombineToEnvironment: (o) => [o.observed, o.environment, true],
};

function applyRoute(p: Patch, route: Route | undefined, objects: ComposedPatchObjects): void {
  if (route === undefined) throw new Error(`unsupported patch type "${patchType(p)}"`);
  const [from, to, isCombine] = route(objects);
  // Patches from an observed composed resource do nothing until it exists.
  if (from === undefined) return;
  if (isCombine) applyCombinePatch(p, from, to);
  else applyFromFieldPathPatch(p, from, to);
}

/** Applies a patch of a composed template (ApplyComposedPatch). PatchSet patches were inlined before. */
export function applyComposedPatch(p: Patch, objects: ComposedPatchObjects): void {
  const type = patchType(p);
  if (type === 'PatchSet') return;
  applyRoute(p, COMPOSED_ROUTES[type], objects);
}

/** Environment patches run between the observed XR, the environment and the desired XR. */
const ENVIRONMENT_ROUTES: Readonly<Record<string, Route>> = {
  FromCompositeFieldPath: (o) => [o.observedXr, o.environment, false],
  ToEnvironmentFieldPath: (o) => [o.observedXr, o.environment, false],
  CombineFromComposite: (o) => [o.observedXr, o.environment, true],
  CombineToEnvironment: (o) => [o.observedXr, o.environment, true],
  ToCompositeFieldPath: (o) => [o.environment, o.desiredXr, false],
  FromEnvironmentFieldPath: (o) => [o.environment, o.desiredXr, false],
  CombineToComposite: (o) => [o.environment, o.desiredXr, true],
  CombineFromEnvironment: (o) => [o.environment, o.desiredXr, true],
};

/** Applies an environment patch (ApplyEnvironmentPatch). */
export function applyEnvironmentPatch(
  p: Patch,
  objects: Pick<ComposedPatchObjects, 'observedXr' | 'desiredXr' | 'environment'>,
): void {
  const type = patchType(p);
  if (type === 'PatchSet') return;
  applyRoute(p, ENVIRONMENT_ROUTES[type], { ...objects, observed: undefined, desired: {} });
}
