// What crank's `render xr` does to the rendered objects on their way to stdout (crossplane/cli
// cmd/crossplane/render/xr/cmd.go Run): -x merges the rendered XR into the input XR (dario.cat/mergo WithOverride),
// the conditions of the XR and of every composed resource go through crossplane's Condition type with a fixed
// lastTransitionTime (render/output.go ReplaceConditionTimestamps), and each object is written as `---` and the YAML
// of k8s.io/apimachinery's YAML serializer (goYaml.ts).
import type { JsonObject, JsonValue } from '../functions/index.js';
import { goYaml } from './goYaml.js';

/** Every condition's lastTransitionTime in the output (output.go conditionTime). */
export const RENDER_TIME = '2024-01-01T00:00:00Z';

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * mergo.Merge(&dst, src, mergo.WithOverride) of JSON objects, in place: every key of src wins, except that an object
 * merges into a non-empty object under the same key; arrays, scalars and null replace.
 */
export function mergeOverride(dst: JsonObject, src: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(src)) {
    const existing = dst[key];
    if (isObject(value) && isObject(existing) && Object.keys(existing).length > 0) mergeOverride(existing, value);
    else dst[key] = structuredClone(value);
  }
  return dst;
}

/** -x: the input XR (after --xrd defaults) with the rendered XR merged over it. */
export function fullXr(input: JsonObject, rendered: JsonObject): JsonObject {
  return mergeOverride(structuredClone(input), rendered);
}

const CONDITION_STRINGS = ['type', 'status', 'reason', 'message'] as const;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether json.Unmarshal into crossplane's Condition succeeds (unknown fields are ignored). */
function fitsCondition(value: JsonObject): boolean {
  const time = value.lastTransitionTime ?? null;
  const generation = value.observedGeneration ?? 0;
  return (
    CONDITION_STRINGS.every((k) => value[k] === undefined || value[k] === null || typeof value[k] === 'string') &&
    (time === null || (typeof time === 'string' && RFC3339.test(time))) &&
    typeof generation === 'number' &&
    Number.isSafeInteger(generation)
  );
}

/** A condition as it reads back through crossplane's Condition type, or undefined where that would fail. */
function typedCondition(value: JsonValue): JsonObject | undefined {
  const fields = value ?? {};
  if (!isObject(fields) || !fitsCondition(fields)) return undefined;
  const str = (k: (typeof CONDITION_STRINGS)[number]): string => {
    const v = fields[k];
    return typeof v === 'string' ? v : '';
  };
  const condition: JsonObject = {
    type: str('type'),
    status: str('status'),
    lastTransitionTime: RENDER_TIME,
    reason: str('reason'),
  };
  if (str('message') !== '') condition.message = str('message');
  const generation = fields.observedGeneration ?? 0;
  if (generation !== 0) condition.observedGeneration = generation;
  return condition;
}

/**
 * ReplaceConditionTimestamps: an object with a status gets its conditions back through the Condition type (unknown
 * fields dropped, `reason` always present, the fixed time), and `conditions: null` when it had none. A status that
 * does not fit ConditionedStatus is left as it is, as upstream ignores that error.
 */
export function withStableConditions(object: JsonObject): JsonObject {
  if (!('status' in object)) return object;
  const status = object.status ?? {};
  if (!isObject(status)) return object;
  const conditions = status.conditions ?? [];
  if (!Array.isArray(conditions)) return object;
  const typed = conditions.map(typedCondition);
  if (typed.some((c) => c === undefined)) return object;
  const stable = typed as JsonObject[];
  return { ...object, status: { ...status, conditions: stable.length > 0 ? stable : null } };
}

/** The text crank prints: each document as `---` and its YAML. */
export function printDocuments(docs: readonly JsonObject[]): string {
  return docs.map((doc) => `---\n${goYaml(doc)}`).join('');
}
