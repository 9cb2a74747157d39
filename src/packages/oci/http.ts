// The HTTP primitives of the client: a request that turns "no answer" into RegistryUnreachableError, error
// responses turned into typed errors with the registry's own error codes, and bodies read under a size limit.
import { RegistryAuthError, RegistryResponseError, NotFoundError, RegistryUnreachableError } from './errors.js';
import { TooLargeError } from './errors.js';

/** The fetch the client uses: the global one, or one with a dispatcher that trusts extra CAs. */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** One request the client made, for metrics and for tests counting downloads. */
export interface RequestRecord {
  method: string;
  url: string;
  status: number;
}

/** Sends a request; a failure to get any response is RegistryUnreachableError naming the URL and the cause. */
export async function send(fetchFn: Fetch, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetchFn(url, { ...init, redirect: 'follow' });
  } catch (err) {
    if (init.signal?.aborted === true) throw err;
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new RegistryUnreachableError(`${init.method ?? 'GET'} ${url}: ${detail}`, { cause });
  }
}

// go-containerregistry reads at most 64 KiB of an error body or a token response.
const MAX_SMALL_BODY = 64 * 1024;

/** The typed error for a response that is not a success, with the registry's error codes as go-containerregistry prints them. */
export async function responseError(method: string, url: string, response: Response): Promise<RegistryResponseError> {
  const text = method === 'HEAD' ? '' : await readText(response).catch(() => '');
  const message = `${method} ${url}: ${describe(response, text)}`;
  if (response.status === 401 || response.status === 403) return new RegistryAuthError(response.status, message);
  if (response.status === 404) return new NotFoundError(message);
  return new RegistryResponseError('RegistryError', response.status, message);
}

function describe(response: Response, text: string): string {
  const status = `unexpected status code ${response.status} ${response.statusText}`.trim();
  if (text === '') return status;
  try {
    const body = JSON.parse(text) as { errors?: { code?: string; message?: string; detail?: unknown }[] };
    const errors = (body.errors ?? []).map((e) => {
      const detail = e.detail === undefined || e.detail === null ? '' : `; ${JSON.stringify(e.detail)}`;
      return `${e.code ?? 'UNKNOWN'}: ${e.message ?? ''}${detail}`;
    });
    if (errors.length > 0) return errors.join('; ');
  } catch {
    // Not the registry's JSON error body: show the text as it is.
  }
  return `${status}: ${text.trim().slice(0, 200)}`;
}

async function readText(response: Response): Promise<string> {
  return (await readLimited(response, MAX_SMALL_BODY, 'response body')).toString('utf8');
}

/** Reads a small JSON body (a token response) under go-containerregistry's 64 KiB limit. */
export async function readSmallJson(response: Response): Promise<unknown> {
  return JSON.parse(await readText(response)) as unknown;
}

/** Reads a whole body, refusing it as soon as it passes `limit` bytes (or announces more). */
export async function readLimited(response: Response, limit: number, what: string): Promise<Buffer> {
  const announced = Number(response.headers.get('content-length') ?? '0');
  if (announced > limit) {
    await response.body?.cancel();
    throw tooLarge(what, limit, `${announced} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (response.body === null) return Buffer.alloc(0);
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) {
      // Leaving the loop early cancels the body's stream.
      throw tooLarge(what, limit, `more than ${limit} bytes`);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

export function tooLarge(what: string, limit: number, size: string): TooLargeError {
  return new TooLargeError(limit, `${what} is ${size}, over the limit of ${limit} bytes`);
}
