// Kubernetes resource.Quantity parsing, to a float as P&T's convert transform with format quantity returns it.
/** The form Kubernetes' error names (splitREString). */
const QUANTITY_FORM = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
/**
 * The same strings and groups, written so that a digit can be read one way only: in QUANTITY_FORM digits after the
 * number could also be the suffix's, and a long run of digits that fails to match would take quadratic time.
 */
const QUANTITY = /^([+-]?[0-9.]+)((?:[eEinumkKMGTP]+[-+]?|[-+])[0-9]*)?$/;

const SUFFIX: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export function parseQuantity(text: string): number {
  const m = QUANTITY.exec(text);
  const wrong = new Error(`quantities must match the regular expression '${QUANTITY_FORM}'`);
  if (m === null) throw wrong;
  const [, number = '', suffix = ''] = m;
  const value = Number(number);
  if (Number.isNaN(value)) throw wrong;
  const multiplier = SUFFIX[suffix];
  if (multiplier !== undefined) return value * multiplier;
  const exp = /^[eE]([-+]?[0-9]+)$/.exec(suffix);
  if (exp === null) throw new Error("unable to parse quantity's suffix");
  return value * 10 ** Number(exp[1]);
}
