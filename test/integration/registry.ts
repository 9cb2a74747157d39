// A real OCI registry for the package tests: the CNCF distribution registry (built by `npm run controlplane:build`)
// on a free loopback port over plain http, which the OCI client tries after https for loopback hosts as
// go-containerregistry does. Authentication is always on, in one of two modes: htpasswd (Basic), or token
// authentication against a small token service in this process that checks Basic credentials and signs RS256 JWTs
// with a key made for the run (the registry trusts it through a JWKS file). Packages are pushed with crane from an
// OCI image layout written here, so they reach the registry through an independent client.
import bcrypt from 'bcryptjs';
import { execFile } from 'node:child_process';
import { createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveBinaries } from '../../e2e/controlplane/index.js';
import { freePort } from '../../e2e/controlplane/ports.js';
import { startServer, type ServerProcess } from '../../e2e/controlplane/process.js';
import { packageRoot } from '../../src/apis/index.js';
import { OCI_INDEX, type BuiltManifest } from '../unit/fakes/xpkg.js';

const run = promisify(execFile);

export type RegistryAuth = 'htpasswd' | 'token';

export interface RegistryUser {
  username: string;
  password: string;
}

export class TestRegistry {
  /** host:port of the registry. */
  host = '';
  readonly user: RegistryUser = { username: 'compositor', password: randomBytes(12).toString('hex') };
  private dir = '';
  private server: ServerProcess | undefined;
  private tokenService: TokenService | undefined;
  private crane = '';

  constructor(readonly auth: RegistryAuth) {}

  async start(): Promise<void> {
    const binaries = await resolveBinaries(['registry', 'crane']);
    this.crane = binaries.crane;
    this.dir = await mkdtemp(join(tmpdir(), `registry-${this.auth}-`));
    const port = await freePort();
    this.host = `127.0.0.1:${port}`;
    const authConfig = this.auth === 'htpasswd' ? await this.htpasswd() : await this.token();
    const config = [
      'version: 0.1',
      'log:',
      '  level: info',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(this.dir, 'storage')}`,
      'http:',
      `  addr: ${this.host}`,
      `  secret: ${randomBytes(16).toString('hex')}`,
      'auth:',
      ...authConfig,
    ].join('\n');
    await writeFile(join(this.dir, 'config.yml'), `${config}\n`);
    // OTEL_TRACES_EXPORTER=none: the registry would otherwise export traces to a collector that is not there.
    this.server = startServer(
      `registry-${this.auth}`,
      '/usr/bin/env',
      ['OTEL_TRACES_EXPORTER=none', binaries.registry, 'serve', join(this.dir, 'config.yml')],
      join(this.dir, 'registry.log'),
    );
    await this.waitReady();
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    await this.tokenService?.stop();
    if (this.dir !== '') await rm(this.dir, { recursive: true, force: true });
  }

  /** Access-log lines of requests whose method and path match, e.g. ('GET', '/blobs/'). */
  requests(method: string, pathPart: string): string[] {
    const log = readFileSync(join(this.dir, 'registry.log'), 'utf8');
    return log.split('\n').filter((line) => line.includes(`"${method} /v2/`) && line.includes(pathPart));
  }

  /** Pushes an image or index under `repository:tag` with crane; returns the full reference by tag. */
  async push(manifest: BuiltManifest, repository: string, tag: string): Promise<string> {
    const layout = await mkdtemp(join(this.dir, 'layout-'));
    await writeLayout(layout, manifest);
    const dockerConfig = join(this.dir, 'docker');
    await mkdir(dockerConfig, { recursive: true });
    const auth = Buffer.from(`${this.user.username}:${this.user.password}`).toString('base64');
    await writeFile(join(dockerConfig, 'config.json'), JSON.stringify({ auths: { [this.host]: { auth } } }));
    const ref = `${this.host}/${repository}:${tag}`;
    const { stdout } = await run(this.crane, ['push', layout, ref], {
      env: { ...process.env, DOCKER_CONFIG: dockerConfig },
    });
    if (!stdout.trim().endsWith(manifest.digest)) {
      throw new Error(`cannot push ${ref}: crane printed ${stdout.trim()}, not ${manifest.digest}`);
    }
    return ref;
  }

  /** The log's last lines, for failure messages. */
  tail(): string {
    return this.server?.tail(30) ?? '';
  }

  private async htpasswd(): Promise<string[]> {
    const file = join(this.dir, 'htpasswd');
    await writeFile(file, `${this.user.username}:${bcrypt.hashSync(this.user.password, 5)}\n`);
    return ['  htpasswd:', '    realm: compositor-test', `    path: ${file}`];
  }

  private async token(): Promise<string[]> {
    this.tokenService = new TokenService(this.user, 'compositor-test-registry');
    await this.tokenService.start();
    const jwks = join(this.dir, 'jwks.json');
    await writeFile(jwks, JSON.stringify({ keys: [this.tokenService.jwk()] }));
    return [
      '  token:',
      `    realm: ${this.tokenService.url}/token`,
      '    service: compositor-test-registry',
      `    issuer: ${TokenService.ISSUER}`,
      `    jwks: ${jwks}`,
    ];
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + 30_000;
    let last = '';
    while (Date.now() < deadline) {
      if (this.server?.exited === true) break;
      try {
        const response = await fetch(`http://${this.host}/v2/`);
        if (response.status === 401) return;
        last = `status ${response.status}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`registry at ${this.host} did not answer 401 on /v2/ within 30 s (${last}):\n${this.tail()}`);
  }
}

/** An OCI image layout holding the manifest (an image, or an index and its images) and every blob. */
async function writeLayout(dir: string, manifest: BuiltManifest): Promise<void> {
  await writeFile(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  const index = {
    schemaVersion: 2,
    mediaType: OCI_INDEX,
    manifests: [{ mediaType: manifest.mediaType, digest: manifest.digest, size: manifest.bytes.length }],
  };
  await writeFile(join(dir, 'index.json'), JSON.stringify(index));
  await mkdir(join(dir, 'blobs', 'sha256'), { recursive: true });
  const write = async (m: BuiltManifest): Promise<void> => {
    await writeFile(join(dir, 'blobs', 'sha256', m.digest.slice(7)), m.bytes);
    for (const blob of m.blobs) await writeFile(join(dir, 'blobs', 'sha256', blob.digest.slice(7)), blob.bytes);
    for (const child of m.children) await write(child);
  };
  await write(manifest);
}

/**
 * The token service of the distribution spec's token authentication: Basic credentials in, a JWT granting the
 * requested actions out. No credentials or wrong ones get 401, so nothing is ever pulled anonymously.
 */
class TokenService {
  static readonly ISSUER = 'compositor-test-issuer';
  url = '';
  readonly requests: { scope: string; status: number }[] = [];
  private server: Server | undefined;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly kid = randomBytes(8).toString('hex');

  constructor(
    private readonly user: RegistryUser,
    private readonly service: string,
  ) {
    ({ privateKey: this.privateKey, publicKey: this.publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 }));
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    // The realm is named by host name: go-containerregistry (crane) and the client under test refuse a realm that
    // is a loopback IP literal other than the registry's own host:port.
    this.url = `http://localhost:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      if (this.server)
        this.server.close(() => {
          resolve();
        });
      else resolve();
    });
  }

  jwk(): Record<string, unknown> {
    return { ...this.publicKey.export({ format: 'jwk' }), kid: this.kid, alg: 'RS256', use: 'sig' };
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const scopes = url.searchParams.getAll('scope');
    const expected = `Basic ${Buffer.from(`${this.user.username}:${this.user.password}`).toString('base64')}`;
    const status = req.headers.authorization === expected ? 200 : 401;
    this.requests.push({ scope: scopes.join(' '), status });
    res.writeHead(status, { 'content-type': 'application/json' });
    if (status !== 200) {
      res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'wrong or missing credentials' }] }));
      return;
    }
    const token = this.sign(scopes);
    res.end(JSON.stringify({ token, access_token: token, expires_in: 300 }));
  }

  private sign(scopes: readonly string[]): string {
    const now = Math.floor(Date.now() / 1000);
    const access = scopes.map((scope) => {
      const [type = '', name = '', actions = ''] = scope.split(':');
      return { type, name, actions: actions.split(',').filter((a) => a !== '') };
    });
    const header = { alg: 'RS256', typ: 'JWT', kid: this.kid };
    const claims = {
      iss: TokenService.ISSUER,
      sub: this.user.username,
      aud: this.service,
      exp: now + 300,
      nbf: now - 10,
      iat: now,
      jti: randomBytes(8).toString('hex'),
      access,
    };
    const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const signingInput = `${encode(header)}.${encode(claims)}`;
    const signature = createSign('RSA-SHA256').update(signingInput).sign(this.privateKey).toString('base64url');
    return `${signingInput}.${signature}`;
  }
}

/** The upstream package data (../shared/packages, or $COMPOSITOR_PACKAGES_DIR), read at run time, never copied. */
export function packagesDir(): string {
  return process.env.COMPOSITOR_PACKAGES_DIR ?? join(packageRoot(), '..', 'shared', 'packages');
}

/** package.yaml of an upstream package: its crossplane.yaml followed by every object file, as `crossplane xpkg build` joins them. */
export function packageStream(name: string, objectFiles: readonly string[]): string {
  const read = (file: string): string => {
    try {
      return readFileSync(join(packagesDir(), name, file), 'utf8');
    } catch (err) {
      throw new Error(
        `cannot read upstream package data ${join(packagesDir(), name, file)}: ${(err as Error).message}`,
        { cause: err },
      );
    }
  };
  return [read('crossplane.yaml'), ...objectFiles.map(read)].map((doc) => doc.trimEnd()).join('\n---\n') + '\n';
}
