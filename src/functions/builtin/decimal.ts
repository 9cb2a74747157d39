// Exact decimal forms of a float64 at a given precision, as Go's strconv writes them: the exact binary value rounded
// half to even. JavaScript's toFixed and toExponential stop at 100 digits and round ties up; Go takes any precision
// (`%.200f` prints the value's exact expansion) and rounds ties to even (`%.0f` of 2.5 is "2").

/** Beyond these many digits a float64's exact decimal expansion has only zeros (2^-1074 has 1074 fraction digits). */
const MAX_FRACTION_DIGITS = 1100;
const MAX_SIGNIFICANT_DIGITS = 800;

/** x (finite, > 0) exactly as digits × 10^exp, with exp ≤ 0. */
function exactValue(x: number): { digits: bigint; exp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const high = view.getUint32(0);
  const biased = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exp2 = biased === 0 ? -1074 : biased - 1075;
  // m × 2^-n = m × 5^n / 10^n
  return exp2 >= 0
    ? { digits: mantissa << BigInt(exp2), exp: 0 }
    : { digits: mantissa * 5n ** BigInt(-exp2), exp: exp2 };
}

/** digits / 10^drop, rounded half to even. */
function roundOff(digits: bigint, drop: number): bigint {
  if (drop <= 0) return digits * 10n ** BigInt(-drop);
  const divisor = 10n ** BigInt(drop);
  const q = digits / divisor;
  const twice = (digits % divisor) * 2n;
  return twice > divisor || (twice === divisor && q % 2n === 1n) ? q + 1n : q;
}

/**
 * strconv.FormatFloat(x, 'f', prec, 64) of a finite x ≥ 0; the caller writes the sign.
 *
 * @example toFixedExact(2.5, 0) === '2'
 */
export function toFixedExact(x: number, prec: number): string {
  const exact = Math.min(prec, MAX_FRACTION_DIGITS);
  const zeros = '0'.repeat(prec - exact);
  const { digits, exp } = x === 0 ? { digits: 0n, exp: 0 } : exactValue(x);
  const text = roundOff(digits, -exp - exact)
    .toString()
    .padStart(exact + 1, '0');
  if (exact === 0) return text;
  return `${text.slice(0, -exact)}.${text.slice(-exact)}${zeros}`;
}

/**
 * strconv.FormatFloat(x, 'e', prec, 64) of a finite x > 0 in JavaScript's exponent form (`1.5e+2`), which the caller
 * rewrites to Go's (`1.5e+02`).
 *
 * @example toExponentialExact(125, 1) === '1.2e+2'
 */
export function toExponentialExact(x: number, prec: number): string {
  const exact = Math.min(prec, MAX_SIGNIFICANT_DIGITS);
  const { digits, exp } = exactValue(x);
  const length = digits.toString().length;
  let kept = roundOff(digits, length - (exact + 1)).toString();
  let exp10 = length - 1 + exp;
  if (kept.length > exact + 1) {
    // Rounding carried into a new digit (9.99 → 10.0): one more power of ten, one digit fewer.
    kept = kept.slice(0, exact + 1);
    exp10++;
  }
  const mantissa = kept + '0'.repeat(prec - exact);
  const body = prec > 0 ? `${mantissa.charAt(0)}.${mantissa.slice(1)}` : mantissa;
  return `${body}e${exp10 < 0 ? '-' : '+'}${Math.abs(exp10)}`;
}
