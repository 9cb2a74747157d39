// A deterministic digest of a message: sorted keys and bytes as base64, so equal requests hash equally whatever
// the insertion order of their maps. Used for meta.tag and as the response-cache key.
import { createHash } from 'node:crypto';

function canonical(value: unknown): unknown {
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = canonical(v);
    }
    return out;
  }
  return value;
}

/** Lowercase hex SHA-256 of the canonical JSON form of value. */
export function digest(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(value)))
    .digest('hex');
}

/** Deep equality of two messages under the same canonical form. */
export function sameMessage(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
