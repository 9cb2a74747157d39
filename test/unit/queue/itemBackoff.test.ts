import { expect } from 'chai';
import { ItemBackoff } from '../../../src/queue/index.js';

describe('queue/ItemBackoff', () => {
  it('doubles from 1s to a 60s cap per key, and forget starts over', () => {
    const backoff = new ItemBackoff();
    const delays = Array.from({ length: 9 }, () => backoff.when('a'));
    expect(delays).to.deep.equal([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect(backoff.when('b')).to.equal(1_000);
    expect(backoff.numRequeues('a')).to.equal(9);
    backoff.forget('a');
    expect(backoff.numRequeues('a')).to.equal(0);
    expect(backoff.when('a')).to.equal(1_000);
  });

  it('stays at the cap after very many failures', () => {
    const backoff = new ItemBackoff({ baseMs: 5, capMs: 1_000 });
    for (let i = 0; i < 2_000; i++) backoff.when('a');
    expect(backoff.when('a')).to.equal(1_000);
  });
});
