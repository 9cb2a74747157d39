import { expect } from 'chai';
import { DEFAULT_NORMAL_EVENT_RATE, EventSpamFilter } from '../../../src/kube/eventSpamFilter.js';

const T0 = 1_000_000;

describe('kube/EventSpamFilter', () => {
  it("admits client-go's burst of 25 Normal Events per object, then one per 5 minutes", () => {
    const filter = new EventSpamFilter({ rate: DEFAULT_NORMAL_EVENT_RATE, maxTracked: 10 });
    const admitted = Array.from({ length: 30 }, () => filter.admitNormal('a', T0)).filter(Boolean);
    expect(admitted).to.have.length(25);

    const cases: Record<string, { at: number; want: boolean }> = {
      'a second later, nothing earned': { at: T0 + 1_000, want: false },
      'just short of 5 minutes': { at: T0 + 299_999, want: false },
      '5 minutes: one token': { at: T0 + 300_000, want: true },
      'the same moment again: spent': { at: T0 + 300_000, want: false },
    };
    for (const [reason, { at, want }] of Object.entries(cases)) {
      expect(filter.admitNormal('a', at), reason).to.equal(want);
    }
  });

  it('keeps one budget per object', () => {
    const filter = new EventSpamFilter({ rate: { burst: 2, perSecond: 1 }, maxTracked: 10 });
    expect([filter.admitNormal('a', T0), filter.admitNormal('a', T0), filter.admitNormal('a', T0)]).to.deep.equal([
      true,
      true,
      false,
    ]);
    expect(filter.admitNormal('b', T0), 'another object has its own budget').to.be.true;
  });

  it('forgets the least recently charged object beyond maxTracked, which then starts with a full budget', () => {
    const filter = new EventSpamFilter({ rate: { burst: 1, perSecond: 0 }, maxTracked: 2 });
    for (const object of ['a', 'b', 'c']) expect(filter.admitNormal(object, T0), object).to.be.true;
    expect(filter.admitNormal('c', T0), 'c is remembered and spent').to.be.false;
    expect(filter.admitNormal('a', T0), 'a was forgotten').to.be.true;
  });
});
