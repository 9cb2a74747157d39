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

/** Go's strconv.FormatFloat(f, 'g', -1, 64), which fmt's %v uses for float64. */
export function formatFloatG(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa = '', expText = '0'] = f.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 21) {
    const abs = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
  }
  return formatFloatF(f);
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

/** fmt's %v. */
export function formatV(v: GoValue): string {
  if (v === null || v === undefined) return '<nil>';
  if (v instanceof GoInt) return v.value.toString();
  if (Array.isArray(v)) return `[${v.map(formatV).join(' ')}]`;
  switch (typeof v) {
    case 'number':
      return formatFloatG(v);
    case 'bigint':
    case 'boolean':
    case 'string':
      return String(v);
    default: {
      const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `map[${entries.map(([k, x]) => `${k}:${formatV(x)}`).join(' ')}]`;
    }
  }
}

function bad(verb: string, v: GoValue): string {
  return `%!${verb}(${goTypeName(v)}=${formatV(v)})`;
}

function isInt(v: GoValue): v is bigint | GoInt {
  return typeof v === 'bigint' || v instanceof GoInt;
}

function isComposite(v: GoValue): boolean {
  return Array.isArray(v) || (typeof v === 'object' && v !== null && !(v instanceof GoInt));
}

type Verb = (v: GoValue, precision: number | undefined) => string | undefined;

/** Each verb's formatting; undefined means the operand has the wrong type, which Go prints as %!x(type=value). */
const VERBS: Readonly<Record<string, Verb>> = {
  v: (v) => formatV(v),
  s: (v) => (typeof v === 'string' ? v : isComposite(v) ? formatV(v) : undefined),
  d: (v) => (isInt(v) ? formatV(v) : undefined),
  t: (v) => (typeof v === 'boolean' ? String(v) : undefined),
  q: (v) => (typeof v === 'string' ? JSON.stringify(v) : undefined),
  f: (v, precision) => (typeof v === 'number' ? v.toFixed(precision ?? 6) : undefined),
};

function formatOne(verb: string, precision: number | undefined, v: GoValue): string {
  return VERBS[verb]?.(v, precision) ?? bad(verb, v);
}

/**
 * The subset of Go's fmt.Sprintf that compositions use: %v %s %d %t %q %f %.Nf and %%, explicit argument indexes
 * (`%[1]s`, after which implicit arguments continue from the next one), with Go's error forms. As Go, an
 * explicit index turns off the EXTRA report.
 */
export function sprintf(format: string, args: readonly GoValue[]): string {
  let out = '';
  let next = 0;
  let reordered = false;
  const re = /%(?:\[(\d*)\])?(?:\.(\d+))?([a-zA-Z%])/g;
  let last = 0;
  for (let m = re.exec(format); m !== null; m = re.exec(format)) {
    out += format.slice(last, m.index);
    last = re.lastIndex;
    const verb = m[3] ?? '';
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (m[1] !== undefined) {
      reordered = true;
      const index = Number(m[1]);
      if (m[1] === '' || index < 1 || index > args.length) {
        out += `%!${verb}(BADINDEX)`;
        continue;
      }
      next = index - 1;
    }
    if (next >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += formatOne(verb, m[2] === undefined ? undefined : Number(m[2]), args[next++]);
  }
  out += format.slice(last);
  if (!reordered && next < args.length)
    out += `%!(EXTRA ${args
      .slice(next)
      .map((a) => `${goTypeName(a)}=${formatV(a)}`)
      .join(', ')})`;
  return out;
}
