// Go's regexp syntax (RE2, regexp/syntax with the Perl flags regexp.Compile uses), checked as Go's parser checks it
// and translated to an equivalent JavaScript RegExp. Compositions are written for Go: a pattern JavaScript accepts
// but Go rejects (lookarounds, backreferences) must fail with Go's message, and Go's meaning wins where the two
// differ (`.` and `$` never treat \r as a line end, `\s` is ASCII, `(?U)` swaps greediness, `(?i)` spans a group).

/** Go's *syntax.Error text: `error parsing regexp: <code>: \`<expr>\``. */
export class GoRegexpError extends Error {
  constructor(code: string, expr: string) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
    this.name = 'GoRegexpError';
  }
}

interface Flags {
  foldCase: boolean;
  multiLine: boolean;
  dotNL: boolean;
  nonGreedy: boolean;
}

/** An open group: what it emits so far, the flags outside it, and the case modifiers opened inside it. */
interface Frame {
  out: string;
  outer: Flags;
  /** Emitted text of the last atom, for a repetition to apply to; undefined when nothing can be repeated. */
  last: string | undefined;
  /** `i` or `-i` for each `(?i)`-style modifier group opened in this group, closed at `|` and `)`. */
  mods: string[];
}

type Ranges = readonly (readonly [number, number])[];

const c = (ch: string): number => ch.codePointAt(0) ?? 0;

/** Go's ASCII classes (`[[:alpha:]]`) and Perl classes (`\d`, `\s`, `\w`, which are ASCII in Go). */
const ASCII_CLASSES: Readonly<Record<string, Ranges>> = {
  alnum: [
    [c('0'), c('9')],
    [c('A'), c('Z')],
    [c('a'), c('z')],
  ],
  alpha: [
    [c('A'), c('Z')],
    [c('a'), c('z')],
  ],
  ascii: [[0, 0x7f]],
  blank: [
    [9, 9],
    [32, 32],
  ],
  cntrl: [
    [0, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [[c('0'), c('9')]],
  graph: [[c('!'), c('~')]],
  lower: [[c('a'), c('z')]],
  print: [[c(' '), c('~')]],
  punct: [
    [c('!'), c('/')],
    [c(':'), c('@')],
    [c('['), c('`')],
    [c('{'), c('~')],
  ],
  space: [
    [9, 13],
    [32, 32],
  ],
  upper: [[c('A'), c('Z')]],
  word: [
    [c('0'), c('9')],
    [c('A'), c('Z')],
    [c('_'), c('_')],
    [c('a'), c('z')],
  ],
  xdigit: [
    [c('0'), c('9')],
    [c('A'), c('F')],
    [c('a'), c('f')],
  ],
};

const PERL_CLASSES: Readonly<Record<string, Ranges>> = {
  d: ASCII_CLASSES.digit ?? [],
  s: [
    [9, 10],
    [12, 13],
    [32, 32],
  ],
  w: ASCII_CLASSES.word ?? [],
};

function hex(code: number): string {
  return `\\u{${code.toString(16)}}`;
}

function negateRanges(ranges: Ranges): Ranges {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

/** Ranges as the inside of a JavaScript class. */
function rangesJs(ranges: Ranges, negate = false): string {
  return (negate ? negateRanges(ranges) : ranges)
    .map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`))
    .join('');
}

function isOctal(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '7';
}

function isAlnum(ch: string): boolean {
  return /^[0-9A-Za-z]$/.test(ch);
}

/** A `\p{...}` body for JavaScript's u mode, or undefined when the name is not one Go knows. */
function unicodeProperty(name: string): string | undefined {
  const candidates = name === 'Any' ? ['Any'] : [name, `Script=${name}`];
  for (const candidate of candidates) {
    try {
      new RegExp(`\\p{${candidate}}`, 'u');
      return candidate;
    } catch {
      // Not this form; try the next.
    }
  }
  return undefined;
}

/** Reads `\p{Name}`, `\pN`, `\P...` or `\p{^Name}` at s[i]; returns the JS escape and the index after it. */
function readUnicodeClass(s: string, i: number): { js: string; next: number } {
  let negate = s[i + 1] === 'P';
  let name: string;
  let next: number;
  if (s[i + 2] === '{') {
    const end = s.indexOf('}', i + 2);
    if (end < 0) throw new GoRegexpError('invalid character class range', s.slice(i));
    name = s.slice(i + 3, end);
    next = end + 1;
  } else {
    if (i + 2 >= s.length) throw new GoRegexpError('invalid character class range', s.slice(i));
    name = String.fromCodePoint(s.codePointAt(i + 2) ?? 0);
    next = i + 2 + name.length;
  }
  if (name.startsWith('^')) {
    negate = !negate;
    name = name.slice(1);
  }
  const property = unicodeProperty(name);
  if (property === undefined) throw new GoRegexpError('invalid character class range', s.slice(i, next));
  return { js: `\\${negate ? 'P' : 'p'}{${property}}`, next };
}

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };

/** `\\0`, or `\\1`-`\\7` followed by an octal digit: up to three octal digits (a lone `\\1` is a backreference). */
function readOctal(s: string, i: number): { code: number; next: number } {
  let j = i + 1;
  let code = 0;
  while (j < i + 4 && isOctal(s[j])) code = code * 8 + Number(s[j++]);
  return { code, next: j };
}

/** An ordinary escape (Go's parseEscape) at s[i] === '\\': the code point and the index after it. */
function readEscape(s: string, i: number): { code: number; next: number } {
  const c = s[i + 1];
  if (c === undefined) throw new GoRegexpError('trailing backslash at end of expression', '');
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined) return { code: simple, next: i + 2 };
  if (c === '0' || (c >= '1' && c <= '7' && isOctal(s[i + 2]))) return readOctal(s, i);
  if (c === 'x') return readHexEscape(s, i);
  const code = s.codePointAt(i + 1) ?? 0;
  if (code < 0x80 && !isAlnum(c)) return { code, next: i + 2 };
  throw new GoRegexpError('invalid escape sequence', s.slice(i, i + 1 + String.fromCodePoint(code).length));
}

function readHexEscape(s: string, i: number): { code: number; next: number } {
  if (s[i + 2] === '{') {
    const end = s.indexOf('}', i + 3);
    const digits = end < 0 ? '' : s.slice(i + 3, end);
    const code = parseInt(digits, 16);
    if (!/^[0-9A-Fa-f]+$/.test(digits) || code > 0x10ffff) {
      throw new GoRegexpError('invalid escape sequence', s.slice(i, end < 0 ? s.length : end + 1));
    }
    return { code, next: end + 1 };
  }
  const digits = s.slice(i + 2, i + 4);
  if (!/^[0-9A-Fa-f]{2}$/.test(digits)) throw new GoRegexpError('invalid escape sequence', s.slice(i, i + 4));
  return { code: parseInt(digits, 16), next: i + 4 };
}

/** One item of a bracket class at s[i]: a JS class fragment, the code point when it is a single one, the next i. */
function readClassItem(s: string, i: number): { js: string; code?: number; next: number } {
  if (s.startsWith('[:', i)) {
    const end = s.indexOf(':]', i + 2);
    if (end >= 0) {
      const name = s.slice(i + 2, end);
      const negated = name.startsWith('^');
      const ranges = ASCII_CLASSES[negated ? name.slice(1) : name];
      if (ranges === undefined) throw new GoRegexpError('invalid character class range', s.slice(i, end + 2));
      return { js: rangesJs(ranges, negated), next: end + 2 };
    }
  }
  if (s[i] !== '\\') {
    const code = s.codePointAt(i) ?? 0;
    return { js: hex(code), code, next: i + String.fromCodePoint(code).length };
  }
  const ch = s[i + 1] ?? '';
  if (ch === 'p' || ch === 'P') return readUnicodeClass(s, i);
  const perl = PERL_CLASSES[ch.toLowerCase()];
  if (perl !== undefined) return { js: rangesJs(perl, ch !== ch.toLowerCase()), next: i + 2 };
  const e = readEscape(s, i);
  return { js: hex(e.code), code: e.code, next: e.next };
}

/** A bracket class starting at s[start] === '['; returns the JS class and the index after `]`. */
function readClass(s: string, start: number): { js: string; next: number } {
  let i = start + 1;
  let out = '[';
  if (s[i] === '^') {
    out += '^';
    i++;
  }
  let first = true;
  while (i < s.length && (s[i] !== ']' || first)) {
    first = false;
    const lo = readClassItem(s, i);
    if (lo.code !== undefined && s[lo.next] === '-' && s[lo.next + 1] !== ']' && lo.next + 1 < s.length) {
      const hi = readClassItem(s, lo.next + 1);
      if (hi.code === undefined || hi.code < lo.code) {
        throw new GoRegexpError('invalid character class range', s.slice(i, hi.next));
      }
      out += `${lo.js}-${hi.js}`;
      i = hi.next;
      continue;
    }
    out += lo.js;
    i = lo.next;
  }
  if (i >= s.length) throw new GoRegexpError('missing closing ]', s.slice(start));
  return { js: `${out}]`, next: i + 1 };
}

/** Characters that u mode lets (and these need) a backslash escape. */
const JS_SPECIAL = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);

function literal(code: number): string {
  const ch = String.fromCodePoint(code);
  if (JS_SPECIAL.has(ch)) return `\\${ch}`;
  return code < 0x20 || code === 0x7f ? hex(code) : ch;
}

/** `{n}`, `{n,}` or `{n,m}` at s[i], as Go reads it; undefined when it is not one (the `{` is then literal). */
function readRepeatCount(s: string, i: number): { min: number; max: number; next: number } | undefined {
  const m = /^\{([0-9]+)(,([0-9]*))?\}/.exec(s.slice(i));
  if (m === null) return undefined;
  const number = (text: string): number | undefined =>
    text.length >= 2 && text.startsWith('0') ? undefined : text.length > 8 ? -1 : Number(text);
  const min = number(m[1] ?? '');
  const max = m[2] === undefined ? min : m[3] === '' ? -1 : number(m[3] ?? '');
  if (min === undefined || max === undefined) return undefined;
  return { min, max, next: i + m[0].length };
}

function caseChange(flags: Flags, outer: Flags): string {
  return flags.foldCase === outer.foldCase ? '' : flags.foldCase ? 'i' : '-i';
}

const ANCHORS: Readonly<Record<string, string>> = { A: '(?:^)', z: '(?:$)', b: '\\b', B: '\\B' };
const FLAG_NAMES: Readonly<Record<string, keyof Flags>> = { i: 'foldCase', m: 'multiLine', s: 'dotNL', U: 'nonGreedy' };

/** Translates a Go regexp to JavaScript source for the `u` flag, throwing Go's error for what Go rejects. */
class Translator {
  private readonly stack: Frame[] = [];
  private flags: Flags = { foldCase: false, multiLine: false, dotNL: false, nonGreedy: false };
  private i = 0;
  private lastRepeat: number | undefined;
  /** A leading `(?i)` becomes the RegExp's own i flag: no modifier group needed (they need a recent V8). */
  foldAll = false;

  constructor(private readonly s: string) {
    this.stack.push({ out: '', outer: this.flags, last: undefined, mods: [] });
  }

  private get top(): Frame {
    return this.stack[this.stack.length - 1] as Frame;
  }

  /** Appends an atom; a repeatable one waits in `last` for a repetition operator. */
  private atom(js: string, repeatable = true): void {
    const top = this.top;
    top.out += top.last ?? '';
    top.last = undefined;
    if (repeatable) top.last = js;
    else top.out += js;
  }

  translate(): string {
    while (this.i < this.s.length) {
      const start = this.i;
      const repeated = this.step();
      this.lastRepeat = repeated ? start : undefined;
    }
    if (this.stack.length !== 1) throw new GoRegexpError('missing closing )', this.s);
    this.atom('', false);
    return this.top.out + ')'.repeat(this.top.mods.length);
  }

  /** One token; true when it was a repetition operator. */
  private step(): boolean {
    const ch = this.s[this.i] ?? '';
    switch (ch) {
      case '(':
        this.openGroup();
        return false;
      case '|': {
        const mods = this.top.mods;
        this.atom(`${')'.repeat(mods.length)}|${mods.map((m) => `(?${m}:`).join('')}`, false);
        this.i++;
        return false;
      }
      case ')':
        this.closeGroup();
        return false;
      case '*':
      case '+':
      case '?':
        this.repeat(ch, this.i + 1);
        return true;
      case '{':
        return this.brace();
      default:
        this.simple(ch);
        return false;
    }
  }

  private simple(ch: string): void {
    if (ch === '[') {
      const cls = readClass(this.s, this.i);
      this.atom(cls.js);
      this.i = cls.next;
    } else if (ch === '\\') {
      this.backslash();
    } else if (ch === '.') {
      this.atom(this.flags.dotNL ? '[\\s\\S]' : '[^\\n]');
      this.i++;
    } else if (ch === '^' || ch === '$') {
      const multi = this.flags.multiLine;
      this.atom(ch === '^' ? (multi ? '(?<![^\\n])' : '(?:^)') : multi ? '(?![^\\n])' : '(?:$)');
      this.i++;
    } else {
      const code = this.s.codePointAt(this.i) ?? 0;
      this.atom(literal(code));
      this.i += String.fromCodePoint(code).length;
    }
  }

  private brace(): boolean {
    const count = readRepeatCount(this.s, this.i);
    if (count === undefined) {
      this.atom('\\{');
      this.i++;
      return false;
    }
    const { min, max, next } = count;
    if (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max)) {
      throw new GoRegexpError('invalid repeat count', this.s.slice(this.i, next));
    }
    this.repeat(max === min ? `{${min}}` : max < 0 ? `{${min},}` : `{${min},${max}}`, next);
    return true;
  }

  private backslash(): void {
    const s = this.s;
    const ch = s[this.i + 1] ?? '';
    const perl = PERL_CLASSES[ch.toLowerCase()];
    if (ANCHORS[ch] !== undefined) {
      this.atom(ANCHORS[ch]);
      this.i += 2;
    } else if (ch === 'C') {
      throw new GoRegexpError('invalid escape sequence', '\\C');
    } else if (ch === 'Q') {
      const end = s.indexOf('\\E', this.i + 2);
      for (const q of s.slice(this.i + 2, end < 0 ? s.length : end)) this.atom(literal(q.codePointAt(0) ?? 0));
      this.i = end < 0 ? s.length : end + 2;
    } else if (ch === 'p' || ch === 'P') {
      const u = readUnicodeClass(s, this.i);
      this.atom(u.js);
      this.i = u.next;
    } else if (perl !== undefined) {
      this.atom(`[${rangesJs(perl, ch !== ch.toLowerCase())}]`);
      this.i += 2;
    } else {
      const e = readEscape(s, this.i);
      this.atom(literal(e.code));
      this.i = e.next;
    }
  }

  /** A repetition operator `op` ending at `after`; a following `?` makes it non-greedy (greedy under U). */
  private repeat(op: string, after: number): void {
    let next = after;
    let lazy = this.flags.nonGreedy;
    if (this.s[next] === '?') {
      next++;
      lazy = !lazy;
    }
    if (this.lastRepeat !== undefined) {
      throw new GoRegexpError('invalid nested repetition operator', this.s.slice(this.lastRepeat, next));
    }
    const top = this.top;
    if (top.last === undefined) {
      throw new GoRegexpError('missing argument to repetition operator', this.s.slice(this.i, next));
    }
    top.out += `(?:${top.last})${op}${lazy ? '?' : ''}`;
    top.last = undefined;
    this.i = next;
  }

  private openGroup(): void {
    const s = this.s;
    if (s[this.i + 1] !== '?') {
      this.push('(', this.flags);
      this.i++;
    } else if ((s[this.i + 2] === 'P' && s[this.i + 3] === '<' && s.length - this.i > 4) || s[this.i + 2] === '<') {
      this.namedGroup();
    } else {
      this.perlFlags();
    }
  }

  private namedGroup(): void {
    const s = this.s;
    const begin = this.i + (s[this.i + 2] === 'P' ? 4 : 3);
    const end = s.indexOf('>', this.i);
    if (end < 0) throw new GoRegexpError('invalid named capture', s.slice(this.i));
    if (!/^[\p{L}\p{Nd}_]+$/u.test(s.slice(begin, end))) {
      throw new GoRegexpError('invalid named capture', s.slice(this.i, end + 1));
    }
    // Names only label groups; transforms use numbers, so the group captures unnamed (JS names are stricter).
    this.push('(', this.flags);
    this.i = end + 1;
  }

  private perlFlags(): void {
    const s = this.s;
    const flags = { ...this.flags };
    let negate = false;
    let sawFlag = false;
    let j = this.i + 2;
    for (; j < s.length; j++) {
      const ch = s[j] ?? '';
      const flag = FLAG_NAMES[ch];
      if (flag !== undefined) {
        flags[flag] = !negate;
        sawFlag = true;
      } else if (ch === '-' && !negate) {
        negate = true;
        sawFlag = false;
      } else if ((ch === ':' || ch === ')') && (!negate || sawFlag)) {
        this.i = j + 1;
        if (ch === ':') this.push('(?:', flags);
        else this.setFlags(flags);
        return;
      } else {
        break;
      }
    }
    throw new GoRegexpError('invalid or unsupported Perl syntax', s.slice(this.i, Math.min(j + 1, s.length)));
  }

  /** `(?flags)` changes the flags to the end of the group; a change of case opens a modifier group. */
  private setFlags(flags: Flags): void {
    const change = caseChange(flags, this.flags);
    const atStart = this.stack.length === 1 && this.top.out === '' && this.top.last === undefined;
    if (change === 'i' && atStart && !this.foldAll) {
      this.foldAll = true;
    } else if (change !== '') {
      this.atom(`(?${change}:`, false);
      this.top.mods.push(change);
    }
    this.flags = flags;
  }

  private push(open: string, flags: Flags): void {
    const change = caseChange(flags, this.flags);
    this.atom('', false);
    const opening = open === '(?:' && change !== '' ? `(?${change}:` : open;
    this.stack.push({ out: opening, outer: this.flags, last: undefined, mods: [] });
    this.flags = flags;
  }

  private closeGroup(): void {
    if (this.stack.length < 2) throw new GoRegexpError('unexpected )', this.s);
    this.atom('', false);
    const frame = this.stack.pop() as Frame;
    this.flags = frame.outer;
    this.i++;
    this.atom(`${frame.out}${')'.repeat(frame.mods.length)})`);
  }
}

/**
 * Compiles a Go (RE2) regexp as regexp.Compile does: Go's error text for what Go rejects, else a JavaScript RegExp
 * with Go's meaning.
 */
export function compileGoRegexp(source: string): RegExp {
  const translator = new Translator(source);
  const js = translator.translate();
  return new RegExp(js, translator.foldAll ? 'iu' : 'u');
}
