import { errorMessage } from '../base/index.js';

/**
 * A failed step of a reconcile: `reason` is the reason of the Warning event the reconciler records on its object,
 * the message "<what could not be done>: <cause>". The reconciler catches it once, at the top, records the event
 * and rethrows it for the queue's backoff.
 *
 * @example
 * throw new StepError('AddOwnerRefToUsage', 'cannot update usage resource with owner ref', { cause: err });
 */
export class StepError extends Error {
  constructor(
    readonly reason: string,
    message: string,
    options: { cause: unknown },
  ) {
    super(`${message}: ${errorMessage(options.cause)}`, options);
    this.name = 'StepError';
  }
}
