// Go's json.Unmarshal into map[string]interface{} or []interface{}, as the convert transform's json format calls it
// (function-patch-and-transform transforms.go conversions): the value JSON.parse gives, or the error Go's
// encoding/json returns, text for text: the scanner's SyntaxError ("invalid character 'x' looking for beginning of
// value", "unexpected end of JSON input") and the UnmarshalTypeError of a value of another kind.

const END = 'unexpected end of JSON input';

/** encoding/json's maxNestingDepth. */
const MAX_NESTING_DEPTH = 10_000;

class Eof extends Error {}

/** encoding/json quoteChar: the character as Go quotes it in scanner errors. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return `'"'`;
  const code = c.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f) {
    const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };
    return `'${named[c] ?? `\\x${code.toString(16).padStart(2, '0')}`}'`;
  }
  return `'${c}'`;
}

/** A recursive-descent copy of encoding/json's scanner states, for their error texts only. */
class Scanner {
  private i = 0;
  constructor(private readonly text: string) {}

  private peek(): string {
    if (this.i >= this.text.length) throw new Eof(END);
    return String.fromCodePoint(this.text.codePointAt(this.i) ?? 0);
  }

  private next(): string {
    const c = this.peek();
    this.i += c.length;
    return c;
  }

  private fail(c: string, context: string): never {
    throw new Error(`invalid character ${quoteChar(c)} ${context}`);
  }

  private skipSpace(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i] ?? '')) this.i++;
  }

  /** The whole input: one value, then only white space. Returns the top-level value's kind. */
  document(): string {
    const kind = this.value();
    this.skipSpace();
    if (this.i < this.text.length) this.fail(this.peek(), 'after top-level value');
    return kind;
  }

  /**
   * One value, with a stack of the open containers rather than recursion, so nesting costs no call stack: Go's
   * scanner takes 10000 levels (maxNestingDepth) and fails on the next with "exceeded max depth".
   */
  private value(): string {
    const open: ('object' | 'array')[] = [];
    for (;;) {
      this.skipSpace();
      const c = this.next();
      let kind: string | undefined;
      if (c === '{' || c === '[') {
        if (open.length >= MAX_NESTING_DEPTH) this.fail(c, 'exceeded max depth');
        kind = this.open(c, open);
      } else {
        kind = this.scalar(c);
      }
      if (kind !== undefined) kind = this.close(kind, open);
      if (kind !== undefined) return kind;
    }
  }

  /** After `{` or `[`: the empty container's kind, or undefined with the container open and ready for a value. */
  private open(c: string, open: ('object' | 'array')[]): string | undefined {
    this.skipSpace();
    if (this.peek() === (c === '{' ? '}' : ']')) {
      this.i++;
      return c === '{' ? 'object' : 'array';
    }
    open.push(c === '{' ? 'object' : 'array');
    if (c === '{') this.key();
    return undefined;
  }

  /** After a value: closes the containers it ends; the outermost value's kind, or undefined when one goes on. */
  private close(kind: string, open: ('object' | 'array')[]): string | undefined {
    let last = kind;
    for (let container = open.at(-1); container !== undefined; container = open.at(-1)) {
      this.skipSpace();
      const after = this.next();
      if (after === (container === 'object' ? '}' : ']')) {
        open.pop();
        last = container;
        continue;
      }
      if (after !== ',')
        this.fail(after, container === 'object' ? 'after object key:value pair' : 'after array element');
      if (container === 'object') {
        this.skipSpace();
        this.key();
      }
      return undefined;
    }
    return last;
  }

  /** A key and its colon. */
  private key(): void {
    const c = this.next();
    if (c !== '"') this.fail(c, 'looking for beginning of object key string');
    this.string();
    this.skipSpace();
    const colon = this.next();
    if (colon !== ':') this.fail(colon, 'after object key');
  }

  private scalar(c: string): string {
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number(c);
    const literal = { t: 'true', f: 'false', n: 'null' }[c];
    if (literal === undefined) this.fail(c, 'looking for beginning of value');
    for (const want of literal.slice(1)) {
      const got = this.next();
      if (got !== want) this.fail(got, `in literal ${literal} (expecting ${quoteChar(want)})`);
    }
    return literal === 'null' ? 'null' : 'bool';
  }

  private string(): string {
    for (;;) {
      // Plain characters in bulk: only a quote, a backslash or a control character needs a look.
      let code = this.text.charCodeAt(this.i);
      while (code >= 0x20 && code !== 0x22 && code !== 0x5c) code = this.text.charCodeAt(++this.i);
      const c = this.next();
      if (c === '"') return 'string';
      if (c === '\\') this.escape();
      else if ((c.codePointAt(0) ?? 0) < 0x20) this.fail(c, 'in string literal');
    }
  }

  private escape(): void {
    const c = this.next();
    if (c === 'u') {
      for (let k = 0; k < 4; k++) {
        const h = this.next();
        if (!/^[0-9a-fA-F]$/.test(h)) this.fail(h, 'in \\u hexadecimal character escape');
      }
    } else if (!'"\\/bfnrt'.includes(c)) this.fail(c, 'in string escape code');
  }

  private digits(): void {
    for (let code = this.text.charCodeAt(this.i); code >= 0x30 && code <= 0x39;) code = this.text.charCodeAt(++this.i);
  }

  private isDigit(c: string): boolean {
    return c >= '0' && c <= '9';
  }

  /** A number ends at the first character it cannot take; the state it returns to judges that character. */
  private number(first: string): string {
    let c = first;
    if (c === '-') {
      c = this.next();
      if (!this.isDigit(c)) this.fail(c, 'in numeric literal');
    }
    if (c !== '0') this.digits();
    if (this.text[this.i] === '.') {
      this.i++;
      const d = this.next();
      if (!this.isDigit(d)) this.fail(d, 'after decimal point in numeric literal');
      this.digits();
    }
    if (this.text[this.i] === 'e' || this.text[this.i] === 'E') this.exponent();
    return 'number';
  }

  private exponent(): void {
    this.i++;
    let d = this.next();
    if (d === '+' || d === '-') d = this.next();
    if (!this.isDigit(d)) this.fail(d, 'in exponent of numeric literal');
    this.digits();
  }
}

const GO_TYPES = { object: 'map[string]interface {}', array: '[]interface {}' } as const;

/**
 * json.Unmarshal of text into a map (object) or a slice (array). JSON null leaves the target nil: null here.
 *
 * @example goJsonUnmarshal('{"a":1}', 'object') // { a: 1 }; goJsonUnmarshal('[1', 'array') throws "unexpected end of JSON input"
 */
export function goJsonUnmarshal(text: string, into: 'object' | 'array'): unknown {
  const kind = new Scanner(text).document();
  if (kind === 'null') return null;
  if (kind !== into) throw new Error(`json: cannot unmarshal ${kind} into Go value of type ${GO_TYPES[into]}`);
  return JSON.parse(text) as unknown;
}
