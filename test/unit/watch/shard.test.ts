import { expect } from 'chai';
import { fnv1a32, ownedBy, shardFilter, shardOf } from '../../../src/watch/index.js';

/** The i-th of a fixed set of uids, so the figures below are the same on every run. */
function uid(i: number): string {
  return `6f1c2d3e-4b5a-4c6d-8e7f-${i.toString(16).padStart(12, '0')}`;
}

describe('watch/shard', () => {
  // Go's hash/fnv New32a gives the same values (FNV reference vectors), so other tools can compute a uid's shard.
  const vectors: Record<string, { text: string; want: number }> = {
    'the empty string is the offset basis': { text: '', want: 0x811c9dc5 },
    'one byte': { text: 'a', want: 0xe40c292c },
    'three bytes': { text: 'abc', want: 0x1a47e90b },
    'a word': { text: 'foobar', want: 0xbf9cf968 },
    'a character of two UTF-8 bytes is hashed byte by byte': { text: 'é', want: 0x1e9de8c1 },
    'a uid': { text: '9f3b2c1e-7d4a-4b8e-a1c2-3d4e5f607182', want: 0xd61a0b7d },
  };
  for (const [reason, { text, want }] of Object.entries(vectors)) {
    it(`fnv1a32: ${reason}`, () => {
      expect(fnv1a32(text), reason).to.equal(want);
    });
  }

  it('shardOf is the hash modulo the count, stable for a uid', () => {
    const uid = '9f3b2c1e-7d4a-4b8e-a1c2-3d4e5f607182';
    expect(shardOf(uid, 2)).to.equal(0xd61a0b7d % 2);
    expect(shardOf(uid, 16)).to.equal(13);
    expect(shardOf(uid, 16)).to.equal(shardOf(uid, 16));
    expect(shardOf(uid, 1)).to.equal(0);
  });

  it('gives every object exactly one owner among the shards', () => {
    for (const count of [2, 3, 16]) {
      for (let i = 0; i < 200; i++) {
        const object = { metadata: { uid: uid(i) } };
        const owners = Array.from({ length: count }, (_, index) => index).filter((index) =>
          ownedBy({ index, count }, object),
        );
        expect(owners, `${object.metadata.uid} of ${count} shards`).to.have.length(1);
      }
    }
  });

  it('spreads uids evenly: each of 4 shards gets 25% +/- 5% of 4,000 uids', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4_000; i++) {
      const shard = shardOf(uid(i), 4);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    for (const [shard, n] of counts.entries())
      expect(n, `shard ${shard}: ${counts.join(', ')}`).to.be.within(800, 1_200);
  });

  const owned: Record<string, { index: number; count: number; uid: unknown; want: boolean }> = {
    'one shard owns everything': { index: 0, count: 1, uid: 'anything', want: true },
    'the shard the uid hashes to': { index: 1, count: 2, uid: '9f3b2c1e-7d4a-4b8e-a1c2-3d4e5f607182', want: true },
    'not another shard': { index: 0, count: 2, uid: '9f3b2c1e-7d4a-4b8e-a1c2-3d4e5f607182', want: false },
    'an object without a uid belongs to shard 0': { index: 0, count: 2, uid: undefined, want: true },
    'and to no other shard': { index: 1, count: 2, uid: undefined, want: false },
  };
  for (const [reason, { index, count, uid, want }] of Object.entries(owned)) {
    it(`ownedBy: ${reason}`, () => {
      expect(ownedBy({ index, count }, { metadata: { uid } }), reason).to.equal(want);
    });
  }

  it('shardFilter is undefined without sharding, so controllers skip the check', () => {
    expect(shardFilter({ index: 0, count: 1 })).to.equal(undefined);
    const owns = shardFilter({ index: 1, count: 2 });
    expect(owns?.({ metadata: { uid: '9f3b2c1e-7d4a-4b8e-a1c2-3d4e5f607182' } })).to.equal(true);
    expect(owns?.({ metadata: { uid: 'foobar' } })).to.equal(false); // 0xbf9cf968 is even
  });
});
