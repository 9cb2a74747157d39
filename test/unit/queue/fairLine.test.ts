import { expect } from 'chai';
import { FairLine, FifoLine, namespaceOfKey, type KeyLine } from '../../../src/queue/index.js';

function drain(line: KeyLine): string[] {
  const out: string[] = [];
  for (let key = line.shift(); key !== undefined; key = line.shift()) out.push(key);
  return out;
}

function filled(line: KeyLine, keys: readonly string[]): KeyLine {
  for (const key of keys) line.push(key);
  return line;
}

describe('queue/FairLine', () => {
  const cases: Record<string, { reason: string; key: string; want: string }> = {
    namespaced: { reason: 'the part before the first slash', key: 'team-a/bucket', want: 'team-a' },
    cluster: { reason: 'cluster-scoped keys share the "" group', key: 'bucket', want: '' },
  };
  for (const [name, { reason, key, want }] of Object.entries(cases)) {
    it(`namespaceOfKey: ${name}`, () => {
      expect(namespaceOfKey(key), reason).to.equal(want);
    });
  }

  it('takes one key per namespace in turn, each namespace in its own FIFO order', () => {
    const line = filled(new FairLine(), ['a/1', 'a/2', 'a/3', 'b/1', 'c/1', 'b/2']);
    expect(line.length).to.equal(6);
    expect(drain(line)).to.deep.equal(['a/1', 'b/1', 'c/1', 'a/2', 'b/2', 'a/3']);
    expect(line.length).to.equal(0);
  });

  it('serves a namespace that joins after 5,000 keys of another second, where a FIFO serves it last', () => {
    const noisy = Array.from({ length: 5_000 }, (_, i) => `noisy/xr-${i}`);
    const fair = drain(filled(new FairLine(), [...noisy, 'quiet/xr']));
    const fifo = drain(filled(new FifoLine(), [...noisy, 'quiet/xr']));
    expect(fair.indexOf('quiet/xr')).to.equal(1);
    expect(fifo.indexOf('quiet/xr')).to.equal(5_000);
  });

  it('puts cluster-scoped keys in one group of their own', () => {
    const line = filled(new FairLine(), ['x', 'y', 'ns/a', 'z']);
    expect(drain(line)).to.deep.equal(['x', 'ns/a', 'y', 'z']);
  });

  it('gives a namespace of weight w w turns in a row per round', () => {
    const weights: Record<string, number> = { prod: 3 };
    const line = new FairLine({ weightOf: (ns) => weights[ns] ?? 1 });
    filled(line, ['prod/1', 'prod/2', 'prod/3', 'prod/4', 'prod/5', 'prod/6', 'dev/1', 'dev/2', 'dev/3']);
    expect(drain(line)).to.deep.equal([
      'prod/1',
      'prod/2',
      'prod/3',
      'dev/1',
      'prod/4',
      'prod/5',
      'prod/6',
      'dev/2',
      'dev/3',
    ]);
  });

  it('reads a weight when the turn starts, so a change applies from the next round', () => {
    let weight = 1;
    const line = filled(new FairLine({ weightOf: () => weight }), ['a/1', 'a/2', 'a/3', 'a/4', 'b/1', 'b/2']);
    expect(line.shift()).to.equal('a/1');
    weight = 2;
    expect(drain(line)).to.deep.equal(['b/1', 'b/2', 'a/2', 'a/3', 'a/4']);
  });

  const badWeights: Record<string, { reason: string; weight: () => number }> = {
    zero: { reason: 'below 1', weight: () => 0 },
    negative: { reason: 'below 1', weight: () => -4 },
    fraction: { reason: 'not an integer', weight: () => 2.5 },
    nan: { reason: 'not a number', weight: () => NaN },
    throws: {
      reason: 'a weight source that throws',
      weight: () => {
        throw new Error('cache not synced');
      },
    },
  };
  for (const [name, { reason, weight }] of Object.entries(badWeights)) {
    it(`counts a bad weight as 1: ${name}`, () => {
      const line = filled(new FairLine({ weightOf: (ns) => (ns === 'a' ? weight() : 1) }), ['a/1', 'a/2', 'b/1']);
      expect(drain(line), reason).to.deep.equal(['a/1', 'b/1', 'a/2']);
    });
  }

  it('sends a namespace that ran dry and comes back to the back of the round', () => {
    const line = filled(new FairLine(), ['a/1', 'b/1', 'b/2', 'c/1']);
    expect(line.shift()).to.equal('a/1');
    line.push('a/2');
    expect(drain(line)).to.deep.equal(['b/1', 'c/1', 'a/2', 'b/2']);
  });

  it('ends a weighted turn early when its namespace runs dry, and starts a fresh one when it returns', () => {
    const line = filled(new FairLine({ weightOf: (ns) => (ns === 'a' ? 3 : 1) }), ['a/1', 'b/1', 'b/2']);
    expect(line.shift()).to.equal('a/1');
    filled(line, ['a/2', 'a/3', 'a/4', 'a/5']);
    expect(drain(line)).to.deep.equal(['b/1', 'a/2', 'a/3', 'a/4', 'b/2', 'a/5']);
  });

  it('clear returns every key in line and leaves it empty and usable', () => {
    const line = filled(new FairLine(), ['a/1', 'a/2', 'b/1']);
    expect(line.shift()).to.equal('a/1');
    expect(line.clear().sort()).to.deep.equal(['a/2', 'b/1']);
    expect(line.length).to.equal(0);
    expect(line.shift()).to.equal(undefined);
    line.push('c/1');
    expect(drain(line)).to.deep.equal(['c/1']);
  });
});
