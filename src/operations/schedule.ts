// A CronOperation's schedule, read as Crossplane reads it (robfig/cron's ParseStandard in
// internal/controller/ops/cronoperation/constructor.go): five fields, the @hourly-style descriptors, `@every
// <duration>` and a leading CRON_TZ= or TZ= time zone; UTC otherwise. croner does the calendar arithmetic.
import { Cron } from 'croner';
import { parseDuration } from '../apis/index.js';
import { errorMessage } from '../base/index.js';

/** A schedule that cannot be read; its message says why. */
export class InvalidScheduleError extends Error {
  constructor(schedule: string, detail: string) {
    super(`cannot parse cron schedule ${JSON.stringify(schedule)}: ${detail}`);
    this.name = 'InvalidScheduleError';
  }
}

/** When runs fall due. Times are epoch milliseconds. */
export interface Schedule {
  /** The first run strictly after `afterMs`; undefined when none ever falls due again. */
  next(afterMs: number): number | undefined;
  /** The latest run in (`afterMs`, `nowMs`]; undefined when none falls in that window. */
  latest(afterMs: number, nowMs: number): number | undefined;
}

const TZ_PREFIX = /^(?:CRON_TZ|TZ)=(\S+)\s+/;
const EVERY = /^@every\s+(\S+)$/;

class CalendarSchedule implements Schedule {
  constructor(private readonly cron: Cron) {}

  next(afterMs: number): number | undefined {
    return this.cron.nextRun(new Date(afterMs))?.getTime();
  }

  latest(afterMs: number, nowMs: number): number | undefined {
    // previousRuns looks strictly before its reference; runs fall on whole seconds, so +1 ms includes nowMs.
    const [previous] = this.cron.previousRuns(1, new Date(nowMs + 1));
    const at = previous?.getTime();
    return at !== undefined && at > afterMs ? at : undefined;
  }
}

/** robfig's ConstantDelaySchedule: every `delayMs` (whole seconds, at least one) after the previous run. */
class EverySchedule implements Schedule {
  constructor(private readonly delayMs: number) {}

  next(afterMs: number): number {
    return afterMs - (afterMs % 1000) + this.delayMs;
  }

  latest(afterMs: number, nowMs: number): number | undefined {
    const first = this.next(afterMs);
    if (first > nowMs) return undefined;
    return first + Math.floor((nowMs - first) / this.delayMs) * this.delayMs;
  }
}

function every(schedule: string, text: string): Schedule {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new InvalidScheduleError(schedule, errorMessage(err));
  }
  return new EverySchedule(Math.max(1000, ms - (ms % 1000)));
}

/**
 * Reads a schedule; throws InvalidScheduleError when it cannot.
 *
 * @example parseSchedule('*\/5 * * * *').next(Date.parse('2026-01-01T00:02:00Z')) // 00:05:00
 */
export function parseSchedule(schedule: string): Schedule {
  let text = schedule.trim();
  let timezone = 'Etc/UTC';
  const tz = TZ_PREFIX.exec(text);
  if (tz?.[1] !== undefined) {
    timezone = tz[1];
    text = text.slice(tz[0].length);
  }
  const interval = EVERY.exec(text);
  if (interval?.[1] !== undefined) return every(schedule, interval[1]);
  try {
    const cron = new Cron(text, { timezone, mode: '5-part', domAndDow: false });
    // A time zone is checked only when a date is computed: compute one now, so a bad one fails here.
    cron.nextRun(new Date(0));
    return new CalendarSchedule(cron);
  } catch (err) {
    throw new InvalidScheduleError(schedule, errorMessage(err));
  }
}
