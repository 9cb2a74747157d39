// Go dynamic values, as P&T's transforms see them. JSON gives float64 numbers; transforms produce int64. JS keeps
// the difference: number is float64, bigint is int64, GoInt is Go's int (only tests can produce one).

export class GoInt {
  constructor(readonly value: bigint) {}
}

export type GoValue = unknown;

export function goTypeName(v: GoValue): string {
  if (v === null || v === undefined) return '<nil>';
  if (v instanceof GoInt) return 'int';
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return 'float64';
    case 'bigint':
      return 'int64';
    default:
      return 'map[string]interface {}';
  }
}

/** Go's strconv.FormatFloat(f, 'f', -1, 64): shortest digits, never an exponent. */
export function formatFloatF(f: number): string {
  const [mantissa = '', expText = '0'] = f.toExponential().split('e');
  const exp = Number(expText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let out: string;
  if (exp >= digits.length - 1) out = digits + '0'.repeat(exp - digits.length + 1);
  else if (exp >= 0) out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  else out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  return negative ? `-${out}` : out;
}

const INT64_MIN = -(2n ** 63n);

/**
 * Go's int64(f) of a float64 as amd64 computes it: toward zero, and for NaN, infinities and values out of range the
 * "integer indefinite" -2^63 (the Go spec leaves these to the implementation; amd64 is where Crossplane mostly runs).
 */
export function goFloatToInt64(f: number): bigint {
  return Number.isNaN(f) || Math.abs(f) >= 2 ** 63 ? INT64_MIN : BigInt(Math.trunc(f));
}
