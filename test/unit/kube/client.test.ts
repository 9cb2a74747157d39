import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  constants as http2,
  createSecureServer,
  type ClientHttp2Stream,
  type Http2SecureServer,
  type Http2Session,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { ManualClock, type Timer } from '../../../src/base/index.js';
import { AUTH_HEADERS_TTL_MS } from '../../../src/kube/client.js';
import {
  ApiError,
  DEFAULT_REQUEST_TIMEOUT_MS,
  KubeClient,
  RequestTimeoutError,
  type RequestLimiter,
} from '../../../src/kube/index.js';

/** A clock whose timers the test fires by hand (the last one armed): virtual time, no waiting. */
class ManualTimer extends ManualClock {
  armed: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  override setTimer(fn: () => void, ms: number): Timer {
    const timer = { fn, ms, cancelled: false };
    this.armed.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }
  fire(): void {
    const timer = this.armed.at(-1);
    if (!timer || timer.cancelled) throw new Error('no deadline armed');
    timer.fn();
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A local HTTP server standing in for the API server, answering each request with the next scripted handler, and
 * recording its connections so a test can see which socket a request used and when the client dropped it.
 */
class ScriptedServer {
  readonly sockets: Socket[] = [];
  readonly closed = new Set<Socket>();
  private readonly handlers: Handler[] = [];
  private readonly arrivals: (() => void)[] = [];
  private received = 0;
  private server: Server | undefined;
  port = 0;

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      this.received++;
      this.arrivals.shift()?.();
      const handler = this.handlers.shift() ?? ((_, r) => r.end('{}'));
      handler(req, res);
    });
    server.on('connection', (socket: Socket) => {
      this.sockets.push(socket);
      socket.on('close', () => this.closed.add(socket));
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address !== 'object') throw new Error('no port');
    this.port = address.port;
    return this;
  }

  next(handler: Handler): void {
    this.handlers.push(handler);
  }

  /** Resolves when the server has received `count` requests in all. */
  receivedCount(count: number): Promise<void> {
    if (this.received >= count) return Promise.resolve();
    return new Promise((resolve) => {
      this.arrivals.push(() => {
        void this.receivedCount(count).then(resolve);
      });
    });
  }

  /** Resolves when the socket is closed (by either side). */
  closedSocket(socket: Socket | undefined): Promise<void> {
    if (!socket) return Promise.reject(new Error('no such socket'));
    if (socket.destroyed || this.closed.has(socket)) return Promise.resolve();
    return new Promise((resolve) => {
      socket.once('close', () => {
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  }
}

function clientFor(
  port: number,
  timer: ManualTimer,
  requestTimeoutMs?: number,
  scheme = 'http',
  limiter?: RequestLimiter,
): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `${scheme}://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new KubeClient(kc, () => undefined, limiter, {
    requestTimeoutMs,
    clock: timer,
    // Its probe timers would run on this clock too; it has tests of its own.
    connectionCheck: false,
  });
}

const hold: Handler = () => undefined;

// Tests wait for events (a request arriving, a socket closing), never for time; a missing event fails on mocha's
// timeout.
describe('kube/KubeClient request deadline', () => {
  let server: ScriptedServer;
  let timer: ManualTimer;

  beforeEach(async () => {
    server = await new ScriptedServer().start();
    timer = new ManualTimer();
  });

  afterEach(async () => {
    await server.stop();
  });

  it('fails a request that gets no response with RequestTimeoutError, and retries on a fresh connection', async () => {
    const client = clientFor(server.port, timer);
    await client.request('GET', '/api/v1/namespaces/a');
    let hungSocket: Socket | undefined;
    server.next((req) => (hungSocket = req.socket));
    const hung = client.request('GET', '/api/v1/namespaces/b').catch((err: unknown) => err);
    await server.receivedCount(2);
    timer.fire();
    const err = await hung;
    expect(err).to.be.instanceOf(RequestTimeoutError);
    const timeout = err as RequestTimeoutError;
    expect([timeout.method, timeout.path, timeout.timeoutMs]).to.deep.equal([
      'GET',
      '/api/v1/namespaces/b',
      DEFAULT_REQUEST_TIMEOUT_MS,
    ]);
    expect(timeout.cause).to.be.instanceOf(Error);
    await server.closedSocket(hungSocket);
    let retrySocket: Socket | undefined;
    server.next((req, res) => {
      retrySocket = req.socket;
      res.end('{"kind":"Namespace"}');
    });
    expect(await client.request('GET', '/api/v1/namespaces/c')).to.deep.equal({ kind: 'Namespace' });
    expect(retrySocket, 'the retry runs on another connection').to.not.equal(hungSocket);
  });

  it('covers the response body: a body that stops midway fails too, and its socket is dropped', async () => {
    const client = clientFor(server.port, timer, 2_000);
    server.next((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[');
    });
    const hung = client.request('GET', '/api/v1/configmaps').catch((err: unknown) => err);
    await server.receivedCount(1);
    expect(timer.armed.map((t) => t.ms)).to.deep.equal([2_000]);
    timer.fire();
    expect(await hung).to.be.instanceOf(RequestTimeoutError);
    expect(server.sockets).to.have.length(1);
    await server.closedSocket(server.sockets[0]);
  });

  it("reports the caller's own abort as it is, not as a timeout", async () => {
    const client = clientFor(server.port, timer);
    server.next(hold);
    const abort = new AbortController();
    const hung = client.request('GET', '/api/v1/pods', { signal: abort.signal }).catch((err: unknown) => err);
    await server.receivedCount(1);
    abort.abort();
    const err = await hung;
    expect(err).to.not.be.instanceOf(RequestTimeoutError);
    expect((err as Error).name).to.equal('AbortError');
    expect(timer.armed[0]?.cancelled, 'the deadline is cancelled once the request settles').to.equal(true);
  });

  it('cancels the deadline of a request that completed, error statuses included', async () => {
    const client = clientFor(server.port, timer);
    server.next((_, res) => {
      res.statusCode = 404;
      res.end('{"kind":"Status","reason":"NotFound","message":"gone"}');
    });
    await client.request('GET', '/api/v1/namespaces/x').catch(() => undefined);
    await client.request('GET', '/api/v1/namespaces/y');
    expect(timer.armed.map((t) => t.cancelled)).to.deep.equal([true, true]);
  });

  it('sets no deadline when requestTimeoutMs is 0', async () => {
    const client = clientFor(server.port, timer, 0);
    await client.request('GET', '/api/v1/namespaces/z');
    expect(timer.armed).to.deep.equal([]);
  });
});

/** A self-signed certificate for 127.0.0.1, made with openssl (node:crypto cannot issue certificates). */
function selfSigned(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'compositor-h2-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'pipe' },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An HTTP/2-only TLS server, as kube-apiserver is to undici: every request of a pool shares one session, and an
 * aborted request only resets its stream. The first request is held unanswered while `holdFirst` is set.
 */
class H2Server {
  readonly sessions: Http2Session[] = [];
  readonly requests: { session: Http2Session | undefined; stream: ServerHttp2Stream }[] = [];
  holdFirst = true;
  /**
   * The requests (numbered from 1) answered with a graceful GOAWAY (code 0) that names the one before as the last
   * processed, as kube-apiserver sends when it closes a connection while a new request is on its way.
   */
  goAwayOn = new Set<number>();
  /** The requests (numbered from 1) answered with response headers only, their body held. */
  headersOnly = new Set<number>();
  private server: Http2SecureServer | undefined;
  private readonly arrivals: (() => void)[] = [];
  port = 0;

  async start(tls: { key: Buffer; cert: Buffer }): Promise<this> {
    const server = createSecureServer({ ...tls, allowHTTP1: false });
    server.on('session', (session: Http2Session) => this.sessions.push(session));
    server.on('stream', (stream: ServerHttp2Stream) => {
      this.requests.push({ session: stream.session, stream });
      this.arrivals.shift()?.();
      // undici refuses the stream it was told went unprocessed: not an error of the server's.
      stream.on('error', () => undefined);
      if (this.goAwayOn.has(this.requests.length)) {
        stream.session?.goaway(0, Math.max(0, (stream.id ?? 0) - 2));
        return;
      }
      if (this.holdFirst && this.requests.length === 1) return;
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      if (this.headersOnly.has(this.requests.length)) return;
      stream.end('{"kind":"Namespace"}');
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address !== 'object') throw new Error('no port');
    this.port = address.port;
    return this;
  }

  /** Resolves when the server has received `count` requests in all. */
  receivedCount(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => {
      this.arrivals.push(() => {
        void this.receivedCount(count).then(resolve);
      });
    });
  }

  async stop(): Promise<void> {
    for (const session of this.sessions) session.destroy();
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  }
}

describe('kube/KubeClient over HTTP/2', () => {
  let tls: { key: Buffer; cert: Buffer };
  let server: H2Server;

  before(() => {
    tls = selfSigned();
  });

  beforeEach(async () => {
    server = await new H2Server().start(tls);
  });

  afterEach(async () => {
    await server.stop();
  });

  it('moves later requests off the session a request hung on, and closes that session', async () => {
    const timer = new ManualTimer();
    const client = clientFor(server.port, timer, undefined, 'https');
    const hung = client.request('GET', '/api/v1/namespaces/a').catch((err: unknown) => err);
    await server.receivedCount(1);
    const deadSession = server.requests[0]?.session;
    const deadClosed = new Promise<void>((resolve) => deadSession?.once('close', resolve));
    timer.fire();
    expect(await hung).to.be.instanceOf(RequestTimeoutError);
    // Without a new pool this request would be multiplexed onto the same session and hang as well.
    expect(await client.request('GET', '/api/v1/namespaces/b')).to.deep.equal({ kind: 'Namespace' });
    expect(server.requests[1]?.session, 'the next request runs on a new session').to.not.equal(deadSession);
    await deadClosed;
    expect(await client.request('GET', '/api/v1/namespaces/c')).to.deep.equal({ kind: 'Namespace' });
    expect(server.requests[2]?.session, 'and keeps using the new pool').to.equal(server.requests[1]?.session);
  });

  it('keeps the pool when a request ends for another reason', async () => {
    const timer = new ManualTimer();
    const client = clientFor(server.port, timer, undefined, 'https');
    const abort = new AbortController();
    const aborted = client
      .request('GET', '/api/v1/namespaces/a', { signal: abort.signal })
      .catch((err: unknown) => err);
    await server.receivedCount(1);
    abort.abort();
    expect(await aborted).to.not.be.instanceOf(RequestTimeoutError);
    await client.request('GET', '/api/v1/namespaces/b');
    expect(server.requests[1]?.session, 'same session').to.equal(server.requests[0]?.session);
  });

  describe('when a response arrives after its request was aborted', () => {
    /**
     * The streams node:http2 creates on the client, as it announces them: `aborting` is aborted as soon as undici
     * has opened its stream (in a microtask, as a signal firing on a loaded event loop would), before the stream's
     * 'finish'. `orphan` resolves when node makes a stream for headers the server sent on a stream it no longer
     * tracks (they have no :method, a request's always do).
     */
    class ClientStreams {
      readonly aborting = new AbortController();
      session: Http2Session | undefined;
      readonly orphan: Promise<void>;
      private sawOrphan: () => void = () => undefined;
      private readonly listener = (message: unknown): void => {
        const { stream, headers } = message as { stream: ClientHttp2Stream; headers: IncomingHttpHeaders };
        if (headers[':method'] === undefined) this.sawOrphan();
        else if (headers[':path'] === this.path) {
          this.session = stream.session;
          queueMicrotask(() => {
            this.aborting.abort();
          });
        }
      };

      constructor(private readonly path: string) {
        this.orphan = new Promise((resolve) => (this.sawOrphan = resolve));
        subscribe('http2.client.stream.created', this.listener);
      }

      stop(): void {
        unsubscribe('http2.client.stream.created', this.listener);
      }
    }

    let streams: ClientStreams;

    beforeEach(() => {
      server.holdFirst = false;
      server.headersOnly = new Set([2]);
      streams = new ClientStreams('/api/v1/namespaces/b');
    });

    afterEach(() => {
      streams.stop();
    });

    /** A client whose session is up (so undici opens the next stream at once) and whose second request is aborted. */
    async function abortedSecond(): Promise<ServerHttp2Stream> {
      const client = clientFor(server.port, new ManualTimer(), undefined, 'https');
      await client.request('GET', '/api/v1/namespaces/a');
      const aborted = client.request('GET', '/api/v1/namespaces/b', { signal: streams.aborting.signal });
      expect(((await aborted.catch((err: unknown) => err)) as Error).name).to.equal('AbortError');
      await server.receivedCount(2);
      const answered = server.requests[1]?.stream;
      if (answered === undefined) throw new Error('no second request');
      return answered;
    }

    // Without resetOrphanedStreams (client.ts): "Uncaught SocketError: other side closed", as the process crashed.
    it('crashes nothing when the server then closes the connection', async () => {
      const answered = await abortedSecond();
      // The orphan made, or no orphan at all should undici or node one day send the abort's reset.
      await Promise.race([streams.orphan, new Promise((resolve) => answered.once('close', resolve))]);
      const closed = new Promise((resolve) => streams.session?.once('close', resolve));
      // As kube-apiserver restarting does: undici fails the connection with SocketError 'other side closed'.
      for (const session of server.sessions) session.destroy();
      await closed;
    });

    it('resets its stream, so the server stops sending it', async () => {
      const answered = await abortedSecond();
      await new Promise((resolve) => answered.once('close', resolve));
      expect(answered.rstCode).to.equal(http2.NGHTTP2_CANCEL);
    });
  });

  describe('after a graceful GOAWAY', () => {
    beforeEach(() => {
      server.holdFirst = false;
    });

    for (const [method, contentType] of [
      ['PATCH', 'application/merge-patch+json'],
      ['PATCH', 'application/apply-patch+yaml'],
      ['PUT', undefined],
      ['POST', undefined],
    ] as const) {
      it(`sends a ${[method, contentType].filter(Boolean).join(' ')} the GOAWAY names unprocessed once more, on a new connection`, async () => {
        server.goAwayOn = new Set([2]);
        const client = clientFor(server.port, new ManualTimer(), undefined, 'https');
        await client.request('GET', '/api/v1/namespaces/a');
        const answer = await client.request(method, '/api/v1/namespaces/a', { body: { metadata: {} }, contentType });
        expect(answer).to.deep.equal({ kind: 'Namespace' });
        expect(server.requests, 'turned away once, then answered').to.have.length(3);
        expect(server.requests[2]?.session, 'the repeat runs on a new session').to.not.equal(
          server.requests[1]?.session,
        );
      });
    }
  });
});

/** A limiter that lets every request through at once and counts them, with separate budgets counted apart. */
class CountingLimiter implements RequestLimiter {
  waits = 0;
  readonly separated: CountingLimiter[] = [];
  wait(): Promise<void> {
    this.waits++;
    return Promise.resolve();
  }
  separate(): CountingLimiter {
    const budget = new CountingLimiter();
    this.separated.push(budget);
    return budget;
  }
}

describe('kube/KubeClient request budgets', () => {
  let server: ScriptedServer;

  beforeEach(async () => {
    server = await new ScriptedServer().start();
  });

  afterEach(async () => {
    await server.stop();
  });

  it("waits on the budget a request names instead of the client's own, one of the client's limits", async () => {
    const own = new CountingLimiter();
    const client = clientFor(server.port, new ManualTimer(), undefined, 'http', own);
    const budget = client.separateBudget();
    expect(budget, "a separate budget of the client's limiter").to.equal(own.separated[0]);
    await client.request('GET', '/api/v1/namespaces/a');
    await client.request('POST', '/api/v1/namespaces/a/events', { body: {}, limiter: budget });
    await client.request('POST', '/api/v1/namespaces/a/events', { body: {}, limiter: budget });
    expect(own.waits, "the client's own budget").to.equal(1);
    expect(own.separated[0]?.waits, 'the separate budget').to.equal(2);
  });

  it('has no separate budget when it has no limits', () => {
    expect(clientFor(server.port, new ManualTimer()).separateBudget()).to.equal(undefined);
  });
});

describe('kube/KubeClient authentication headers', () => {
  let server: ScriptedServer;

  beforeEach(async () => {
    server = await new ScriptedServer().start();
  });

  afterEach(async () => {
    await server.stop();
  });

  /** A client whose kubeconfig counts how often client-node is asked for the authentication of a request. */
  function counted(
    user: Record<string, unknown>,
    clock = new ManualClock(),
  ): { client: KubeClient; asked: () => number } {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${server.port}`, skipTLSVerify: true }],
      users: [{ name: 'u', ...user }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    let asked = 0;
    const apply = kc.applySecurityAuthentication.bind(kc);
    kc.applySecurityAuthentication = (context) => {
      asked++;
      return apply(context);
    };
    return { client: new KubeClient(kc, () => undefined, undefined, { clock }), asked: () => asked };
  }

  it('asks client-node once for credentials written in the kubeconfig, and sends them with every request', async () => {
    const seen: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++)
      server.next((req, res) => res.end(JSON.stringify({ auth: (seen.push(req.headers.authorization), 1) })));
    const { client, asked } = counted({ token: 'static' });
    for (let i = 0; i < 3; i++) await client.request('GET', '/api/v1/namespaces');
    expect(asked()).to.equal(1);
    expect(seen).to.deep.equal(['Bearer static', 'Bearer static', 'Bearer static']);
  });

  it('asks again after a while for credentials that renew (a token file), and at once after a 401', async () => {
    const clock = new ManualClock();
    const { client, asked } = counted(
      { authProvider: { name: 'tokenFile', config: { tokenFile: '/dev/null' } } },
      clock,
    );
    await client.request('GET', '/api/v1/namespaces');
    await client.request('GET', '/api/v1/namespaces');
    expect(asked()).to.equal(1);
    clock.advance(AUTH_HEADERS_TTL_MS);
    await client.request('GET', '/api/v1/namespaces');
    expect(asked()).to.equal(2);
    server.next((_, res) => {
      res.statusCode = 401;
      res.end('{"kind":"Status","reason":"Unauthorized","message":"Unauthorized"}');
    });
    expect(await client.request('GET', '/api/v1/namespaces').catch((err: unknown) => err)).to.be.instanceOf(ApiError);
    await client.request('GET', '/api/v1/namespaces');
    expect(asked()).to.equal(3);
  });
});
