// The budgets a Normal Event must pass before it is written: its object's and the whole process's. Pure: time is
// passed in.
import { fullBucket, tryTake, type TokenBucketRate, type TokenBucketState } from '../base/index.js';
import { EventSpamFilter } from './eventSpamFilter.js';

/** Which budget refused a Normal occurrence: its object's (client-go's spam filter) or the process's. */
export type EventBudgetName = 'object' | 'process';

export interface NormalEventBudgetOptions {
  /** Each object's budget. */
  object: TokenBucketRate;
  /** Objects whose budget is remembered; a forgotten one starts full again. */
  maxTracked: number;
  /** The budget all objects share; none when undefined. */
  process?: TokenBucketRate;
}

/**
 * Charges a Normal occurrence to its object's budget and then to the process's. The per-object budget bounds one
 * object that keeps reporting progress; it never triggers when many objects report once each, as a burst of new XRs
 * does. The process budget bounds that burst, as client-go's recorder does by dropping what overflows the queue in
 * front of its one serial writer. An occurrence its object refuses costs the process nothing; one the process
 * refuses has still spent its object's token, as client-go's spam filter is charged before its queue drops.
 * Warnings are never charged here: a Warning is what a user must see.
 *
 * @example
 * const budget = new NormalEventBudget({ object: DEFAULT_NORMAL_EVENT_RATE, maxTracked: 4096, process });
 * if (budget.refuse(uid, clock.now()) === undefined) write();
 */
export class NormalEventBudget {
  private readonly objects: EventSpamFilter;
  /** Created full on the first charge, so the process starts with its whole burst. */
  private shared: TokenBucketState | undefined;

  constructor(private readonly options: NormalEventBudgetOptions) {
    this.objects = new EventSpamFilter({ rate: options.object, maxTracked: options.maxTracked });
  }

  /** Charges one Normal occurrence about `object` at `now`: undefined when it may be written, else the budget that refused it. */
  refuse(object: string, now: number): EventBudgetName | undefined {
    if (!this.objects.admitNormal(object, now)) return 'object';
    const rate = this.options.process;
    if (rate === undefined) return undefined;
    this.shared ??= fullBucket(rate, now);
    return tryTake(this.shared, rate, 1, now) ? undefined : 'process';
  }
}
