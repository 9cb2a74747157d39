import type { KubeConfig } from '@kubernetes/client-node';
// From its own module, not the package root, which loads client-node's generated API clients (slimClientNode.ts).
import { RequestContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { subscribe } from 'node:diagnostics_channel';
import { constants as http2, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { getGlobalDispatcher, type Dispatcher } from 'undici';
import { monotonicClock, type Clock } from '../base/index.js';
import { ConnectionCheck, type ConnectionCheckOptions } from './connectionCheck.js';
import { ApiError } from './errors.js';
import { compositorUserAgent } from './identity.js';
import type { RequestLimiter } from './rateLimiter.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, RequestTimeoutError, startDeadline } from './requestDeadline.js';

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
  /** The budget this request waits on instead of the client's own: see KubeClient.separateBudget. */
  limiter?: RequestLimiter;
}

/** The connection pool requests go through (undefined: undici's global one, for a plain-HTTP server). */
type Pool = ReturnType<RequestContext['getDispatcher']>;

/** One request as sent: everything but the deadline's signal, which send() adds. */
interface SendInit {
  headers: Record<string, string>;
  body: string | undefined;
  dispatcher: Pool;
}

/** Called after every response (or transport failure, with code "error"), for rest_client metrics. */
export type ResponseObserver = (method: Verb, code: string) => void;

export interface KubeClientOptions {
  /**
   * Deadline of each request, from sending it until its body is read (default DEFAULT_REQUEST_TIMEOUT_MS, 0 for
   * none). A request past it fails with RequestTimeoutError, and later requests use a new connection pool (see
   * retire). Watches do not go through request(): they have their own silence deadline (src/watch/watchDeadline.ts).
   */
  requestTimeoutMs?: number;
  /** The User-Agent of every request; default compositor's own (identity.ts). */
  userAgent?: string;
  /**
   * The dead-connection check of the pool while requests wait (connectionCheck.ts): its timings, or false for none.
   */
  connectionCheck?:
    Pick<ConnectionCheckOptions, 'readIdleMs' | 'probeGraceMs' | 'verdictDelayMs' | 'roundTimeoutMs'> | false;
  /** The request deadlines' and the connection check's clock; tests step a ManualClock. */
  clock?: Clock;
}

/** How long authentication headers that may change (see KubeClient.authenticate) are reused. */
export const AUTH_HEADERS_TTL_MS = 10_000;

interface SendOptions {
  signal: AbortSignal | undefined;
  check: ConnectionCheck | undefined;
}

/** The pool's connection was found dead (connectionCheck.ts): the requests waiting on it fail with this. */
export class DeadConnectionError extends Error {
  constructor(server: string, options?: ErrorOptions) {
    super(`cannot reach ${server}: the connection went silent while a new one answered, connection dropped`, options);
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
   * tokens, are renewed as authenticate() says; only the connection settings are fixed at the first request.
   */
  private dispatcher: Pool;
  /** The dead-connection check of `dispatcher`, when it is a pool of our own (not undici's global one). */
  private check: ConnectionCheck | undefined;
  private readonly lostListeners = new Set<() => void>();
  /** The authentication headers of the last request that asked client-node for them (see authenticate). */
  private auth: { headers: Record<string, string>; until: number } | undefined;

  constructor(
    readonly kubeConfig: KubeConfig,
    private readonly observe: ResponseObserver = () => undefined,
    private readonly limiter?: RequestLimiter,
    private readonly options: KubeClientOptions = {},
  ) {
    resetOrphanedStreams();
  }

  /**
   * Calls `listener` each time the client found its connection dead and replaced it. Watches run on connections of
   * their own, most likely over the same dead path: the informers rewatch at once instead of waiting for their
   * silence deadline. Returns the function that removes the listener.
   */
  onConnectionLost(listener: () => void): () => void {
    this.lostListeners.add(listener);
    return () => {
      this.lostListeners.delete(listener);
    };
  }

  private pooled(context: RequestContext): { pool: Pool; check: ConnectionCheck | undefined } {
    if (this.dispatcher === undefined) {
      const pool = context.getDispatcher();
      this.dispatcher = pool;
      this.check = pool === undefined ? undefined : this.checkFor(pool);
    }
    return { pool: this.dispatcher, check: this.check };
  }

  private checkFor(pool: NonNullable<Pool>): ConnectionCheck | undefined {
    const settings = this.options.connectionCheck;
    if (settings === false) return undefined;
    return new ConnectionCheck({
      ...settings,
      clock: this.options.clock ?? monotonicClock,
      probePool: (signal) => this.ping(pool, signal),
      probeFresh: (signal) => this.pingFresh(pool, signal),
      onDead: () => {
        this.retire(pool, new DeadConnectionError(this.server));
        for (const listener of this.lostListeners) listener();
      },
    });
  }

  /**
   * Any reply proves a connection alive, so the probe carries no credentials and its status does not matter.
   * kube-apiserver answers /livez/ping in its handler chain without touching etcd, and health checks are exempt from
   * API priority and fairness, so a busy server does not queue it.
   */
  private async ping(pool: Pool, signal: AbortSignal): Promise<void> {
    const url = new URL(`${this.server}/livez/ping`);
    const response = await (pool ?? getGlobalDispatcher()).request({
      origin: url.origin,
      path: url.pathname,
      method: 'GET',
      signal,
      headers: { 'user-agent': this.options.userAgent ?? compositorUserAgent() },
    });
    await response.body.text();
  }

  /**
   * The same ping on a new connection (client-node hands out a new pool per context), closed afterwards. A
   * kubeconfig that hands out the pool in use again (the benchmarks' reusing one) has no new connection to offer:
   * the probe then fails, which condemns nothing.
   */
  private async pingFresh(pool: Pool, signal: AbortSignal): Promise<void> {
    const context = new RequestContext(`${this.server}/livez/ping`, 'GET');
    await this.kubeConfig.applySecurityAuthentication(context);
    const fresh = context.getDispatcher();
    if (fresh === pool || fresh === this.dispatcher) throw new Error('no new connection to compare with');
    try {
      await this.ping(fresh, signal);
    } finally {
      fresh?.destroy().catch(() => undefined);
    }
  }

  /**
   * Takes a pool out of use after a request on it passed its deadline: its connection may be dead. Aborting the
   * request is not enough when the server speaks HTTP/2 (kube-apiserver does, and undici negotiates it): every
   * request shares the pool's one connection, and an aborted stream leaves that connection up, so every later request
   * would hang on it too. Later requests get a new pool; the old one closes once its in-flight requests have settled,
   * each within its own deadline, which also destroys its sockets. A live connection that was only slow costs a
   * reconnect.
   */
  private retire(pool: Pool, dead?: DeadConnectionError): void {
    if (pool === undefined || this.dispatcher !== pool) return;
    this.dispatcher = undefined;
    this.auth = undefined; // the next request builds a new pool through client-node
    this.check?.stop();
    this.check = undefined;
    // A pool found dead fails what waits on it at once (they retry on the new pool); otherwise it closes once its
    // in-flight requests have settled, each within its own deadline.
    if (dead) pool.destroy(dead).catch(() => undefined);
    else pool.close().catch(() => undefined);
  }

  get server(): string {
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    return cluster.server.replace(/\/$/, '');
  }

  /**
   * A request budget with this client's limits and a bucket of its own (undefined when the client has no limits),
   * for requests passed as RequestOptions.limiter. client-go gives every REST client its own rate limiter, and
   * controller-runtime's event recorder writes through a REST client of its own: Crossplane's Events never wait
   * behind its reconciles' requests, nor they behind Events. compositor's EventRecorder uses one the same way.
   */
  separateBudget(): RequestLimiter | undefined {
    return this.limiter?.separate();
  }

  async request<T>(method: Verb, path: string, options: RequestOptions = {}): Promise<T> {
    await (options.limiter ?? this.limiter)?.wait(options.signal);
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const { auth, pool, check } = await this.authenticate(url, method);
    const headers: Record<string, string> = {
      ...auth,
      accept: CONTENT_TYPE.json,
      'user-agent': this.options.userAgent ?? compositorUserAgent(),
    };
    if (options.body !== undefined) headers['content-type'] = options.contentType ?? CONTENT_TYPE.json;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    return this.sendChecked<T>(method, url, { headers, body, dispatcher: pool }, { signal: options.signal, check });
  }

  /**
   * The authentication headers and the pool of a request. client-node's applySecurityAuthentication reads the
   * kubeconfig's CA and client certificate (from their files, when given as files) and builds a new connection pool
   * on every call, which was a twentieth of everything compositor allocated over a 1,000-XR burst; only its headers are
   * used after the first request. So they are kept: for good when they cannot change (a token or client certificate in
   * the kubeconfig itself), else for AUTH_HEADERS_TTL_MS, as a token from a file, an auth provider or an exec plugin
   * is renewed long before it expires (client-node re-reads a token file each minute). A 401 drops them.
   */
  private async authenticate(
    url: URL,
    method: Verb,
  ): Promise<{ auth: Record<string, string>; pool: Pool; check: ConnectionCheck | undefined }> {
    const now = (this.options.clock ?? monotonicClock).now();
    if (this.auth !== undefined && this.auth.until > now) {
      return { auth: this.auth.headers, pool: this.dispatcher, check: this.check };
    }
    const context = new RequestContext(url.toString(), method);
    await this.kubeConfig.applySecurityAuthentication(context);
    const headers = context.getHeaders();
    const user = this.kubeConfig.getCurrentUser();
    const fixed = user !== null && user.authProvider === undefined && user.exec === undefined;
    this.auth = { headers, until: fixed ? Infinity : now + AUTH_HEADERS_TTL_MS };
    const { pool, check } = this.pooled(context);
    return { auth: headers, pool, check };
  }

  /**
   * send() with the pool's connection check told of it, and the pool retired when the request passed its deadline.
   * A request a graceful HTTP/2 GOAWAY turned away unprocessed is sent again by undici itself, on a new connection:
   * its body is a string, which undici can replay (it cannot replay fetch()'s stream bodies, so patches caught in
   * kube-apiserver closing a connection used to fail with "fetch failed").
   */
  private async sendChecked<T>(method: Verb, url: URL, init: SendInit, on: SendOptions): Promise<T> {
    on.check?.opened();
    try {
      return await this.send<T>(method, url, init, on);
    } catch (err) {
      if (err instanceof RequestTimeoutError) this.retire(init.dispatcher);
      // Credentials the server no longer takes (a rotated token): the next request asks client-node afresh.
      if (err instanceof ApiError && err.status === 401) this.auth = undefined;
      // The pool's destruction fails the request with our error, or with one that has it as its cause.
      if (on.check?.isDead === true && !(err instanceof DeadConnectionError)) {
        throw new DeadConnectionError(this.server, { cause: err });
      }
      throw err;
    } finally {
      on.check?.closed();
    }
  }

  /**
   * One request under the request deadline, started here, after the rate limiter and authentication: only time spent
   * on the connection counts. The caller's signal still aborts it, reported as the caller's abort. undici's request()
   * rather than fetch(): fetch wraps every call in WHATWG Request, Headers and stream objects, 183 of the 1,192 MiB
   * compositor allocated over a 1,000-XR burst (bench/RESULTS.md); what goes on the wire is the same.
   */
  private async send<T>(method: Verb, url: URL, init: SendInit, { signal, check }: SendOptions): Promise<T> {
    const timeoutMs = this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const deadline = startDeadline(signal, timeoutMs, this.options.clock ?? monotonicClock);
    let status: number | undefined;
    try {
      const response = await (init.dispatcher ?? getGlobalDispatcher()).request({
        method,
        origin: url.origin,
        path: url.pathname + url.search,
        headers: init.headers,
        body: init.body,
        signal: deadline.signal,
      });
      status = response.statusCode;
      check?.read();
      this.observe(method, String(status));
      const text = await readBody(response.body, check);
      const parsed: unknown = text === '' ? undefined : safeJson(text);
      if (status < 200 || status > 299) throw toApiError(status, parsed, `${method} ${url.pathname}`);
      return parsed as T;
    } catch (err) {
      if (status === undefined) this.observe(method, 'error');
      if (deadline.expired()) throw new RequestTimeoutError(method, url.pathname, timeoutMs, { cause: err });
      throw err;
    } finally {
      deadline.release();
    }
  }
}

let orphansReset = false;

/**
 * Makes node:http2 reset, rather than keep, a stream it creates for a response whose request undici already
 * destroyed; once per process. Without this an aborted request can crash the process later.
 *
 * undici 8 aborts an HTTP/2 request (its signal fired: the caller's abort or our deadline) with `stream.close()` and
 * then, at once, `stream.destroy()` (the `abort` of writeH2 in node_modules/undici/lib/dispatcher/client-h2.js).
 * close() with its default code, NO_ERROR, on a stream whose writable side has ended but not yet finished (a request
 * just sent) leaves the RST_STREAM frame until the stream's 'finish' (closeStream in node's
 * lib/internal/http2/core.js); destroy() drops the stream's handle before that, so the reset is never sent. The API
 * server answers the request, and node, finding no stream for the HEADERS it receives (onSessionHeaders), makes a new
 * ClientHttp2Stream for them, with no listener, announced by a 'stream' event on the session that undici does not
 * listen to. It stays in the session until that closes: when the server closes the connection (kube-apiserver
 * restarting, which undici fails with SocketError 'other side closed') or a pool is destroyed with an error (retire,
 * for a dead connection), node destroys every stream of the session with that error, and this one emits 'error' with
 * nobody listening, an uncaught exception. The informer list that test/integration/watch.test.ts ('recovers after
 * kube-apiserver is killed') aborts left such a stream in each of 6 traced runs, and crashed the test 8 runs in 12
 * under CPU load.
 *
 * node announces every stream it creates on the diagnostics channel http2.client.stream.created, synchronously: the
 * ones request() makes with the request's headers, which always have :method (a pushed stream's too), the orphans
 * with the response's (or trailers'), which never do. An orphan gets an error listener at once and is reset with
 * CANCEL off nghttp2's call stack (as node defers its own clean-ups), which tells the server to stop sending it.
 */
function resetOrphanedStreams(): void {
  if (orphansReset) return;
  orphansReset = true;
  subscribe('http2.client.stream.created', (message) => {
    const { stream, headers } = message as { stream: ClientHttp2Stream; headers: IncomingHttpHeaders | undefined };
    if (headers === undefined || headers[':method'] !== undefined) return;
    stream.on('error', () => undefined);
    setImmediate(() => {
      if (stream.destroyed) return;
      stream.close(http2.NGHTTP2_CANCEL);
      stream.destroy();
    });
  });
}

/**
 * The body as text, telling the connection check of every chunk: a large response still arriving proves the
 * connection alive, and the probe's answer may be queued behind it on the same connection. Chunks are decoded once,
 * at the end, so a long list costs one string rather than one per chunk.
 */
function readBody(body: Dispatcher.ResponseData['body'], check: ConnectionCheck | undefined): Promise<string> {
  // Stream events rather than `for await`: an async iterator costs a promise and a result object per chunk.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (chunk: Buffer) => {
      check?.read();
      chunks.push(chunk);
    });
    body.once('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    body.once('error', reject);
  });
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
