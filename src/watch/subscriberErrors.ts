import { config } from 'rxjs';
import type { Logger } from 'pino';
import { errorMessage } from '../base/index.js';

/**
 * RxJS rethrows an error from a subscriber's callback on a timer, which would crash the process; route those to
 * the log instead, so one failing consumer never takes down the watch streams of every controller.
 */
export function logSubscriberErrors(logger: Logger): void {
  config.onUnhandledError = (err: unknown) => {
    logger.error({ err: errorMessage(err) }, 'an event subscriber threw; the stream goes on');
  };
}
