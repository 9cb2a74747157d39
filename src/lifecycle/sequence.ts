import type { Lifecycle } from './lifecycle.js';

/**
 * Starts `part`; when the start fails, stops it at once (an aborted deadline) so it releases whatever it took before
 * failing, then rethrows the start's error. The one way a controller starts the controllers it runs.
 */
export async function startOrRelease(part: Lifecycle, signal: AbortSignal): Promise<void> {
  try {
    await part.start(signal);
  } catch (err) {
    // The start's error is the one to report; a failure to release on top of it tells the caller nothing new.
    await part.stop(AbortSignal.abort(err)).catch(() => undefined);
    throw err;
  }
}

/**
 * Starts `parts` one after another. When one fails, it and those started before it are stopped at once, in reverse
 * order, and the error is rethrown: nothing half started is left running.
 */
export async function startInOrder(parts: readonly Lifecycle[], signal: AbortSignal): Promise<void> {
  for (const [index, part] of parts.entries()) {
    try {
      await part.start(signal);
    } catch (err) {
      await stopInReverse(parts.slice(0, index + 1), AbortSignal.abort(err)).catch(() => undefined);
      throw err;
    }
  }
}

/**
 * Stops `parts` in reverse order, all with the same deadline, so the whole stop ends with it. A part that fails to
 * stop does not keep the ones before it running: every part is asked, then the first error is rethrown.
 */
export async function stopInReverse(parts: readonly Lifecycle[], deadline: AbortSignal): Promise<void> {
  const errors: unknown[] = [];
  for (const part of [...parts].reverse()) {
    await part.stop(deadline).catch((err: unknown) => errors.push(err));
  }
  if (errors.length > 0) throw errors[0];
}
