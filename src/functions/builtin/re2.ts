// Go's regexp (RE2 syntax with the Perl flags regexp.Compile uses) on re2js, a port of Go's regexp/syntax parser and
// its automata. Matching never backtracks: its time grows with the input's length times the program's size, never
// exponentially, so a pattern such as `^(a+)+$` cannot stall the process whatever the input. re2js reports Go's
// error codes; this module writes them as Go does. Patterns and inputs are user data, so on top of Go's own limits
// (repeat counts up to 1000, nesting depth, expression size) three bounds of ours keep each compile and each match
// short: a longest pattern, a largest program, and a budget of program size times input length per match.
import { RE2JS, RE2JSSyntaxException } from 're2js';
import { LimitError } from './limits.js';

/** Go's *syntax.Error text: `error parsing regexp: <code>: \`<expr>\``. */
export class GoRegexpError extends Error {
  constructor(
    readonly code: string,
    readonly expr: string,
  ) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
    this.name = 'GoRegexpError';
  }
}

/**
 * Longest pattern compiled: re2js spends up to ~0.1 ms per character on case-folded Unicode classes under load.
 * Patterns in compositions are a line long.
 */
export const MAX_PATTERN_LENGTH = 1024;

/** re2js's MAX_SIZE, on which it runs Go's maxSize check while parsing. */
const RE2JS_MAX_SIZE = 1_398_101;
/** Repeating a pattern this often in a probe makes re2js's own size check stop at MAX_PROGRAM_SIZE. */
const PROBE_REPEAT = 280;

/**
 * Largest program compiled, in Go's size units (instructions): 4993. Go allows ~3.3 million; re2js compiles a few
 * to tens of µs per instruction, so `a{1000}` repeated a thousand times, which Go accepts, would hold the thread
 * for seconds; this many stay near a tenth of a second on a loaded machine.
 */
export const MAX_PROGRAM_SIZE = Math.floor(RE2JS_MAX_SIZE / PROBE_REPEAT);

/** Most steps one match may take: program size times (input length + 1), ~0.1 s at re2js's slowest per step. */
export const MAX_MATCH_COST = 2_000_000;

const ERR_LARGE = 'expression too large';
const ERR_INVALID_ESCAPE = 'invalid escape sequence';
const ERR_TRAILING_BACKSLASH = 'trailing backslash at end of expression';

/** re2js's syntax error as Go writes it: Go names the whole pattern for the limits, and nothing for a `\` at the end. */
function goError(err: RE2JSSyntaxException, source: string): GoRegexpError {
  return new GoRegexpError(err.error, err.input ?? (err.error === ERR_TRAILING_BACKSLASH ? '' : source));
}

/** re2js's parse error for a probe, which is built never to parse (and so never to compile). */
function probe(text: string): RE2JSSyntaxException | undefined {
  try {
    RE2JS.compile(text);
  } catch (err) {
    if (err instanceof RE2JSSyntaxException) return err;
    throw err;
  }
  return undefined;
}

/**
 * Rejects a pattern whose program would exceed MAX_PROGRAM_SIZE before anything compiles it: the probe repeats the
 * pattern PROBE_REPEAT times, so Go's own size check, which runs as the repeat is parsed, fails exactly then. The
 * probe ends in a trailing backslash, an error wherever the parse stands, except inside a `\Q` the pattern leaves
 * open; so the first probe closes one with `\E`, and, when `\E` turns out to be a stray escape, the second goes
 * without it.
 */
function checkProgramSize(source: string): void {
  let err = probe(`(?:${source}\\E){${PROBE_REPEAT}}\\`);
  if (err?.error === ERR_INVALID_ESCAPE && err.input === '\\E') err = probe(`(?:${source}){${PROBE_REPEAT}}\\`);
  if (err?.error === ERR_LARGE) {
    throw new LimitError(`regexp compiles to more than ${MAX_PROGRAM_SIZE} instructions`);
  }
}

/** A compiled Go regexp; every match is bounded by MAX_MATCH_COST. */
export class GoRegexp {
  private readonly size: number;

  constructor(private readonly re: RE2JS) {
    this.size = re.programSize();
  }

  /** Go's MatchString: whether the pattern matches anywhere in input. */
  test(input: string): boolean {
    this.checkCost(input);
    return this.re.test(input);
  }

  /** Go's FindStringSubmatch: the leftmost match and its groups ('' for a group that did not take part), or null. */
  submatch(input: string): string[] | null {
    this.checkCost(input);
    // Most inputs do not match; the DFA says so several times faster than the submatch engines.
    if (!this.re.test(input)) return null;
    const m = this.re.exec(input);
    return m === null ? null : m.map((group: unknown) => (typeof group === 'string' ? group : ''));
  }

  private checkCost(input: string): void {
    if (this.size * (input.length + 1) > MAX_MATCH_COST) {
      throw new LimitError(
        `cannot match a regexp of ${this.size} instructions against ${input.length} characters: more than ` +
          `${MAX_MATCH_COST} steps`,
      );
    }
  }
}

function compileUncached(source: string): GoRegexp {
  if (source.length > MAX_PATTERN_LENGTH) {
    throw new LimitError(`regexp of ${source.length} characters is longer than ${MAX_PATTERN_LENGTH}`);
  }
  checkProgramSize(source);
  try {
    return new GoRegexp(RE2JS.compile(source));
  } catch (err) {
    if (err instanceof RE2JSSyntaxException) throw goError(err, source);
    throw err;
  }
}

/**
 * Compiled patterns and compile errors, reused: a composition's patterns run on every reconcile. Bounded, because
 * patterns are user input; clearing when full is enough for entries that are cheap to rebuild.
 */
const compiled = new Map<string, GoRegexp | Error>();
const MAX_COMPILED = 1000;

/**
 * Compiles a Go (RE2) regexp as regexp.Compile does.
 *
 * @throws GoRegexpError with Go's text for a pattern Go rejects; LimitError past compositor's bounds.
 * @example compileGoRegexp('^arn:aws:iam::([0-9]+):').submatch('arn:aws:iam::123:role/x') // ['arn:aws:iam::123:', '123']
 */
export function compileGoRegexp(source: string): GoRegexp {
  let entry = compiled.get(source);
  if (entry === undefined) {
    try {
      entry = compileUncached(source);
    } catch (err) {
      if (!(err instanceof GoRegexpError || err instanceof LimitError)) throw err;
      entry = err;
    }
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(source, entry);
  }
  if (entry instanceof Error) throw entry;
  return entry;
}
