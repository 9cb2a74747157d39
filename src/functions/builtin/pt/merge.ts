// Patch merge policies (policy.toFieldPath), as crossplane-runtime's fieldpath MergeValue does them with mergo:
// objects are merged key by key; `keep` keeps the destination's non-empty values (MergeObjects*), otherwise the
// source wins (ForceMergeObjects*); `append` appends arrays instead of replacing them, after dropping source
// items the destination already holds.
import { isDeepStrictEqual } from 'node:util';

export interface MergeOptions {
  keep: boolean;
  append: boolean;
}

/** The merge options of a policy; undefined means replace (Replace, or no policy). */
export function mergeOptionsOf(policy: string | undefined): MergeOptions | undefined {
  switch (policy) {
    case 'MergeObjects':
    case 'MergeObject':
      return { keep: true, append: false };
    case 'MergeObjectsAppendArrays':
      return { keep: true, append: true };
    case 'ForceMergeObjects':
      return { keep: false, append: false };
    case 'ForceMergeObjectsAppendArrays':
    case 'AppendArray':
      return { keep: false, append: true };
    default:
      return undefined;
  }
}

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Go's zero values, which mergo treats as empty and so always fills. */
function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

function mergeValue(dst: unknown, src: unknown, o: MergeOptions): unknown {
  if (isObject(dst) && isObject(src)) return mergeObjects(dst, src, o);
  if (Array.isArray(src) && o.append) return (Array.isArray(dst) ? (dst as unknown[]) : []).concat(src as unknown[]);
  if (o.keep && !isEmpty(dst)) return dst;
  return src;
}

function mergeObjects(dst: Obj, src: Obj, o: MergeOptions): Obj {
  const out: Obj = { ...dst };
  for (const [key, value] of Object.entries(src)) out[key] = key in dst ? mergeValue(dst[key], value, o) : value;
  return out;
}

function withoutDuplicates(dst: unknown, src: unknown): unknown {
  if (!Array.isArray(dst) || !Array.isArray(src)) return src;
  return src.filter((s) => !dst.some((d) => isDeepStrictEqual(d, s)));
}

/** The value to store when src is patched onto dst (undefined dst means the field does not exist). */
export function merge(dst: unknown, src: unknown, o: MergeOptions | undefined): unknown {
  if (o === undefined || dst === undefined || dst === null || src === null) return src;
  const source = o.append ? withoutDuplicates(dst, src) : src;
  // crossplane-runtime's removeSourceDuplicates leaves a nil slice, and mergo puts it in place of an empty
  // destination: appending nothing to an empty array stores null (crank prints `tags: null`).
  if (o.append && Array.isArray(dst) && dst.length === 0 && Array.isArray(source) && source.length === 0) return null;
  return mergeValue(dst, source, o);
}
