// Go's json.Unmarshal into map[string]interface{} or []interface{}, as the convert transform's json format calls it
// (function-patch-and-transform transforms.go conversions): the value JSON.parse gives, or the error Go's
// encoding/json returns, text for text: the scanner's SyntaxError ("invalid character 'x' looking for beginning of
// value", "unexpected end of JSON input") and the UnmarshalTypeError of a value of another kind.

const END = 'unexpected end of JSON input';

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

  private value(): string {
    this.skipSpace();
    const c = this.next();
    if (c === '{') return this.object();
    if (c === '[') return this.array();
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

  private object(): string {
    this.skipSpace();
    if (this.peek() === '}') {
      this.i++;
      return 'object';
    }
    for (;;) {
      const c = this.next();
      if (c !== '"') this.fail(c, 'looking for beginning of object key string');
      this.string();
      this.skipSpace();
      const colon = this.next();
      if (colon !== ':') this.fail(colon, 'after object key');
      this.value();
      this.skipSpace();
      const after = this.next();
      if (after === '}') return 'object';
      if (after !== ',') this.fail(after, 'after object key:value pair');
      this.skipSpace();
    }
  }

  private array(): string {
    this.skipSpace();
    if (this.peek() === ']') {
      this.i++;
      return 'array';
    }
    for (;;) {
      this.value();
      this.skipSpace();
      const after = this.next();
      if (after === ']') return 'array';
      if (after !== ',') this.fail(after, 'after array element');
    }
  }

  private string(): string {
    for (;;) {
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
    while (this.i < this.text.length && /[0-9]/.test(this.text[this.i] ?? '')) this.i++;
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
