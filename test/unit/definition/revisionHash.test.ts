import { expect } from 'chai';
import { NestingDepthError } from '../../../src/base/index.js';
// Imported from the file itself until src/definition/index.ts exports it (owned by another change in flight).
import {
  compareGoKeys,
  compositionHash,
  goNumber,
  goYaml,
  type HashedComposition,
} from '../../../src/definition/revisionHash.js';

const typeRef = { apiVersion: 'example.org/v1', kind: 'XBucket' };

function composition(overrides: Partial<HashedComposition> = {}): HashedComposition {
  return {
    metadata: { labels: { team: 'platform', channel: 'dev' }, annotations: { owner: 'infra' } },
    spec: {
      compositeTypeRef: typeRef,
      mode: 'Pipeline',
      pipeline: [{ step: 'render', functionRef: { name: 'function-go-templating' }, input: { a: 1, b: [true] } }],
    },
    ...overrides,
  };
}

describe('compositionHash', () => {
  // Digests printed by Crossplane's Composition.Hash() algorithm (sigs.k8s.io/yaml v1.6.0, go-yaml v2.4) for the
  // same objects: a compatibility contract, so revisions keep their names when a cluster changes engines.
  const golden: Record<string, { reason: string; composition: HashedComposition; want: string }> = {
    'no labels or annotations': {
      reason: 'absent maps are written as Go writes a nil map: null',
      composition: {
        metadata: {},
        spec: {
          compositeTypeRef: typeRef,
          mode: 'Pipeline',
          pipeline: [
            {
              step: 'patch-and-transform',
              functionRef: { name: 'function-patch-and-transform' },
              input: {
                apiVersion: 'pt.fn.crossplane.io/v1beta1',
                kind: 'Resources',
                resources: [
                  {
                    name: 'bucket',
                    base: {
                      apiVersion: 's3.aws.upbound.io/v1beta1',
                      kind: 'Bucket',
                      spec: { forProvider: { region: 'us-east-2' } },
                    },
                    patches: [
                      {
                        type: 'FromCompositeFieldPath',
                        fromFieldPath: 'spec.region',
                        toFieldPath: 'spec.forProvider.region',
                      },
                    ],
                  },
                ],
              },
            },
          ],
        },
      },
      want: '538602ce2a62cedb3a7b4c3f26da96e95a646ac13602790c93631fb8b514365c',
    },
    'labels, a long annotation and a template': {
      reason: 'natural key order, YAML 1.1 quoting, folding past column 80 and literal blocks as go-yaml',
      composition: {
        metadata: {
          labels: { team: 'platform', channel: 'dev', tier10: 'a', tier9: 'b' },
          annotations: {
            description:
              'Buckets for every team, with versioning and encryption turned on, and a lifecycle rule that expires old objects after ninety days',
            on: 'yes',
          },
        },
        spec: {
          compositeTypeRef: typeRef,
          mode: 'Pipeline',
          pipeline: [
            {
              step: 'render',
              functionRef: { name: 'function-go-templating' },
              input: {
                apiVersion: 'gotemplating.fn.crossplane.io/v1beta1',
                kind: 'GoTemplate',
                source: 'Inline',
                inline: {
                  template:
                    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .observed.composite.resource.metadata.name }}\n',
                },
              },
            },
            { step: 'ready', functionRef: { name: 'function-auto-ready' } },
          ],
        },
      },
      want: '6ab135165527b2d8658c4159f52c5c36df9994b3024235ce6d0d2e4ff9240500',
    },
    'empty labels and scalars of every kind': {
      reason: 'an empty map is {}; numbers, booleans, null and strings that read as other types are quoted',
      composition: {
        metadata: { labels: {} },
        spec: {
          compositeTypeRef: typeRef,
          pipeline: [
            {
              step: 'a',
              functionRef: { name: 'f' },
              input: {
                apiVersion: 'x/v1',
                kind: 'In',
                count: 3,
                ratio: 0.25,
                enabled: true,
                nothing: null,
                version: '1.20',
                date: '2024-01-01',
                empty: '',
              },
            },
          ],
        },
      },
      want: 'a0ac4715d3f0b3972fa51953ac2646b8d4de7adf5f7d91fe16bea5c0817c9588',
    },
  };
  for (const [name, { reason, composition: c, want }] of Object.entries(golden)) {
    it(`matches Crossplane's hash: ${name}`, () => {
      expect(compositionHash(c), reason).to.equal(want);
    });
  }

  it('is a 64-character hex sha256 that does not depend on key order', () => {
    const a = composition();
    const b: HashedComposition = {
      spec: {
        pipeline: [{ input: { b: [true], a: 1 }, functionRef: { name: 'function-go-templating' }, step: 'render' }],
        mode: 'Pipeline',
        compositeTypeRef: { kind: 'XBucket', apiVersion: 'example.org/v1' },
      },
      metadata: { annotations: { owner: 'infra' }, labels: { channel: 'dev', team: 'platform' } },
    };
    expect(compositionHash(a)).to.match(/^[0-9a-f]{64}$/);
    expect(compositionHash(b)).to.equal(compositionHash(a));
  });

  const changes: Record<string, { reason: string; change: HashedComposition }> = {
    spec: {
      reason: 'a new spec is a new revision',
      change: composition({ spec: { compositeTypeRef: typeRef, mode: 'Pipeline', pipeline: [] } }),
    },
    labels: {
      reason: 'revisions carry the Composition labels, which revision selectors match',
      change: composition({ metadata: { labels: { team: 'apps' }, annotations: { owner: 'infra' } } }),
    },
    annotations: {
      reason: 'revisions carry the Composition annotations',
      change: composition({ metadata: { labels: { team: 'platform', channel: 'dev' }, annotations: {} } }),
    },
    'pipeline order': {
      reason: 'sequences keep their order',
      change: composition({
        spec: {
          compositeTypeRef: typeRef,
          mode: 'Pipeline',
          pipeline: [
            { step: 'b', functionRef: { name: 'f' } },
            { step: 'a', functionRef: { name: 'f' } },
          ],
        },
      }),
    },
  };
  for (const [name, { reason, change }] of Object.entries(changes)) {
    it(`changes with ${name}`, () => {
      expect(compositionHash(change), reason).to.not.equal(compositionHash(composition()));
    });
  }

  it('tells absent labels from empty ones, as Go tells a nil map from an empty one', () => {
    const absent = compositionHash({ metadata: {}, spec: {} });
    expect(compositionHash({ metadata: { labels: null }, spec: {} })).to.equal(absent);
    expect(compositionHash({ metadata: { labels: {} }, spec: {} })).to.not.equal(absent);
  });
});

describe('compositionHash bounds', () => {
  it('refuses a spec nested 10,000 levels deep by name, instead of overflowing the stack', () => {
    let input: Record<string, unknown> = {};
    for (let i = 0; i < 10_000; i++) input = { a: input };
    const deep = composition({ spec: { mode: 'Pipeline', pipeline: [{ step: 's', input }] } });
    expect(() => compositionHash(deep)).to.throw(NestingDepthError, /^the Composition spec nests deeper than 512/);
  });
});

describe('goYaml', () => {
  const cases: Record<string, { reason: string; value: unknown; want: string }> = {
    null: { reason: 'a nil map', value: null, want: 'null\n' },
    'empty map': { reason: 'flow style when empty', value: {}, want: '{}\n' },
    sequences: {
      reason: 'go-yaml does not indent a sequence under its key',
      value: { a: [1, [2, 3], { b: 'c', a: [] }] },
      want: 'a:\n- 1\n- - 2\n  - 3\n- a: []\n  b: c\n',
    },
    quoting: {
      reason: 'YAML 1.1 booleans, numbers, timestamps and base-60 numbers are double-quoted, indicators single',
      value: { n: 'no', v: 'on', x: '0x1F', d: '2024-02-29', t: '1:20', s: '- a', c: 'a: b', h: 'a #b', p: 'a-b' },
      want: 'c: \'a: b\'\nd: "2024-02-29"\nh: \'a #b\'\n"n": "no"\np: a-b\ns: \'- a\'\nt: "1:20"\nv: "on"\nx: "0x1F"\n',
    },
    escapes: {
      reason: 'control characters and characters beyond the BMP are escaped in double quotes',
      value: { a: 'tab\there', b: 'smile 😀', c: "it's" },
      want: 'a: "tab\\there"\nb: "smile \\U0001F600"\nc: it\'s\n',
    },
    'literal blocks': {
      reason: 'multi-line strings are literal blocks with go-yaml chomping and indentation indicators',
      value: { clip: 'a\nb\n', keep: 'a\n\n', lead: ' a\nb', strip: 'a\nb' },
      want: 'clip: |\n  a\n  b\nkeep: |+\n  a\n\nlead: |2-\n   a\n  b\nstrip: |-\n  a\n  b\n',
    },
    folding: {
      reason: 'a line is broken at the first space after column 80',
      value: { k: Array.from({ length: 20 }, (_, i) => `w${i}`).join(' ') + ' ' + 'x'.repeat(30) + ' end' },
      want: 'k: w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 w18 w19 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  end\n',
    },
  };
  for (const [name, { reason, value, want }] of Object.entries(cases)) {
    it(`writes ${name} as go-yaml does`, () => {
      expect(goYaml(value), reason).to.equal(want);
    });
  }
});

describe('compareGoKeys', () => {
  it('sorts as go-yaml: non-letters first, digit runs by value', () => {
    const keys = ['a', 'A', '10', '2', '1', 'a01', 'a1', 'a001', 'a.1', 'a-1', '_x', 'k10', 'k9'];
    expect([...keys].sort(compareGoKeys)).to.deep.equal([
      '_x',
      '1',
      '2',
      '10',
      'A',
      'a',
      'a-1',
      'a.1',
      'a1',
      'a01',
      'a001',
      'k9',
      'k10',
    ]);
  });
});

describe('goNumber', () => {
  const cases: Record<string, { reason: string; value: number; want: string }> = {
    integer: { reason: 'integers print in full', value: 9007199254740991, want: '9007199254740991' },
    fraction: { reason: 'shortest digits', value: 1.5, want: '1.5' },
    large: { reason: "'g' switches to an exponent at 1e6", value: 1234567.5, want: '1.2345675e+06' },
    small: { reason: "'g' switches to an exponent below 1e-4", value: 0.00001, want: '1e-05' },
    'beyond uint64': { reason: 'no longer an integer to go-yaml', value: 1e20, want: '1e+20' },
  };
  for (const [name, { reason, value, want }] of Object.entries(cases)) {
    it(`formats ${name}`, () => {
      expect(goNumber(value), reason).to.equal(want);
    });
  }
});
