import { systemClock, type Clock } from '../base/index.js';

/**
 * A stop deadline: a signal that aborts `ms` after now on `clock`, so tests step a `ManualClock` instead of waiting.
 * Like `AbortSignal.timeout`, its timer does not keep the process alive.
 */
export function deadlineAfter(ms: number, clock: Clock = systemClock): AbortSignal {
  const controller = new AbortController();
  clock.setTimer(() => {
    controller.abort(new DeadlineError(ms));
  }, ms);
  return controller.signal;
}

/** The reason of a deadline signal that aborted. */
export class DeadlineError extends Error {
  constructor(readonly ms: number) {
    super(`the deadline of ${ms} ms passed`);
    this.name = 'DeadlineError';
  }
}
