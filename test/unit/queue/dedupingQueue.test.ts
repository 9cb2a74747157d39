import { expect } from 'chai';
import { DedupingQueue } from '../../../src/queue/dedupingQueue.js';

describe('queue/DedupingQueue', () => {
  it('keeps first-in first-out order and coalesces repeated adds', () => {
    const q = new DedupingQueue();
    expect(['a', 'b', 'a', 'c', 'b'].map((k) => q.add(k))).to.deep.equal([true, true, false, true, false]);
    expect([q.get(), q.get(), q.get(), q.get()]).to.deep.equal(['a', 'b', 'c', undefined]);
  });

  it('does not hand out a key that is processing; an add meanwhile lines it up after done', () => {
    const q = new DedupingQueue();
    q.add('a');
    expect(q.get()).to.equal('a');
    expect(q.add('a')).to.be.true;
    expect(q.add('a')).to.be.false;
    expect(q.get()).to.equal(undefined);
    expect(q.done('a')).to.be.true;
    expect(q.get()).to.equal('a');
    expect(q.done('a')).to.be.false;
    expect(q.length).to.equal(0);
  });

  it('clear drops the line but not keys being processed', () => {
    const q = new DedupingQueue();
    q.add('a');
    q.add('b');
    expect(q.get()).to.equal('a');
    q.clear();
    expect(q.length).to.equal(0);
    expect(q.isDirty('b')).to.be.false;
    expect(q.isProcessing('a')).to.be.true;
  });

  it('stays correct across front compaction', () => {
    const q = new DedupingQueue();
    for (let i = 0; i < 5_000; i++) q.add(`k${i}`);
    const taken = Array.from({ length: 3_000 }, () => q.get());
    expect(taken.every((key, i) => key === `k${i}`)).to.be.true;
    q.add('late');
    expect(q.length).to.equal(2_001);
    expect(q.get()).to.equal('k3000');
  });
});
