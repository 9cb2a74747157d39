import { errorMessage } from '../base/index.js';
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
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface ServerVersion {
  gitVersion: string;
  major: string;
  minor: string;
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Asks the API server for its version until it answers, at most `attempts` times. Authentication and authorization
 * failures are final at once: retrying cannot fix a wrong credential.
 */
export async function waitForApiServer(client: KubeClient, options: ReachabilityOptions): Promise<ServerVersion> {
  const sleep = options.sleep ?? defaultSleep;
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
    if (attempt < options.attempts) await sleep(options.delayMs, options.signal);
  }
  throw new ApiServerUnreachableError(
    `API server ${client.server} is unreachable after ${options.attempts} attempts: ${errorMessage(lastError, { cause: true })}`,
    { cause: lastError },
  );
}
