// Pulls package images: resolves a reference to its manifest (through an index to the platform's child), then
// hands out layer blobs on request, each from the cache when it holds them intact, else downloaded, hashed and
// stored. Nothing is used that did not hash to the digest it was asked for by.
import { BlobCache, sha256 } from './cache.js';
import { credentialsFor, type KeyedCredentials } from './credentials.js';
import { NotInCacheError, PullError, TooLargeError, UnsupportedMediaTypeError } from './errors.js';
import { readLimited, type Fetch, type RequestRecord } from './http.js';
import {
  ACCEPTED_MANIFESTS,
  DEFAULT_PLATFORM,
  parseManifest,
  selectPlatform,
  type Descriptor,
  type ImageManifest,
  type Platform,
} from './manifest.js';
import { cachePlan, NOT_IN_CACHE, type CachePlan, type PullPolicy } from './pullPolicy.js';
import { formatReference, identifier, parseReference, type Reference } from './reference.js';
import { RegistrySession } from './session.js';
import { listTags } from './tags.js';

/** go-containerregistry's limit on a manifest's size (remote/fetcher.go, manifestLimit). */
export const DEFAULT_MAX_MANIFEST_BYTES = 100 * 1024 * 1024;
/** Crossplane's limit on a package's size (crossplane-runtime pkg/xpkg/client.go, maxPackageSize), per layer here. */
export const DEFAULT_MAX_LAYER_BYTES = 200 * 1024 * 1024;

export interface PullerOptions {
  /** The cache directory (Crossplane's --xpkg-cache-dir). */
  cacheDir: string;
  /** Defaults to the global fetch; pass one with a dispatcher to trust a CA bundle. */
  fetch?: Fetch;
  userAgent?: string;
  /** The index child to pull; linux/amd64 as in Crossplane. */
  platform?: Platform;
  maxManifestBytes?: number;
  maxLayerBytes?: number;
  /** Called for every HTTP request with its status, for metrics and tests. */
  onRequest?: (record: RequestRecord) => void;
}

export interface PullOptions {
  /** Credentials read from the package's packagePullSecrets (credentialsFromSecrets). */
  credentials?: readonly KeyedCredentials[];
  policy?: PullPolicy;
  signal?: AbortSignal;
}

/** A resolved image: its manifest, and its blobs on request. */
export interface PulledImage {
  reference: Reference;
  /** The digest the reference resolved to: the index's when it named an index. */
  digest: string;
  /** The digest of the image manifest (the platform's child of an index). */
  manifestDigest: string;
  manifest: ImageManifest;
  /** The path of a blob of this image in the cache, downloading it when the policy allows. */
  blob(descriptor: Descriptor, signal?: AbortSignal): Promise<string>;
}

export class Puller {
  private readonly cache: BlobCache;

  constructor(private readonly options: PullerOptions) {
    this.cache = new BlobCache(options.cacheDir);
  }

  /** Resolves a package reference to its image manifest. Tags are resolved at the registry under every policy. */
  async pull(ref: string, options: PullOptions = {}): Promise<PulledImage> {
    const reference = parseReference(ref);
    const plan = cachePlan(options.policy);
    const session = this.session(reference, options);
    const where = formatReference(reference);
    const digest =
      reference.digest ??
      (await withContext(`cannot resolve ${where} to digest`, () =>
        this.resolveTag(session, reference, options.signal),
      ));
    return withContext(`cannot fetch package ${where}`, () =>
      this.image({ session, reference, digest, plan, where, signal: options.signal }),
    );
  }

  /**
   * The tags of a package source (`registry/repository`, no tag or digest), read from the registry under every
   * pull policy: a listing is never cached.
   *
   * @example await puller.tags('xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform')
   */
  async tags(source: string, options: Pick<PullOptions, 'credentials' | 'signal'> = {}): Promise<string[]> {
    // A reference needs a tag or digest to parse; the placeholder tag is never sent.
    const { registry, repository } = parseReference(`${source}:latest`);
    const reference = { registry, repository };
    return withContext(`cannot list tags of ${source}`, () =>
      listTags(this.session(reference, options), source, options.signal),
    );
  }

  private session(reference: Reference, options: Pick<PullOptions, 'credentials'>): RegistrySession {
    const credentials = credentialsFor(reference, options.credentials ?? []);
    return new RegistrySession(reference, {
      fetch: this.options.fetch ?? fetch,
      userAgent: this.options.userAgent ?? 'compositor',
      ...(credentials ? { credentials } : {}),
      ...(this.options.onRequest ? { onRequest: this.options.onRequest } : {}),
    });
  }

  private async image(args: {
    session: RegistrySession;
    reference: Reference;
    digest: string;
    plan: CachePlan;
    where: string;
    signal: AbortSignal | undefined;
  }): Promise<PulledImage> {
    const { session, reference, digest, plan, where } = args;
    const options = { signal: args.signal };
    let manifest = await this.manifest(session, digest, plan, { where, signal: options.signal });
    let manifestDigest = digest;
    if (manifest.kind === 'index') {
      const child = selectPlatform(manifest, this.options.platform ?? DEFAULT_PLATFORM, where);
      manifestDigest = child.digest;
      manifest = await this.manifest(session, child.digest, plan, { where, signal: options.signal });
      if (manifest.kind === 'index') {
        throw new UnsupportedMediaTypeError(`cannot read index ${where}: its ${child.digest} is another index`);
      }
    }
    const image = manifest;
    return {
      reference,
      digest,
      manifestDigest,
      manifest: image,
      blob: (descriptor, signal) =>
        withContext(`cannot fetch package ${where}`, () =>
          this.blob(session, descriptor, { plan, where, signal: signal ?? options.signal }),
        ),
    };
  }

  // A HEAD on the tag reads Docker-Content-Digest; a registry that omits it is asked with GET and the body hashed.
  private async resolveTag(session: RegistrySession, ref: Reference, signal?: AbortSignal): Promise<string> {
    const path = `manifests/${identifier(ref)}`;
    const head = await session.request(path, { method: 'HEAD', accept: ACCEPTED_MANIFESTS, ...signalOf(signal) });
    const announced = head.headers.get('docker-content-digest');
    if (announced !== null && /^sha256:[a-f0-9]{64}$/.test(announced)) return announced;
    const response = await session.request(path, { accept: ACCEPTED_MANIFESTS, ...signalOf(signal) });
    const bytes = await readLimited(response, this.maxManifestBytes(), `manifest of ${formatReference(ref)}`);
    const digest = sha256(bytes);
    await this.cache.writeBytes(digest, bytes, `manifest of ${formatReference(ref)}`);
    return digest;
  }

  private async manifest(
    session: RegistrySession,
    digest: string,
    plan: CachePlan,
    context: { where: string; signal: AbortSignal | undefined },
  ): Promise<ReturnType<typeof parseManifest>> {
    const what = `manifest ${digest} of ${context.where}`;
    const cached = plan.readCache ? await this.cache.read(digest) : undefined;
    if (cached !== undefined) return parseManifest(cached, null, context.where);
    if (!plan.download) throw new NotInCacheError(NOT_IN_CACHE, what);
    const response = await session.request(`manifests/${digest}`, {
      accept: ACCEPTED_MANIFESTS,
      ...signalOf(context.signal),
    });
    const bytes = await readLimited(response, this.maxManifestBytes(), what);
    await this.cache.writeBytes(digest, bytes, what);
    return parseManifest(bytes, response.headers.get('content-type'), context.where);
  }

  private async blob(
    session: RegistrySession,
    descriptor: Descriptor,
    context: { plan: CachePlan; where: string; signal: AbortSignal | undefined },
  ): Promise<string> {
    const what = `blob ${descriptor.digest} of ${context.where}`;
    const limit = this.options.maxLayerBytes ?? DEFAULT_MAX_LAYER_BYTES;
    // Layers are content-addressed, so an intact cached copy is the same bytes under every policy.
    if (await this.cache.has(descriptor.digest)) return this.cache.path(descriptor.digest);
    if (!context.plan.download) throw new NotInCacheError(NOT_IN_CACHE, what);
    if (descriptor.size > limit) {
      throw new TooLargeError(limit, `${what} is ${descriptor.size} bytes, over the limit of ${limit} bytes`);
    }
    const response = await session.request(`blobs/${descriptor.digest}`, signalOf(context.signal));
    const announced = Number(response.headers.get('content-length') ?? '0');
    if (announced > limit) {
      await response.body?.cancel();
      throw new TooLargeError(limit, `${what} is ${announced} bytes, over the limit of ${limit} bytes`);
    }
    const body = response.body ?? emptyBody();
    await this.cache.writeStream(descriptor.digest, body as AsyncIterable<Uint8Array>, { limit, what });
    return this.cache.path(descriptor.digest);
  }

  private maxManifestBytes(): number {
    return this.options.maxManifestBytes ?? DEFAULT_MAX_MANIFEST_BYTES;
  }
}

/** Prefixes the message of a PullError with what was being done, as Crossplane's package client wraps its errors. */
async function withContext<T>(context: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    // Crossplane reports a Never miss with its bare message.
    if (err instanceof PullError && !(err instanceof NotInCacheError)) err.message = `${context}: ${err.message}`;
    throw err;
  }
}

function signalOf(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal ? { signal } : {};
}

function emptyBody(): AsyncIterable<Uint8Array> {
  return (async function* () {
    // A blob response without a body is the empty blob; its digest check decides.
  })();
}
