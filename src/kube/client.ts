import { RequestContext, type KubeConfig } from '@kubernetes/client-node';
import { fetch, type RequestInit, type Response } from 'undici';
import { monotonicClock, type Clock } from '../base/index.js';
import { ConnectionHealth } from './connectionHealth.js';
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
import { readWatchStream, type RawWatchEvent } from './watchStream.js';

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
   * retire). Watches (watch()) have no deadline: the health check and the informer's silence deadline cover them.
   */
  requestTimeoutMs?: number;
  /** Schedules the deadline; tests fire it by hand. */
  setTimer?: SetTimer;
  /** The User-Agent of every request; default compositor's own (identity.ts). */
  userAgent?: string;
  /**
   * The health check of the connection pool (connectionHealth.ts): read idle time before a probe and the probe's
   * timeout, or false for none. Default DEFAULT_READ_IDLE_MS and DEFAULT_PING_TIMEOUT_MS.
   */
  health?: { readIdleMs?: number; pingTimeoutMs?: number } | false;
  /** The health check's clock; tests step a ManualClock. */
  clock?: Clock;
}

/** How a watch ends: `onDone(null)` for a clean end of the stream, otherwise with the error. */
export interface WatchStreamHandlers {
  onEvent(event: RawWatchEvent): void;
  onDone(err: unknown): void;
}

/** The pool's connection went unanswered (connectionHealth.ts): every request and watch on it fails with this. */
export class DeadConnectionError extends Error {
  constructor(server: string, options?: ErrorOptions) {
    super(`cannot reach ${server}: no reply to a probe, connection dropped`, options);
    this.name = 'DeadConnectionError';
  }
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
  /** The health check of `dispatcher`, when it is a pool of our own (not undici's global one). */
  private health: ConnectionHealth | undefined;

  constructor(
    readonly kubeConfig: KubeConfig,
    private readonly observe: ResponseObserver = () => undefined,
    private readonly limiter?: RequestLimiter,
    private readonly options: KubeClientOptions = {},
  ) {}

  private pooled(context: RequestContext): Pool {
    if (this.dispatcher === undefined) {
      const pool = context.getDispatcher();
      this.dispatcher = pool;
      this.health = pool === undefined ? undefined : this.checkHealth(pool);
    }
    return this.dispatcher;
  }

  private checkHealth(pool: NonNullable<Pool>): ConnectionHealth | undefined {
    const settings = this.options.health;
    if (settings === false) return undefined;
    return new ConnectionHealth({
      ...settings,
      clock: this.options.clock ?? monotonicClock,
      probe: (signal) => this.probe(pool, signal),
      onDead: () => {
        this.retire(pool, new DeadConnectionError(this.server));
      },
    });
  }

  /**
   * Any reply on the pool proves its connection alive, so the probe carries no credentials and its status does not
   * matter. /livez/ping is answered by kube-apiserver's handler chain without touching etcd, and health checks sit in
   * the exempt priority level of API priority and fairness, so a busy server does not queue it.
   */
  private async probe(pool: NonNullable<Pool>, signal: AbortSignal): Promise<void> {
    const response = await fetch(`${this.server}/livez/ping`, {
      dispatcher: pool,
      signal,
      headers: { 'user-agent': this.options.userAgent ?? compositorUserAgent() },
    });
    await response.arrayBuffer();
  }

  /**
   * Takes a pool out of use after a request on it passed its deadline, or its health check found it dead. Aborting
   * the request is not enough when the server speaks HTTP/2 (kube-apiserver does, and undici negotiates it): every
   * request and watch shares the pool's one connection, and an aborted stream leaves that connection up, so every
   * later request would hang on it too. Later requests get a new pool. A pool found dead is destroyed at once, failing
   * every request and watch on it with `dead` (they retry on the new pool); after a deadline the old pool closes once
   * its in-flight requests have settled, each within its own deadline. A live connection that was only slow costs a
   * reconnect.
   */
  private retire(pool: Pool, dead?: DeadConnectionError): void {
    if (pool === undefined || this.dispatcher !== pool) return;
    this.dispatcher = undefined;
    this.health?.stop();
    this.health = undefined;
    if (dead) pool.destroy(dead).catch(() => undefined);
    else pool.close().catch(() => undefined);
  }

  get server(): string {
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    return cluster.server.replace(/\/$/, '');
  }

  async request<T>(method: Verb, path: string, options: RequestOptions = {}): Promise<T> {
    await this.limiter?.wait(options.signal);
    const { url, headers, pool, health } = await this.prepare(method, path, options.query);
    if (options.body !== undefined) headers['content-type'] = options.contentType ?? CONTENT_TYPE.json;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const close = health?.open();
    try {
      return await this.send<T>(method, url, { method, headers, body, dispatcher: pool }, { ...options, health });
    } catch (err) {
      if (err instanceof RequestTimeoutError) this.retire(pool);
      throw this.deadOr(health, err);
    } finally {
      close?.();
    }
  }

  /**
   * Watches `path` (`watch=true` is added to `query`) on the shared pool, so its connection is health-checked with
   * every other request's. Resolves once the response headers came, or the watch failed (reported to `onDone`);
   * `signal` stops it at any time, without an `onDone`. Not rate-limited and without a deadline: an idle watch is
   * silent until its timeoutSeconds, and the informer keeps its own silence deadline as a backstop.
   */
  async watch(
    path: string,
    query: RequestOptions['query'],
    handlers: WatchStreamHandlers,
    signal: AbortSignal,
  ): Promise<void> {
    const { url, headers, pool, health } = await this.prepare('GET', path, { ...query, watch: true });
    const close = health?.open();
    let failed: unknown = null;
    try {
      const response = await fetch(url, { method: 'GET', headers, dispatcher: pool, signal });
      health?.read();
      if (!response.ok || response.body === null) {
        const text = await response.text();
        throw toApiError(response.status, text === '' ? undefined : safeJson(text), `GET ${url.pathname}`);
      }
      const body = response.body;
      void readWatchStream(body, {
        onChunk: () => health?.read(),
        onEvent: (event) => {
          handlers.onEvent(event);
        },
      })
        .catch((err: unknown) => {
          failed = err;
        })
        .finally(() => {
          close?.();
          if (!signal.aborted) handlers.onDone(failed === null ? null : this.deadOr(health, failed));
        });
    } catch (err) {
      close?.();
      if (!signal.aborted) handlers.onDone(this.deadOr(health, err));
    }
  }

  /** A failure on a pool its health check found dead is reported as that, whatever undici made of it. */
  private deadOr(health: ConnectionHealth | undefined, err: unknown): unknown {
    if (health?.isDead !== true || err instanceof DeadConnectionError) return err;
    return new DeadConnectionError(this.server, { cause: err });
  }

  /** The URL, headers (authentication included) and pool of one request. */
  private async prepare(
    method: Verb,
    path: string,
    query: RequestOptions['query'] = {},
  ): Promise<{ url: URL; headers: Record<string, string>; pool: Pool; health: ConnectionHealth | undefined }> {
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const context = new RequestContext(url.toString(), method);
    await this.kubeConfig.applySecurityAuthentication(context);
    const headers: Record<string, string> = {
      ...context.getHeaders(),
      accept: CONTENT_TYPE.json,
      'user-agent': this.options.userAgent ?? compositorUserAgent(),
    };
    const pool = this.pooled(context);
    return { url, headers, pool, health: this.health };
  }

  /**
   * One fetch under the request deadline, started here, after the rate limiter and authentication: only time spent
   * on the connection counts. The caller's signal still aborts it, reported as the caller's abort.
   */
  private async send<T>(
    method: Verb,
    url: URL,
    init: RequestInit,
    { signal, health }: { signal?: AbortSignal; health: ConnectionHealth | undefined },
  ): Promise<T> {
    const timeoutMs = this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const deadline = startDeadline(signal, timeoutMs, this.options.setTimer ?? realSetTimer);
    let response: Response | undefined;
    try {
      response = await fetch(url, { ...init, signal: deadline.signal });
      health?.read();
      this.observe(method, String(response.status));
      const text = await response.text();
      health?.read();
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
