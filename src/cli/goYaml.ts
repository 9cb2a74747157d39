// A JSON value as YAML text, byte for byte as Go's sigs.k8s.io/yaml JSONToYAML prints it: what crank's render
// writes for every document (k8s.io/apimachinery's YAML serializer: json.Marshal, then JSONToYAML). That is
// go.yaml.in/yaml/v2 v2.4 and its port of libyaml's emitter: keys sorted (goKeyOrder), two-space indentation,
// sequences not indented under their key, `{}` and `[]` for empty collections, lines folded after column 80 at a
// space, strings quoted only where a plain scalar would read back as another type or cannot hold the text. This is
// the subset of emitterc.go that block mappings, block sequences and scalars use, with the same state.
import type { JsonValue } from '../functions/index.js';
import {
  afterJsonRoundTrip,
  analyzeScalar,
  goKeyOrder,
  isBreak,
  isPrintable,
  numberText,
  stringScalar,
  type Scalar,
  type ScalarStyle,
} from './goYamlScalars.js';

const BEST_INDENT = 2;
const BEST_WIDTH = 80;
/** yaml_emitter_check_simple_key: a longer key is written as an explicit `? key` entry. */
const MAX_SIMPLE_KEY_BYTES = 128;

const SHORT_ESCAPES = new Map<number, string>([
  [0x00, '0'],
  [0x07, 'a'],
  [0x08, 'b'],
  [0x09, 't'],
  [0x0a, 'n'],
  [0x0b, 'v'],
  [0x0c, 'f'],
  [0x0d, 'r'],
  [0x1b, 'e'],
  [0x22, '"'],
  [0x5c, '\\'],
  [0x85, 'N'],
  [0xa0, '_'],
  [0x2028, 'L'],
  [0x2029, 'P'],
]);

function escapeOf(cp: number): string {
  const short = SHORT_ESCAPES.get(cp);
  if (short !== undefined) return short;
  const [letter, digits] = cp <= 0xff ? ['x', 2] : cp <= 0xffff ? ['u', 4] : ['U', 8];
  return letter + cp.toString(16).toUpperCase().padStart(digits, '0');
}

function scalarOf(value: null | boolean | number | string): Scalar {
  if (typeof value === 'string') return stringScalar(value);
  if (typeof value === 'number') return { value: numberText(value), style: 'plain' };
  return { value: value === null ? 'null' : String(value), style: 'plain' };
}

/** yaml_emitter_select_scalar_style in a block context. */
function selectStyle(scalar: Scalar, simpleKey: boolean): ScalarStyle {
  const analysis = analyzeScalar(scalar.value);
  let style = scalar.style;
  if (simpleKey && analysis.multiline) style = 'double';
  if (style === 'plain' && (!analysis.blockPlainAllowed || (scalar.value === '' && simpleKey))) style = 'single';
  if (style === 'single' && !analysis.singleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!analysis.blockAllowed || simpleKey)) style = 'double';
  return style;
}

class Emitter {
  private readonly out: string[] = [];
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;

  text(): string {
    return this.out.join('');
  }

  document(value: JsonValue): void {
    this.node(value, false);
    // yaml_emitter_emit_document_end: an implicit end still finishes the last line.
    this.writeIndent();
  }

  private put(ch: string): void {
    this.out.push(ch);
    this.column++;
  }

  private putBreak(): void {
    this.out.push('\n');
    this.column = 0;
  }

  /** write_break: a line feed starts a new line; other break characters are copied and end the line too. */
  private writeBreak(ch: string): void {
    if (ch === '\n') {
      this.putBreak();
      return;
    }
    this.out.push(ch);
    this.column = 0;
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  private writeIndicator(
    indicator: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const ch of indicator) this.put(ch);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  /** Returns the indent to restore when the node ends. */
  private increaseIndent(flow: boolean, indentless: boolean): number {
    const previous = this.indent;
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
    return previous;
  }

  private node(value: JsonValue, mappingContext: boolean): void {
    if (Array.isArray(value)) {
      if (value.length === 0) this.emptyCollection('[', ']');
      else this.sequence(value, mappingContext);
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      if (keys.length === 0) this.emptyCollection('{', '}');
      else this.mapping(value, keys);
    } else {
      this.scalar(scalarOf(value), false);
    }
  }

  private emptyCollection(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.writeIndicator(close, false, false, false);
  }

  private sequence(items: readonly JsonValue[], mappingContext: boolean): void {
    const previous = this.increaseIndent(false, mappingContext && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, false);
    }
    this.indent = previous;
  }

  private mapping(object: Readonly<Record<string, JsonValue>>, keys: readonly string[]): void {
    const previous = this.increaseIndent(false, false);
    // go-yaml sorts the keys as the YAML parser read them back from the JSON text.
    const read = new Map(keys.map((key) => [afterJsonRoundTrip(key), key]));
    for (const key of goKeyOrder([...read.keys()])) {
      this.writeIndent();
      const scalar = stringScalar(key);
      const simple =
        !analyzeScalar(scalar.value).multiline && Buffer.byteLength(scalar.value, 'utf8') <= MAX_SIMPLE_KEY_BYTES;
      if (simple) {
        this.scalar(scalar, true);
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.scalar(scalar, false);
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.node(object[read.get(key) ?? key] ?? null, true);
    }
    this.indent = previous;
  }

  private scalar(scalar: Scalar, simpleKey: boolean): void {
    const style = selectStyle(scalar, simpleKey);
    const previous = this.increaseIndent(true, false);
    const chars = Array.from(scalar.value);
    const allowBreaks = !simpleKey;
    if (style === 'plain') this.plain(chars, allowBreaks);
    else if (style === 'single') this.singleQuoted(chars, allowBreaks);
    else if (style === 'double') this.doubleQuoted(chars, allowBreaks);
    else this.literal(chars);
    this.indent = previous;
  }

  /** The line breaks of a plain or single-quoted scalar: a line feed doubles, as YAML folds a single one. */
  private lineBreak(ch: string, breaks: boolean): void {
    if (!breaks && ch === '\n') this.putBreak();
    this.writeBreak(ch);
    this.indention = true;
  }

  /** A space after column 80 becomes a line break (not when the next is a space too, nor at either end). */
  private foldsAt(chars: readonly string[], i: number, allowBreaks: boolean, spaces: boolean): boolean {
    return allowBreaks && !spaces && this.column > BEST_WIDTH && chars[i + 1] !== ' ';
  }

  private plain(chars: readonly string[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    let spaces = false;
    let breaks = false;
    for (const [i, ch] of chars.entries()) {
      if (ch === ' ') {
        if (this.foldsAt(chars, i, allowBreaks, spaces)) this.writeIndent();
        else this.put(ch);
        spaces = true;
      } else if (isBreak(ch)) {
        this.lineBreak(ch, breaks);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(ch);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(chars: readonly string[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (const [i, ch] of chars.entries()) {
      if (ch === ' ') {
        const inside = i > 0 && i < chars.length - 1;
        if (inside && this.foldsAt(chars, i, allowBreaks, spaces)) this.writeIndent();
        else this.put(ch);
        spaces = true;
      } else if (isBreak(ch)) {
        this.lineBreak(ch, breaks);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (ch === "'") this.put("'");
        this.put(ch);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private doubleQuoted(chars: readonly string[], allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false);
    // is_bom reads the start of the value, not position i: a leading BOM escapes every character.
    const bom = chars[0] === '\ufeff';
    let spaces = false;
    for (const [i, ch] of chars.entries()) {
      const cp = ch.codePointAt(0) ?? 0;
      if (bom || !isPrintable(cp) || isBreak(ch) || ch === '"' || ch === '\\') {
        for (const c of `\\${escapeOf(cp)}`) this.put(c);
        spaces = false;
      } else if (ch === ' ') {
        this.doubleQuotedSpace(chars, i, allowBreaks && !spaces);
        spaces = true;
      } else {
        this.put(ch);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  /** A space inside a double-quoted scalar after column 80 becomes a line break. */
  private doubleQuotedSpace(chars: readonly string[], i: number, mayFold: boolean): void {
    if (!(mayFold && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1)) {
      this.put(' ');
      return;
    }
    this.writeIndent();
    // A space that starts the next line would be folded away; the escape keeps it.
    if (chars[i + 1] === ' ') this.put('\\');
  }

  private literal(chars: readonly string[]): void {
    this.writeIndicator('|', true, false, false);
    if (chars[0] === ' ' || isBreak(chars[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    const chomp = chompIndicator(chars);
    if (chomp !== '') this.writeIndicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const ch of chars) {
      if (isBreak(ch)) {
        this.writeBreak(ch);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(ch);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

/** yaml_emitter_write_block_scalar_hints: strip without a final break, keep with more than one, else clip. */
function chompIndicator(chars: readonly string[]): string {
  const last = chars.length - 1;
  if (!isBreak(chars[last])) return '-';
  if (last === 0 || isBreak(chars[last - 1])) return '+';
  return '';
}

/**
 * The YAML text of a JSON value as Go's sigs.k8s.io/yaml prints it (JSONToYAML), ending in a line feed.
 *
 * @example goYaml({ b: 'yes', a: [{ c: '2024-01-01T00:00:00Z' }] }) === 'a:\n- c: "2024-01-01T00:00:00Z"\nb: "yes"\n'
 */
export function goYaml(value: JsonValue): string {
  const emitter = new Emitter();
  // Through JSON first, as the serializer marshals the object before JSONToYAML: absent (undefined) fields go.
  emitter.document(JSON.parse(JSON.stringify(value)) as JsonValue);
  return emitter.text();
}
