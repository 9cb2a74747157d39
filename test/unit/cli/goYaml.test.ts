// goYaml against go.yaml.in/yaml/v2 v2.4.4 under sigs.k8s.io/yaml v1.6.0: each want is the text JSONToYAML printed
// for the value, run once with Go; the cases are the emitter's decisions one at a time.
import { expect } from 'chai';
import type { JsonValue } from '../../../src/functions/index.js';
import { goYaml } from '../../../src/cli/goYaml.js';

const cases: Record<string, { reason: string; value: JsonValue; want: string }> = {
  keys: {
    reason: 'keys in go-yaml v2 order: runs of digits by value, non-letters before letters',
    value: { keys: { b: 1, a10: 1, a2: 1, a_b: 1, aB: 1, 'a-b': 1, A: 1, item01: 1, item1: 1, '10': 1, '9': 1 } },
    want: [
      'keys:',
      '  "9": 1',
      '  "10": 1',
      '  A: 1',
      '  a-b: 1',
      '  a_b: 1',
      '  a2: 1',
      '  a10: 1',
      '  aB: 1',
      '  b: 1',
      '  item1: 1',
      '  item01: 1',
      '',
    ].join('\n'),
  },
  words: {
    reason:
      'a string that would read back as another type is double-quoted; indicators force single quotes; tabs and astral characters force escapes',
    value: {
      words: [
        'yes',
        'No',
        'on',
        'true',
        'null',
        '~',
        '',
        '1',
        '0x1F',
        '0o17',
        '1e5',
        '.5',
        '+1',
        '-1.5',
        '1_000',
        '1:20',
        '2024-01-01',
        '2024-01-01T00:00:00Z',
        '2024-02-30',
        'nginx:1.27',
        '-',
        '- a',
        'a: b',
        '#x',
        'a #b',
        "'q'",
        '"d"',
        'x ',
        '  lead',
        'tab\there',
        'ümlaut',
        '😀',
      ],
    },
    want: [
      'words:',
      '- "yes"',
      '- "No"',
      '- "on"',
      '- "true"',
      '- "null"',
      '- "~"',
      '- ""',
      '- "1"',
      '- "0x1F"',
      '- "0o17"',
      '- "1e5"',
      '- ".5"',
      '- "+1"',
      '- "-1.5"',
      '- "1_000"',
      '- "1:20"',
      '- "2024-01-01"',
      '- "2024-01-01T00:00:00Z"',
      '- 2024-02-30',
      '- nginx:1.27',
      "- '-'",
      "- '- a'",
      "- 'a: b'",
      "- '#x'",
      "- 'a #b'",
      "- '''q'''",
      '- \'"d"\'',
      "- 'x '",
      "- '  lead'",
      '- "tab\\there"',
      '- ümlaut',
      '- "\\U0001F600"',
      '',
    ].join('\n'),
  },
  numbers: {
    reason: 'numbers as JSONToYAML reads back the JSON text of Go: integers to uint64, then strconv.FormatFloat g',
    value: { numbers: [0, -7, 1.5, 1234567.5, 100000.5, 1e21, 1e20, 0.00001, 1.2345678901234567e19, -1e19] },
    want: [
      'numbers:',
      '- 0',
      '- -7',
      '- 1.5',
      '- 1.2345675e+06',
      '- 100000.5',
      '- 1e+21',
      '- 1e+20',
      '- 1e-05',
      '- 12345678901234567000',
      '- -1e+19',
      '',
    ].join('\n'),
  },
  text: {
    reason:
      'text with line feeds as a literal block with its chomping and indentation indicators, unless it cannot be one',
    value: {
      text: {
        oneLine: 'a\n',
        noFinalBreak: 'a\nb',
        keep: 'a\n\n',
        leadingSpace: ' a\nb',
        trailingSpaceOnALine: 'a \nb',
        crlf: 'a\r\nb',
      },
    },
    want: [
      'text:',
      '  crlf: "a\\r\\nb"',
      '  keep: |+',
      '    a',
      '',
      '  leadingSpace: |2-',
      '     a',
      '    b',
      '  noFinalBreak: |-',
      '    a',
      '    b',
      '  oneLine: |',
      '    a',
      '  trailingSpaceOnALine: "a \\nb"',
      '',
    ].join('\n'),
  },
  long: {
    reason: 'plain, single- and double-quoted text folds at a space after column 80',
    value: {
      long: {
        plain: 'word word word word word word word word word word word word word word word word word word',
        quoted: 'yes: word word word word word word word word word word word word word word word word word',
        double: 'tab\tword word word word word word word word word word word word word word word word word word word',
      },
    },
    want: [
      'long:',
      '  double: "tab\\tword word word word word word word word word word word word word word',
      '    word word word word word"',
      '  plain: word word word word word word word word word word word word word word word',
      '    word word word',
      "  quoted: 'yes: word word word word word word word word word word word word word word",
      "    word word word'",
      '',
    ].join('\n'),
  },
  empty: {
    reason: 'empty collections in flow style; sequences not indented under their key; null',
    value: { empty: { map: {}, list: [], null: null, nested: [[1, []], { a: [{ b: {} }] }] } },
    want: [
      'empty:',
      '  list: []',
      '  map: {}',
      '  nested:',
      '  - - 1',
      '    - []',
      '  - a:',
      '    - b: {}',
      '  "null": null',
      '',
    ].join('\n'),
  },
  longKey: {
    reason: 'a key over 128 bytes or with line feeds is an explicit ? entry',
    value: {
      'long key': {
        kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: 1,
        'multi\nline': 2,
      },
    },
    want: [
      'long key:',
      '  ? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk',
      '  : 1',
      '  ? |-',
      '    multi',
      '    line',
      '  : 2',
      '',
    ].join('\n'),
  },
};

describe('cli/goYaml', () => {
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: ${c.reason}`, () => {
      expect(goYaml(c.value), c.reason).to.equal(c.want);
    });
  }

  it('drops absent (undefined) fields as json.Marshal never sees them', () => {
    const value = { a: 1, b: undefined } as unknown as JsonValue;
    expect(goYaml(value)).to.equal('a: 1\n');
  });

  it('reads U+0085 back as Go does: a raw NEL in the JSON text folds like a line break', () => {
    // Go's encoding/json leaves NEL unescaped; the YAML parser folds it and the spaces around it.
    expect(goYaml({ a: 'x \u0085 y', b: 'x\u0085\u0085y' })).to.equal('a: x y\nb: |-\n  x\n  y\n');
  });
});
