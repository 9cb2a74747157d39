import { expect } from 'chai';
import { NormalEventBudget } from '../../../src/kube/eventBudget.js';

const T0 = 1_000_000;
const objectRate = { burst: 25, perSecond: 1 / 300 };

describe('kube/NormalEventBudget', () => {
  it('limits nothing beyond the object budgets when it has no process rate', () => {
    const budget = new NormalEventBudget({ object: objectRate, maxTracked: 10_000 });
    const refused = Array.from({ length: 1_000 }, (_, i) => budget.refuse(`xr-${i}`, T0)).filter(Boolean);
    expect(refused).to.deep.equal([]);
  });

  it('admits a burst over many objects up to the process budget, then refuses with "process"', () => {
    const budget = new NormalEventBudget({ object: objectRate, maxTracked: 100, process: { burst: 3, perSecond: 1 } });
    const verdicts = ['a', 'b', 'c', 'd', 'e'].map((object) => budget.refuse(object, T0));
    expect(verdicts).to.deep.equal([undefined, undefined, undefined, 'process', 'process']);
  });

  it('refills the process budget as time passes, never above its burst', () => {
    const budget = new NormalEventBudget({ object: objectRate, maxTracked: 100, process: { burst: 2, perSecond: 2 } });
    for (const object of ['a', 'b']) expect(budget.refuse(object, T0), object).to.equal(undefined);

    const cases: Record<string, { at: number; object: string; want: 'process' | undefined }> = {
      'spent at the same instant': { at: T0, object: 'c', want: 'process' },
      'just short of half a second': { at: T0 + 499, object: 'c', want: 'process' },
      'half a second earns one': { at: T0 + 500, object: 'c', want: undefined },
      'which is then spent': { at: T0 + 500, object: 'd', want: 'process' },
      'a long pause earns the burst': { at: T0 + 60_000, object: 'd', want: undefined },
      'the burst, not more': { at: T0 + 60_000, object: 'e', want: undefined },
      'spent again': { at: T0 + 60_000, object: 'f', want: 'process' },
    };
    for (const [reason, { at, object, want }] of Object.entries(cases)) {
      expect(budget.refuse(object, at), reason).to.equal(want);
    }
  });

  it('refuses with "object" once an object\'s budget is spent, without charging the process', () => {
    const budget = new NormalEventBudget({
      object: { burst: 1, perSecond: 0 },
      maxTracked: 100,
      process: { burst: 2, perSecond: 0 },
    });
    expect([budget.refuse('a', T0), budget.refuse('a', T0), budget.refuse('a', T0)]).to.deep.equal([
      undefined,
      'object',
      'object',
    ]);
    expect(budget.refuse('b', T0), "a's refusals left the process a token").to.equal(undefined);
    expect(budget.refuse('c', T0)).to.equal('process');
  });
});
