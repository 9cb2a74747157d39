import { Duration } from '@icholy/duration';

// Go's time.ParseDuration grammar: an optional sign, then one or more decimal numbers each with a unit, or a bare
// "0". The library also accepts days, weeks and spaces, which Crossplane rejects, so the grammar is checked first:
// a value that compositor accepts must mean the same in Crossplane.
const GO_DURATION = /^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;

/** Go's longest time.Duration (2^63-1 ns, about 292 years) in milliseconds: ParseDuration refuses anything longer. */
export const MAX_DURATION_MS = 9_223_372_036_854.775;

/** The accepted form, quoted in every error about a duration. */
export const DURATION_FORM = 'a Go duration such as 500ms, 30s, 1m30s or 1h';

export class InvalidDurationError extends Error {
  constructor(readonly value: string) {
    super(`invalid duration "${value}": expected ${DURATION_FORM}`);
    this.name = 'InvalidDurationError';
  }
}

/**
 * Parses a Go-syntax duration into milliseconds (sub-millisecond parts truncate).
 *
 * @example parseDuration('1m30s') === 90_000
 * @throws InvalidDurationError when the text is not a Go duration, or one longer than Go's (about 292 years).
 */
export function parseDuration(text: string): number {
  if (!GO_DURATION.test(text)) throw new InvalidDurationError(text);
  let ms: number;
  try {
    ms = new Duration(text).milliseconds();
  } catch {
    // The library refuses a number past a double (Infinity); Go refuses it as an overflow.
    throw new InvalidDurationError(text);
  }
  // As Go's ParseDuration, a value past its int64 nanoseconds is invalid, not a very long wait.
  if (!(Math.abs(ms) <= MAX_DURATION_MS)) throw new InvalidDurationError(text);
  return ms;
}

/** Formats milliseconds the way Go prints a time.Duration (`1m30s`, `500ms`, `0s`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${abs}ms`;
  // Go prints fractional seconds ("1.5s", "1m30.5s") rather than "1s500ms".
  const hours = Math.floor(abs / 3_600_000);
  const minutes = Math.floor((abs % 3_600_000) / 60_000);
  const seconds = (abs % 60_000) / 1000;
  let out = '';
  if (hours > 0) out += `${hours}h`;
  if (hours > 0 || minutes > 0) out += `${minutes}m`;
  out += `${seconds}s`;
  return sign + out;
}
