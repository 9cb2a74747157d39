import { fullBucket, refill, reserve, takeOrWait, tryTake } from '../../../src/base/index.js';
import { expect } from 'chai';

const rate = { perSecond: 2, burst: 10 };

describe('base/tokenBucket', () => {
  it('starts full and allows exactly a burst at one instant', () => {
    const bucket = fullBucket(rate, 0);
    let taken = 0;
    while (tryTake(bucket, rate, 1, 0)) taken += 1;
    expect(taken).to.equal(10);
  });

  it('refills at the rate and never above the burst', () => {
    const bucket = { tokens: 0, updatedAtMs: 0 };
    refill(bucket, rate, 1_500);
    expect(bucket.tokens).to.equal(3);
    refill(bucket, rate, 60_000);
    expect(bucket.tokens).to.equal(10);
  });

  it('does not refill when the clock steps back', () => {
    const bucket = { tokens: 1, updatedAtMs: 1_000 };
    refill(bucket, rate, 500);
    expect(bucket).to.deep.equal({ tokens: 1, updatedAtMs: 1_000 });
  });

  it('takes nothing when the cost is not all there', () => {
    const bucket = { tokens: 1.5, updatedAtMs: 0 };
    expect(tryTake(bucket, rate, 2, 0)).to.be.false;
    expect(bucket.tokens).to.equal(1.5);
    expect(tryTake(bucket, rate, 1, 0)).to.be.true;
    expect(bucket.tokens).to.equal(0.5);
  });

  it('reserve spaces work 1/rate apart once the burst is used, never refusing', () => {
    const bucket = fullBucket(rate, 0);
    const waits = Array.from({ length: 13 }, () => reserve(bucket, rate, 0));
    expect(waits.slice(0, 10)).to.deep.equal(Array(10).fill(0));
    expect(waits.slice(10)).to.deep.equal([500, 1_000, 1_500]);
    // One second later two slots were earned back, so the next reservation waits behind one fewer.
    expect(reserve(bucket, rate, 1_000)).to.equal(1_000);
  });

  it('takeOrWait takes a token when there is one and otherwise promises nothing, only says when to ask again', () => {
    const r = { perSecond: 3, burst: 1 };
    const bucket = fullBucket(r, 0);
    expect(takeOrWait(bucket, r, 0)).to.equal(0);
    const waitMs = takeOrWait(bucket, r, 0);
    expect(waitMs).to.be.closeTo(333.33, 0.01);
    // Asking again before then takes nothing, so the wait does not grow (unlike reserve).
    expect(takeOrWait(bucket, r, 100)).to.be.closeTo(233.33, 0.01);
    // At exactly the promised moment the token is there, float drift notwithstanding; then the bucket is empty.
    expect(takeOrWait(bucket, r, waitMs)).to.equal(0);
    expect(takeOrWait(bucket, r, waitMs)).to.be.closeTo(333.33, 0.01);
  });
});
