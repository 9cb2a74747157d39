// An in-memory registry of the distribution spec's pull API on a loopback port, with the authentication modes a
// real registry has: none, Basic, or Bearer tokens from its own token endpoint. Every request is logged, so tests
// can count what a pull downloaded.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PullSecret } from '../../../src/packages/oci/index.js';
import type { BuiltManifest } from './xpkg.js';

type Respond = (status: number, body?: Buffer | string, headers?: Record<string, string>) => void;

export type FakeAuth = { mode: 'none' } | { mode: 'basic' | 'bearer'; username: string; password: string };

export interface LoggedRequest {
  method: string;
  path: string;
  status: number;
}

export class FakeRegistry {
  readonly requests: LoggedRequest[] = [];
  readonly manifests = new Map<string, { bytes: Buffer; mediaType: string }>();
  readonly tags = new Map<string, string>();
  readonly blobs = new Map<string, Buffer>();
  /** Digests whose blob is served with its bytes altered, to test digest checks. */
  readonly corrupt = new Set<string>();
  private server: Server | undefined;
  private readonly tokens = new Set<string>();
  /** Answer the ping anonymously and challenge only repository requests, as some registries do. */
  openPing = false;
  /** Tags per page of a tags/list answer; more are paged with a Link header. */
  tagsPerPage = 1000;

  constructor(private readonly auth: FakeAuth = { mode: 'none' }) {}

  /** host:port once started. */
  host = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.host = `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.server?.close(() => {
        resolve();
      }),
    );
  }

  /** Stores an image (or an index and its children) and tags it. */
  push(manifest: BuiltManifest, tag?: string): void {
    this.manifests.set(manifest.digest, { bytes: manifest.bytes, mediaType: manifest.mediaType });
    for (const blob of manifest.blobs) this.blobs.set(blob.digest, blob.bytes);
    for (const child of manifest.children) this.push(child);
    if (tag !== undefined) this.tags.set(tag, manifest.digest);
  }

  count(method: string, pathPart: string): number {
    return this.requests.filter((r) => r.method === method && r.path.includes(pathPart)).length;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', `http://${this.host}`);
    const respond: Respond = (status, body, headers = {}) => {
      this.requests.push({ method: req.method ?? '', path: url.pathname, status });
      const length = body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {};
      res.writeHead(status, { ...headers, ...length });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (url.pathname === '/token') {
      this.token(req, url, respond);
    } else if (url.pathname === '/v2/' && this.openPing) {
      respond(200, '{}');
    } else if (!this.authorized(req)) {
      const challenge =
        this.auth.mode === 'basic'
          ? 'Basic realm="fake"'
          : `Bearer realm="http://${this.host}/token",service="fake-registry"`;
      respond(401, errorBody('UNAUTHORIZED', 'authentication required'), { 'www-authenticate': challenge });
    } else if (url.pathname === '/v2/') {
      respond(200, '{}');
    } else if (/^\/v2\/.+\/tags\/list$/.test(url.pathname)) {
      this.tagList(url, respond);
    } else {
      this.content(url.pathname, respond);
    }
  }

  /** The distribution spec's tag listing, sorted, paged after `last` with a Link header. */
  private tagList(url: URL, respond: Respond): void {
    const last = url.searchParams.get('last');
    const all = [...this.tags.keys()].sort();
    const rest = last === null ? all : all.filter((t) => t > last);
    const page = rest.slice(0, this.tagsPerPage);
    const more = rest.length > page.length && page.length > 0;
    const link: Record<string, string> = more
      ? { link: `<${url.pathname}?n=${this.tagsPerPage}&last=${page[page.length - 1] ?? ''}>; rel="next"` }
      : {};
    const name = url.pathname.slice('/v2/'.length, -'/tags/list'.length);
    respond(200, JSON.stringify({ name, tags: page }), { 'content-type': 'application/json', ...link });
  }

  private content(path: string, respond: Respond): void {
    const match = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(path);
    const [, , kind, ref = ''] = match ?? [];
    if (kind === 'blobs') {
      const blob = this.blobs.get(ref);
      if (!blob) {
        respond(404, errorBody('BLOB_UNKNOWN', 'blob unknown to registry'));
        return;
      }
      const served = this.corrupt.has(ref) ? Buffer.concat([blob, Buffer.from('!')]) : blob;
      respond(200, served, { 'content-type': 'application/octet-stream' });
      return;
    }
    const digest = ref.startsWith('sha256:') ? ref : this.tags.get(ref);
    const manifest = digest === undefined ? undefined : this.manifests.get(digest);
    if (kind !== 'manifests' || !manifest || digest === undefined) {
      respond(404, errorBody('MANIFEST_UNKNOWN', 'manifest unknown'));
      return;
    }
    respond(200, manifest.bytes, { 'content-type': manifest.mediaType, 'docker-content-digest': digest });
  }

  private authorized(req: IncomingMessage): boolean {
    const header = req.headers.authorization ?? '';
    if (this.auth.mode === 'none') return true;
    if (this.auth.mode === 'basic') return header === basic(this.auth.username, this.auth.password);
    return header.startsWith('Bearer ') && this.tokens.has(header.slice('Bearer '.length));
  }

  private token(req: IncomingMessage, url: URL, respond: Respond): void {
    if (this.auth.mode !== 'bearer' || req.headers.authorization !== basic(this.auth.username, this.auth.password)) {
      respond(401, errorBody('UNAUTHORIZED', 'bad credentials'));
      return;
    }
    const token = `token-${this.tokens.size}-${url.searchParams.get('scope') ?? ''}`;
    this.tokens.add(token);
    respond(200, JSON.stringify({ token }));
  }
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

function errorBody(code: string, message: string): string {
  return JSON.stringify({ errors: [{ code, message }] });
}

/** A dockerconfigjson pull Secret for a host, as `kubectl create secret docker-registry` makes one. */
export function pullSecret(host: string, username: string, password: string, name = 'pull'): PullSecret {
  const config = { auths: { [host]: { auth: Buffer.from(`${username}:${password}`).toString('base64') } } };
  return {
    metadata: { name },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}
