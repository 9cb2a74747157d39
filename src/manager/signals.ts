import type { Logger } from './logger.js';

/**
 * An AbortSignal that fires on the first SIGTERM or SIGINT, starting a graceful shutdown. A second signal exits
 * at once with code 1, for an operator who does not want to wait.
 */
export function shutdownSignal(log: Logger): AbortSignal {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      log.warn({ signal: name }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    log.info({ signal: name }, 'shutting down');
    controller.abort(new Error(`received ${name}`));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return controller.signal;
}
