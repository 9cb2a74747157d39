// Vector values with their Go dynamic types: YAML gives JS values; inputGoType says which Go type the upstream
// test used, which P&T's transforms and error texts depend on.
import { GoInt, goTypeName } from '../../src/functions/builtin/govalue.js';

export function toGo(value: unknown, goType: string | undefined): unknown {
  if (goType === 'int') return new GoInt(BigInt(value as number));
  if (goType === 'int64') return BigInt(value as number);
  if (goType === 'nil') return null;
  return value;
}

/** The value as plain JSON (int64 as number), for comparison with a vector's expected output. */
export function fromGo(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_k, v: unknown) =>
      typeof v === 'bigint' ? Number(v) : v instanceof GoInt ? Number(v.value) : v,
    ),
  ) as unknown;
}

export { goTypeName };
