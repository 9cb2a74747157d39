// Render's input files read as crank reads them: sigs.k8s.io/yaml YAMLToJSON over go-yaml v2. Each want is what
// YAMLToJSON returned for the text, run once with Go.
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDocuments, RenderInputError } from '../../../src/cli/renderInputs.js';

function tempFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'compositor-render-inputs-')), 'in.yaml');
  writeFileSync(path, text);
  return path;
}

describe('cli/renderInputs reads YAML as go-yaml v2 does', () => {
  const cases: Record<string, { reason: string; text: string; want: Record<string, unknown> }> = {
    booleans: {
      reason: 'YAML 1.1 words are booleans, quoted ones stay text, and so does a key',
      text: 'a: yes\nb: on\nc: y\nd: "yes"\nn: No\n',
      want: { a: true, b: true, c: true, d: 'yes', false: false },
    },
    integers: {
      reason: 'Go integer literals: a leading 0 is octal; 0x, 0o, 0b; underscores are dropped',
      text: 'd: 0777\ne: 0x1F\nf: 0o17\ng: 0b101\nh: 1_000\np: +1\ns: 08\nw: 0b2\n',
      want: { d: 511, e: 31, f: 15, g: 5, h: 1000, p: 1, s: 8, w: '0b2' },
    },
    floatsAndText: {
      reason: 'floats as strconv reads them; timestamps and sexagesimal numbers stay text; null and empty are null',
      text: 'i: 1:20\nj: 2024-01-01\nk: 2024-01-01T00:00:00Z\nl: .5\nm: 1e3\nq: 1.0\nu: 3.\nv: ~\nx: !!str 5\nz:\n',
      want: {
        i: '1:20',
        j: '2024-01-01',
        k: '2024-01-01T00:00:00Z',
        l: 0.5,
        m: 1000,
        q: 1,
        u: 3,
        v: null,
        x: '5',
        z: null,
      },
    },
    anchorsAndMerge: {
      reason: 'aliases and << merge keys resolve',
      text: 'a: &x {k: v}\nb: *x\nc:\n  <<: *x\n  k2: v2\n',
      want: { a: { k: 'v' }, b: { k: 'v' }, c: { k: 'v', k2: 'v2' } },
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: ${c.reason}`, async () => {
      const [doc] = await readDocuments(tempFile(c.text), 'composite resource');
      expect(doc, c.reason).to.deep.equal(c.want);
    });
  }

  it('rejects a float JSON cannot hold, as YAMLToJSON does, naming the file', async () => {
    const path = tempFile('a: .inf\n');
    const err = await readDocuments(path, 'composite resource').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(RenderInputError);
    expect((err as Error).message).to.equal(`cannot parse composite resource "${path}": .inf is not a JSON number`);
  });
});
