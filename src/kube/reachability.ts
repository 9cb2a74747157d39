import { errorMessage, monotonicClock, type Clock } from '../base/index.js';
import type { KubeClient } from './client.js';
import { ApiError } from './errors.js';

/** The API server did not answer within the bounded retry at start; the message names the server and the cause. */
export class ApiServerUnreachableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ApiServerUnreachableError';
  }
}

export interface ReachabilityOptions {
  attempts: number;
  delayMs: number;
  signal?: AbortSignal;
  /** The pause between attempts; the monotonic clock unless given. */
  clock?: Clock;
}

export interface ServerVersion {
  gitVersion: string;
  major: string;
  minor: string;
}

/**
 * Asks the API server for its version until it answers, at most `attempts` times. Authentication and authorization
 * failures are final at once: retrying cannot fix a wrong credential.
 */
export async function waitForApiServer(client: KubeClient, options: ReachabilityOptions): Promise<ServerVersion> {
  const clock = options.clock ?? monotonicClock;
  let lastError: unknown;
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    try {
      return await client.request<ServerVersion>('GET', '/version', { signal: options.signal });
    } catch (err) {
      lastError = err;
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
        throw new ApiServerUnreachableError(
          `API server ${client.server} rejected compositor's credentials: ${err.message}`,
          {
            cause: err,
          },
        );
      }
    }
    if (options.signal?.aborted) break;
    // An abort ends the pause early; the loop then stops at the check above.
    if (attempt < options.attempts) await clock.sleep(options.delayMs, options.signal).catch(() => undefined);
  }
  throw new ApiServerUnreachableError(
    `API server ${client.server} is unreachable after ${options.attempts} attempts: ${errorMessage(lastError, { cause: true })}`,
    { cause: lastError },
  );
}
