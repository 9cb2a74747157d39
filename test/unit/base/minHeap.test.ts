import { expect } from 'chai';
import { MinHeap } from '../../../src/base/index.js';

describe('queue/MinHeap', () => {
  it('pops in time order, and entries due at the same time in insertion order', () => {
    const heap = new MinHeap<{ at: number; id: number }>();
    // A fixed pseudo-random sequence, so a failure reproduces.
    let seed = 7;
    const entries = Array.from({ length: 500 }, (_, id) => {
      seed = (seed * 48_271) % 2_147_483_647;
      return { at: seed % 50, id };
    });
    for (const e of entries) heap.push(e);
    const popped: { at: number; id: number }[] = [];
    for (let e = heap.pop(); e !== undefined; e = heap.pop()) popped.push(e);
    const expected = [...entries].sort((a, b) => a.at - b.at || a.id - b.id);
    expect(popped).to.deep.equal(expected);
    expect(heap.size).to.equal(0);
    expect(heap.peek()).to.equal(undefined);
  });
});
