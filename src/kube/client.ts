import { RequestContext, type KubeConfig } from '@kubernetes/client-node';
import { fetch, type RequestInit, type Response } from 'undici';
import { ApiError } from './errors.js';
import { compositorUserAgent } from './identity.js';
import type { RequestLimiter } from './rateLimiter.js';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  RequestTimeoutError,
  realSetTimer,
  startDeadline,
  type SetTimer,
} from './requestDeadline.js';

export type Verb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const CONTENT_TYPE = {
  json: 'application/json',
  mergePatch: 'application/merge-patch+json',
  jsonPatch: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

/** The connection pool requests go through (undefined: undici's global one, for a plain-HTTP server). */
type Pool = ReturnType<RequestContext['getDispatcher']>;

/** Called after every response (or transport failure, with code "error"), for rest_client metrics. */
export type ResponseObserver = (method: Verb, code: string) => void;

export interface KubeClientOptions {
  /**
   * Deadline of each request, from sending it until its body is read (default DEFAULT_REQUEST_TIMEOUT_MS, 0 for
   * none). A request past it fails with RequestTimeoutError, and later requests use a new connection pool (see
   * retire). Watches do not go through request(): they have their own silence deadline (src/watch/watchDeadline.ts).
   */
  requestTimeoutMs?: number;
  /** Schedules the deadline; tests fire it by hand. */
  setTimer?: SetTimer;
  /** The User-Agent of every request; default compositor's own (identity.ts). */
  userAgent?: string;
}

/**
 * A JSON client for the Kubernetes API that keeps objects exactly as the server sends them. client-node's typed
 * clients pass bodies through model serializers that drop unknown fields, which a composition engine cannot afford
 * for arbitrary composed kinds; this client reuses only client-node's authentication and TLS set-up.
 */
export class KubeClient {
  /**
   * The TLS connection pool of every request. client-node hands out a new undici Agent per request, which costs a
   * TCP connection and TLS handshake each time and holds memory until it is collected (measured at 1,000 XRs: 65 s
   * to Ready and 706 MiB idle with an agent per request, 31 s and 340 MiB with one). Headers, and so refreshed
   * tokens, are still applied per request; only the connection settings are fixed at the first request.
   */
  private dispatcher: Pool;

  constructor(
    readonly kubeConfig: KubeConfig,
    private readonly observe: ResponseObserver = () => undefined,
    private readonly limiter?: RequestLimiter,
    private readonly options: KubeClientOptions = {},
  ) {}

  private pooled(context: RequestContext): Pool {
    this.dispatcher ??= context.getDispatcher();
    return this.dispatcher;
  }

  /**
   * Takes a pool out of use after a request on it passed its deadline: its connection may be dead. Aborting the
   * request is not enough when the server speaks HTTP/2 (kube-apiserver does, and undici negotiates it): every
   * request shares the pool's one connection, and an aborted stream leaves that connection up, so every later request
   * would hang on it too. Later requests get a new pool; the old one closes once its in-flight requests have settled,
   * each within its own deadline, which also destroys its sockets. A live connection that was only slow costs a
   * reconnect.
   */
  private retire(pool: Pool): void {
    if (pool === undefined || this.dispatcher !== pool) return;
    this.dispatcher = undefined;
    pool.close().catch(() => undefined);
  }

  get server(): string {
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    return cluster.server.replace(/\/$/, '');
  }

  async request<T>(method: Verb, path: string, options: RequestOptions = {}): Promise<T> {
    await this.limiter?.wait(options.signal);
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const context = new RequestContext(url.toString(), method);
    await this.kubeConfig.applySecurityAuthentication(context);
    const headers: Record<string, string> = {
      ...context.getHeaders(),
      accept: CONTENT_TYPE.json,
      'user-agent': this.options.userAgent ?? compositorUserAgent(),
    };
    if (options.body !== undefined) headers['content-type'] = options.contentType ?? CONTENT_TYPE.json;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const pool = this.pooled(context);
    try {
      return await this.send<T>(method, url, { method, headers, body, dispatcher: pool }, options.signal);
    } catch (err) {
      if (err instanceof RequestTimeoutError) this.retire(pool);
      throw err;
    }
  }

  /**
   * One fetch under the request deadline, started here, after the rate limiter and authentication: only time spent
   * on the connection counts. The caller's signal still aborts it, reported as the caller's abort.
   */
  private async send<T>(method: Verb, url: URL, init: RequestInit, signal: AbortSignal | undefined): Promise<T> {
    const timeoutMs = this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const deadline = startDeadline(signal, timeoutMs, this.options.setTimer ?? realSetTimer);
    let response: Response | undefined;
    try {
      response = await fetch(url, { ...init, signal: deadline.signal });
      this.observe(method, String(response.status));
      const text = await response.text();
      const parsed: unknown = text === '' ? undefined : safeJson(text);
      if (!response.ok) throw toApiError(response.status, parsed, `${method} ${url.pathname}`);
      return parsed as T;
    } catch (err) {
      if (response === undefined) this.observe(method, 'error');
      if (deadline.expired()) throw new RequestTimeoutError(method, url.pathname, timeoutMs, { cause: err });
      throw err;
    } finally {
      deadline.release();
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function toApiError(status: number, body: unknown, what: string): ApiError {
  const statusObject = (typeof body === 'object' && body !== null ? body : {}) as { reason?: string; message?: string };
  const message = statusObject.message ?? (typeof body === 'string' && body !== '' ? body.trim() : `HTTP ${status}`);
  return new ApiError(status, statusObject.reason ?? '', `${what}: ${message}`, body);
}
