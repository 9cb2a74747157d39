import { parseDuration } from '../../apis/index.js';
import type { ReportedCondition } from '../types.js';
import type { ConditionAfter } from './types.js';

// spec.forProvider.conditionAfter: which conditions a NopResource reports at a given age, and when that changes
// next. Pure: the age comes from the caller's clock.

export interface TimedCondition {
  afterMs: number;
  condition: ReportedCondition;
}

/** Thrown for an entry whose time is not a Go duration; it names the entry so the user can fix it. */
export class InvalidConditionAfterError extends Error {
  constructor(index: number, time: string) {
    super(`spec.forProvider.conditionAfter[${index}].time "${time}" is not a duration such as 30s or 1m30s`);
    this.name = 'InvalidConditionAfterError';
  }
}

/** Ready gets Crossplane's reasons by default; other types a reason that says where they came from. */
function defaultReason(entry: ConditionAfter): string {
  if (entry.conditionType !== 'Ready') return 'ConditionAfter';
  return entry.conditionStatus === 'True' ? 'Available' : 'Unavailable';
}

export function parseConditionAfter(entries: readonly ConditionAfter[]): TimedCondition[] {
  return entries.map((entry, index) => {
    let afterMs: number;
    try {
      afterMs = parseDuration(entry.time.trim());
    } catch {
      throw new InvalidConditionAfterError(index, entry.time);
    }
    if (afterMs < 0) throw new InvalidConditionAfterError(index, entry.time);
    const reason =
      entry.conditionReason !== undefined && entry.conditionReason !== ''
        ? entry.conditionReason
        : defaultReason(entry);
    return { afterMs, condition: { type: entry.conditionType, status: entry.conditionStatus, reason } };
  });
}

/**
 * The conditions in force at `ageMs`: per type, the entry with the latest time that has passed (on a tie, the
 * first listed), as provider-nop chooses them.
 */
export function conditionsAt(timed: readonly TimedCondition[], ageMs: number): ReportedCondition[] {
  const chosen = new Map<string, TimedCondition>();
  for (const entry of timed) {
    if (entry.afterMs > ageMs) continue;
    const current = chosen.get(entry.condition.type);
    if (!current || entry.afterMs > current.afterMs) chosen.set(entry.condition.type, entry);
  }
  return [...chosen.values()].map((entry) => entry.condition);
}

/** How long after `ageMs` the reported conditions change next; undefined when they never will. */
export function nextChangeInMs(timed: readonly TimedCondition[], ageMs: number): number | undefined {
  let next: number | undefined;
  for (const { afterMs } of timed) {
    if (afterMs > ageMs && (next === undefined || afterMs < next)) next = afterMs;
  }
  return next === undefined ? undefined : next - ageMs;
}
