// strconv.FormatFloat of a float64's magnitude, as Go's fmt calls it for %e %E %f %F %g %G and %v: shortest digits
// for precision -1, exact decimal rounding (half to even) otherwise, Go's two-digit exponents. fmt adds sign, padding
// and flags (gofmt.ts).
import { toExponentialExact, toFixedExact } from './decimal.js';

/** The exponent form Go writes: at least two exponent digits, with their sign. */
function goExponent(text: string, upper: boolean): string {
  const [mantissa = '', exp = '0'] = text.split('e');
  const n = Number(exp);
  const digits = String(Math.abs(n)).padStart(2, '0');
  return `${mantissa}${upper ? 'E' : 'e'}${n < 0 ? '-' : '+'}${digits}`;
}

/** Shortest digits and decimal exponent of |f| (f finite, not 0): "d.ddd" with exp, as toExponential gives them. */
function shortest(f: number): { digits: string; exp: number } {
  const [mantissa = '', exp = '0'] = Math.abs(f).toExponential().split('e');
  return { digits: mantissa.replace('.', ''), exp: Number(exp) };
}

function trimFraction(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** strconv 'f' with -1: shortest digits, never an exponent. */
function shortestF(f: number): string {
  const { digits, exp } = shortest(f);
  if (exp >= digits.length - 1) return digits + '0'.repeat(exp - digits.length + 1);
  if (exp >= 0) return `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  return `0.${'0'.repeat(-exp - 1)}${digits}`;
}

/** strconv 'g'/'G' of |f| (finite, not 0) with prec (-1 shortest). */
function formatG(f: number, prec: number, upper: boolean): string {
  if (prec < 0) {
    const { digits, exp } = shortest(f);
    // "if precision was the shortest possible, use precision 6 for this decision" (strconv ftoa.go).
    if (exp < -4 || exp >= 6) {
      const mantissa = digits.length > 1 ? `${digits[0] ?? ''}.${digits.slice(1)}` : digits;
      return goExponent(`${mantissa}e${exp}`, upper);
    }
    return shortestF(Math.abs(f));
  }
  const p = prec === 0 ? 1 : prec;
  const rounded = toExponentialExact(Math.abs(f), p - 1);
  const exp = Number(rounded.split('e')[1]);
  if (exp < -4 || exp >= p) return goExponent(trimExp(rounded), upper);
  return trimFraction(toFixedExact(Math.abs(f), Math.max(p - 1 - exp, 0)));
}

function trimExp(text: string): string {
  const [mantissa = '', exp = ''] = text.split('e');
  return `${trimFraction(mantissa)}e${exp}`;
}

function zeroText(verb: string, prec: number, upper: boolean): string {
  const fraction = prec > 0 ? `.${'0'.repeat(prec)}` : '';
  if (verb === 'e' || verb === 'E') return goExponent(`0${fraction}e0`, upper);
  return verb === 'f' || verb === 'F' ? `0${fraction}` : '0';
}

/** strconv.FormatFloat of |f| under a float verb ('g' for %v); the sign is fmt's to write. */
export function formatAbsFloat(f: number, verb: string, prec: number): string {
  const upper = verb === 'E' || verb === 'G';
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return 'Inf';
  if (f === 0) return zeroText(verb, prec, upper);
  const abs = Math.abs(f);
  if (verb === 'e' || verb === 'E') {
    return goExponent(prec < 0 ? abs.toExponential() : toExponentialExact(abs, prec), upper);
  }
  if (verb === 'f' || verb === 'F') return prec < 0 ? shortestF(abs) : toFixedExact(abs, prec);
  return formatG(abs, prec, upper);
}
