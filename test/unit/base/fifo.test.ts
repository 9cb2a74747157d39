import { expect } from 'chai';
import { Fifo } from '../../../src/base/index.js';

describe('base/Fifo', () => {
  it('hands items out in the order they came, and undefined when empty', () => {
    const fifo = new Fifo<number>();
    for (const n of [1, 2, 3]) fifo.push(n);
    expect(fifo.peek()).to.equal(1);
    expect([fifo.shift(), fifo.shift()]).to.deep.equal([1, 2]);
    fifo.push(4);
    expect(fifo.length).to.equal(2);
    expect([fifo.shift(), fifo.shift(), fifo.shift()]).to.deep.equal([3, 4, undefined]);
    expect(fifo.peek()).to.equal(undefined);
  });

  it('keeps its order across the compaction of a long run of shifts', () => {
    const fifo = new Fifo<number>();
    for (let n = 0; n < 5_000; n++) fifo.push(n);
    const taken: number[] = [];
    for (let n = 0; n < 3_000; n++) taken.push(fifo.shift() ?? -1);
    expect(taken.at(-1)).to.equal(2_999);
    expect(fifo.length).to.equal(2_000);
    expect(fifo.clear()).to.deep.equal(Array.from({ length: 2_000 }, (_, i) => 3_000 + i));
    expect(fifo.length).to.equal(0);
  });
});
