// One conversation with one repository of one registry: the distribution spec's ping (`GET /v2/`) picks the URL
// scheme and learns how the registry authenticates; a Bearer challenge sends the client to the token service
// (with Basic credentials, an identity token, or anonymously), a Basic challenge sends the credentials on every
// request. A 401 later in the conversation (an expired token, a new scope) gets one fresh token and one retry.
import { parseChallenge, type Challenge } from './challenge.js';
import type { Credentials } from './credentials.js';
import { RegistryAuthError, RegistryUnreachableError } from './errors.js';
import { readSmallJson, responseError, send, type Fetch, type RequestRecord } from './http.js';
import { isPrivateOrLinkLocal } from './addresses.js';
import { schemesFor, type Reference } from './reference.js';

export interface SessionOptions {
  fetch: Fetch;
  userAgent: string;
  credentials?: Credentials;
  onRequest?: (record: RequestRecord) => void;
}

export interface RequestOptions {
  method?: 'GET' | 'HEAD';
  accept?: readonly string[];
  signal?: AbortSignal;
}

/** The client_id Docker's own client sends with an identity token; token services expect one. */
const CLIENT_ID = 'compositor';

export class RegistrySession {
  private base: string | undefined;
  private challenge: Challenge | undefined;
  private authorization: string | undefined;

  constructor(
    private readonly ref: Reference,
    private readonly options: SessionOptions,
  ) {}

  /** Sends a request under `/v2/<repository>/`; a response other than 2xx is thrown as a typed error. */
  async request(path: string, options: RequestOptions = {}): Promise<Response> {
    const base = await this.ping(options.signal);
    const url = `${base}/v2/${this.ref.repository}/${path}`;
    let response = await this.send(url, options);
    const challenge = response.status === 401 ? this.retryChallenge(response) : undefined;
    if (challenge !== undefined) {
      // A token that expired, a scope the token lacks, or a registry whose ping needed no credentials but whose
      // repository does: authenticate as this challenge asks, and retry once.
      await response.body?.cancel();
      this.challenge = challenge;
      await this.authenticate(options.signal, challenge.params.scope);
      response = await this.send(url, options);
    }
    if (!response.ok) throw await responseError(options.method ?? 'GET', url, response);
    return response;
  }

  /** The challenge worth one more try: a bearer token to fetch, or Basic credentials not sent yet. */
  private retryChallenge(response: Response): Challenge | undefined {
    const challenge = parseChallenge(response.headers.get('www-authenticate')) ?? this.challenge;
    if (challenge?.scheme === 'bearer') return challenge;
    const unsent = this.authorization === undefined && this.options.credentials?.username !== undefined;
    return challenge?.scheme === 'basic' && unsent ? challenge : undefined;
  }

  private async send(url: string, options: RequestOptions): Promise<Response> {
    const method = options.method ?? 'GET';
    const headers: Record<string, string> = { 'user-agent': this.options.userAgent };
    if (options.accept !== undefined) headers.accept = options.accept.join(', ');
    if (this.authorization !== undefined) headers.authorization = this.authorization;
    const response = await send(this.options.fetch, url, { method, headers, signal: options.signal ?? null });
    this.options.onRequest?.({ method, url, status: response.status });
    return response;
  }

  private async ping(signal: AbortSignal | undefined): Promise<string> {
    if (this.base !== undefined) return this.base;
    const failures: RegistryUnreachableError[] = [];
    for (const scheme of schemesFor(this.ref.registry)) {
      const base = `${scheme}://${this.ref.registry}`;
      let response: Response;
      try {
        response = await send(this.options.fetch, `${base}/v2/`, { method: 'GET', signal: signal ?? null });
      } catch (err) {
        if (!(err instanceof RegistryUnreachableError)) throw err;
        failures.push(err);
        continue;
      }
      this.options.onRequest?.({ method: 'GET', url: `${base}/v2/`, status: response.status });
      await response.body?.cancel();
      this.base = base;
      if (response.status === 401) {
        this.challenge = parseChallenge(response.headers.get('www-authenticate'));
        await this.authenticate(signal, undefined);
      }
      return base;
    }
    // Every attempt is named: a TLS failure over https is the news when the http fallback is merely refused.
    const detail = failures.map((f) => f.message).join('; ');
    throw new RegistryUnreachableError(`cannot reach registry ${this.ref.registry}: ${detail}`, { cause: failures[0] });
  }

  private async authenticate(signal: AbortSignal | undefined, scope: string | undefined): Promise<void> {
    const credentials = this.options.credentials;
    if (this.challenge?.scheme === 'basic') {
      if (credentials?.username !== undefined) {
        const pair = `${credentials.username}:${credentials.password ?? ''}`;
        this.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
      }
      return;
    }
    if (this.challenge?.scheme !== 'bearer') return;
    if (credentials?.registryToken !== undefined) {
      this.authorization = `Bearer ${credentials.registryToken}`;
      return;
    }
    const token = await this.fetchToken(this.challenge, scope ?? `repository:${this.ref.repository}:pull`, signal);
    this.authorization = `Bearer ${token}`;
  }

  private async fetchToken(challenge: Challenge, scope: string, signal: AbortSignal | undefined): Promise<string> {
    const realm = challenge.params.realm;
    if (realm === undefined || realm === '') {
      throw new RegistryAuthError(401, `registry ${this.ref.registry} asked for a bearer token but named no realm`);
    }
    const refused = realmProblem(realm, this.base ?? '');
    if (refused !== undefined) {
      throw new RegistryAuthError(401, `invalid realm in www-authenticate from ${this.ref.registry}: ${refused}`);
    }
    const service = challenge.params.service ?? '';
    const credentials = this.options.credentials;
    const init = tokenRequest({ service, scope, ...(credentials ? { credentials } : {}) });
    const url = init.method === 'GET' ? `${realm}?${init.query}` : realm;
    const response = await send(this.options.fetch, url, { ...init.request, signal: signal ?? null });
    this.options.onRequest?.({ method: init.method, url, status: response.status });
    if (!response.ok) throw await tokenError(init.method, url, response, scope);
    const token = tokenOf(await readSmallJson(response));
    if (token === undefined) {
      throw new RegistryAuthError(401, `token service ${realm} answered without a token for ${scope}`);
    }
    return token;
  }
}

/**
 * Why a token realm may not be used, as go-containerregistry's validateRealmURL decides: the credentials go there,
 * so a registry may not send them over http unless it is itself spoken to over http, nor to a private or
 * link-local address (the cloud metadata service, a cluster-internal endpoint) other than its own host.
 */
export function realmProblem(realm: string, registryBase: string): string | undefined {
  let url: URL;
  try {
    url = new URL(realm);
  } catch {
    return `realm "${realm}" is not a URL`;
  }
  const insecure = registryBase.startsWith('http://');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && insecure)) {
    return `realm scheme "${url.protocol.slice(0, -1)}" not allowed; must be https (or http for insecure registries)`;
  }
  if (registryBase !== '' && url.host === new URL(registryBase).host) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isPrivateOrLinkLocal(host) ? `realm host "${host}" is a private or link-local address` : undefined;
}

/** The token of a token service's answer: `token`, or OAuth2's `access_token`. */
function tokenOf(body: unknown): string | undefined {
  const { token, access_token } = (body ?? {}) as { token?: unknown; access_token?: unknown };
  if (typeof token === 'string' && token !== '') return token;
  return typeof access_token === 'string' && access_token !== '' ? access_token : undefined;
}

async function tokenError(method: string, url: string, response: Response, scope: string): Promise<Error> {
  const err = await responseError(method, url, response);
  if (err instanceof RegistryAuthError) {
    return new RegistryAuthError(err.status, `cannot get a token for ${scope}: ${err.message}`);
  }
  return err;
}

interface TokenRequest {
  method: 'GET' | 'POST';
  query: string;
  request: RequestInit;
}

/** An identity token is exchanged with an OAuth2 POST; user and password go as Basic on a GET, as Docker does. */
function tokenRequest(args: { service: string; scope: string; credentials?: Credentials }): TokenRequest {
  const { service, scope, credentials } = args;
  if (credentials?.identityToken !== undefined) {
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      service,
      client_id: CLIENT_ID,
      scope,
      refresh_token: credentials.identityToken,
    });
    return {
      method: 'POST',
      query: '',
      request: {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      },
    };
  }
  const headers: Record<string, string> = {};
  if (credentials?.username !== undefined) {
    const pair = `${credentials.username}:${credentials.password ?? ''}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  const query = new URLSearchParams({ service, scope }).toString();
  return { method: 'GET', query, request: { method: 'GET', headers } };
}
