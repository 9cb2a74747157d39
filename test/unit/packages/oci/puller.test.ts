import { expect } from 'chai';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  credentialsFromSecrets,
  DigestMismatchError,
  NotFoundError,
  NotInCacheError,
  Puller,
  RegistryAuthError,
  RegistryUnreachableError,
  TooLargeError,
  UnsupportedMediaTypeError,
  type PullerOptions,
} from '../../../../src/packages/oci/index.js';
import { FakeRegistry, pullSecret } from '../../fakes/registry.js';
import { buildImage, buildIndex, buildPackage, digestOf, type BuiltManifest } from '../../fakes/xpkg.js';

const STREAM = 'apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-test\n';

describe('Puller', () => {
  let registry: FakeRegistry;
  let cacheDir: string;
  let pkg: BuiltManifest;
  const credentials = (): ReturnType<typeof credentialsFromSecrets> =>
    credentialsFromSecrets([pullSecret(registry.host, 'alice', 'secret')]);
  const puller = (options: Partial<PullerOptions> = {}): Puller => new Puller({ cacheDir, ...options });

  beforeEach(async () => {
    registry = new FakeRegistry({ mode: 'bearer', username: 'alice', password: 'secret' });
    await registry.start();
    cacheDir = await mkdtemp(join(tmpdir(), 'oci-cache-'));
    pkg = await buildPackage(STREAM);
    registry.push(pkg, 'v1.0.0');
  });

  afterEach(async () => {
    await registry.stop();
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('pulls by tag through a bearer token, verifying and caching every blob', async () => {
    const image = await puller().pull(`${registry.host}/org/provider-test:v1.0.0`, { credentials: credentials() });
    expect(image.digest).to.equal(pkg.digest);
    expect(image.manifest.layers[0]?.annotations).to.deep.equal({ 'io.crossplane.xpkg': 'base' });
    const layer = image.manifest.layers[0];
    if (!layer) throw new Error('no layer');
    const path = await image.blob(layer);
    expect(digestOf(await readFile(path))).to.equal(layer.digest);
    expect(registry.count('GET', '/token')).to.equal(1);
  });

  it("lists a source's tags through a bearer token, following the Link header across pages", async () => {
    registry.push(pkg, 'v1.1.0');
    registry.push(pkg, 'v2.0.0');
    registry.tagsPerPage = 2;
    const tags = await puller().tags(`${registry.host}/org/provider-test`, { credentials: credentials() });
    expect(tags).to.deep.equal(['v1.0.0', 'v1.1.0', 'v2.0.0']);
    expect(registry.count('GET', '/tags/list')).to.be.greaterThanOrEqual(2);
  });

  it('says which source a tag listing failed for', async () => {
    const err = await puller()
      .tags(`${registry.host}/org/provider-test`)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).to.be.instanceOf(RegistryAuthError);
    expect((err as Error).message).to.match(new RegExp(`^cannot list tags of ${registry.host}/org/provider-test: `));
  });

  it('pulls by digest without resolving a tag', async () => {
    const image = await puller().pull(`${registry.host}/org/provider-test@${pkg.digest}`, {
      credentials: credentials(),
    });
    expect(image.manifestDigest).to.equal(pkg.digest);
    expect(registry.count('HEAD', '/manifests/')).to.equal(0);
  });

  it('reads Docker v2 manifests', async () => {
    const docker = await buildPackage(STREAM, { docker: true });
    registry.push(docker, 'docker');
    const image = await puller().pull(`${registry.host}/org/provider-test:docker`, { credentials: credentials() });
    expect(image.manifest.mediaType).to.equal('application/vnd.docker.distribution.manifest.v2+json');
  });

  it('picks the linux/amd64 child of an index, or the platform it is given', async () => {
    const arm = await buildImage([{ files: { 'package.yaml': 'arm' } }]);
    const amd = await buildImage([{ files: { 'package.yaml': 'amd' } }]);
    const index = buildIndex([
      { image: arm, platform: 'linux/arm64' },
      { image: amd, platform: 'linux/amd64' },
    ]);
    registry.push(index, 'multi');
    const ref = `${registry.host}/org/provider-test:multi`;
    const image = await puller().pull(ref, { credentials: credentials() });
    expect(image.digest).to.equal(index.digest);
    expect(image.manifestDigest).to.equal(amd.digest);
    const onArm = await puller({ platform: { os: 'linux', architecture: 'arm64' } }).pull(ref, {
      credentials: credentials(),
    });
    expect(onArm.manifestDigest).to.equal(arm.digest);
    const err = await puller({ platform: { os: 'windows', architecture: 'amd64' } })
      .pull(ref, { credentials: credentials() })
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(UnsupportedMediaTypeError);
    expect((err as Error).message).to.contain('no child with platform windows/amd64 in index');
  });

  it('serves a second IfNotPresent pull from the cache: the tag is resolved, nothing is downloaded', async () => {
    const ref = `${registry.host}/org/provider-test:v1.0.0`;
    const first = await puller().pull(ref, { credentials: credentials() });
    await first.blob(first.manifest.layers[0] ?? fail());
    const before = registry.requests.length;
    const second = await puller().pull(ref, { credentials: credentials() });
    await second.blob(second.manifest.layers[0] ?? fail());
    const after = registry.requests.slice(before);
    expect(after.filter((r) => r.method === 'GET' && /manifests|blobs/.test(r.path))).to.deep.equal([]);
    expect(after.filter((r) => r.method === 'HEAD')).to.have.length(1);
  });

  it('pulls by digest from the cache without asking the registry at all', async () => {
    const ref = `${registry.host}/org/provider-test@${pkg.digest}`;
    const first = await puller().pull(ref, { credentials: credentials() });
    await first.blob(first.manifest.layers[0] ?? fail());
    await registry.stop();
    const second = await puller().pull(ref, { policy: 'Never' });
    expect(await second.blob(second.manifest.layers[0] ?? fail())).to.equal(
      await first.blob(first.manifest.layers[0] ?? fail()),
    );
    await registry.start();
  });

  it('treats a damaged cached blob as missing and downloads it again', async () => {
    const ref = `${registry.host}/org/provider-test@${pkg.digest}`;
    const first = await puller().pull(ref, { credentials: credentials() });
    const layer = first.manifest.layers[0] ?? fail();
    const path = await first.blob(layer);
    await writeFile(path, 'damaged');
    const again = await puller().pull(ref, { credentials: credentials() });
    expect(digestOf(await readFile(await again.blob(layer)))).to.equal(layer.digest);
    expect(registry.count('GET', '/blobs/')).to.equal(2);
  });

  it('fails under Never with Crossplane message when the package is not cached', async () => {
    const err = await puller()
      .pull(`${registry.host}/org/provider-test@${pkg.digest}`, { policy: 'Never' })
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NotInCacheError);
    expect((err as Error).message).to.equal('package not in cache and pull policy is Never');
    expect(registry.requests).to.deep.equal([]);
  });

  it('fetches the manifest again under Always but reuses intact cached layers', async () => {
    const ref = `${registry.host}/org/provider-test:v1.0.0`;
    const first = await puller().pull(ref, { credentials: credentials() });
    await first.blob(first.manifest.layers[0] ?? fail());
    const manifestsBefore = registry.count('GET', '/manifests/');
    const again = await puller().pull(ref, { credentials: credentials(), policy: 'Always' });
    await again.blob(again.manifest.layers[0] ?? fail());
    expect(registry.count('GET', '/manifests/')).to.equal(manifestsBefore + 1);
    expect(registry.count('GET', '/blobs/')).to.equal(1);
  });

  it('refuses to pull without credentials, or with wrong ones, as Unauthorized', async () => {
    const ref = `${registry.host}/org/provider-test:v1.0.0`;
    const anonymous = await puller()
      .pull(ref)
      .catch((e: unknown) => e);
    expect(anonymous).to.be.instanceOf(RegistryAuthError);
    expect((anonymous as RegistryAuthError).reason).to.equal('Unauthorized');
    const wrong = await puller()
      .pull(ref, { credentials: credentialsFromSecrets([pullSecret(registry.host, 'alice', 'wrong')]) })
      .catch((e: unknown) => e);
    expect(wrong).to.be.instanceOf(RegistryAuthError);
    expect((wrong as Error).message).to.match(
      /^cannot resolve .* to digest: cannot get a token for repository:org\/provider-test:pull/,
    );
  });

  it('authenticates when only the repository, not the ping, asks for it', async () => {
    registry.openPing = true;
    const image = await puller().pull(`${registry.host}/org/provider-test:v1.0.0`, { credentials: credentials() });
    expect(image.digest).to.equal(pkg.digest);
    expect(registry.count('GET', '/token')).to.equal(1);
  });

  it('sends Basic credentials to a registry that asks for them', async () => {
    const basicRegistry = new FakeRegistry({ mode: 'basic', username: 'bob', password: 'pw' });
    await basicRegistry.start();
    try {
      basicRegistry.push(pkg, 'v1');
      const ref = `${basicRegistry.host}/org/p:v1`;
      const ok = await puller().pull(ref, {
        credentials: credentialsFromSecrets([pullSecret(basicRegistry.host, 'bob', 'pw')]),
      });
      expect(ok.digest).to.equal(pkg.digest);
      expect(
        await puller()
          .pull(ref)
          .catch((e: unknown) => e),
      ).to.be.instanceOf(RegistryAuthError);
    } finally {
      await basicRegistry.stop();
    }
  });

  it('reports a missing tag as NotFound with the registry error code', async () => {
    const err = await puller()
      .pull(`${registry.host}/org/provider-test:v9.9.9`, { credentials: credentials() })
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NotFoundError);
    expect((err as Error).message).to.contain('/v2/org/provider-test/manifests/v9.9.9');
  });

  it('refuses a blob that does not hash to its digest and caches nothing of it', async () => {
    const layer = pkg.blobs[1] ?? fail();
    registry.corrupt.add(layer.digest);
    const image = await puller().pull(`${registry.host}/org/provider-test:v1.0.0`, { credentials: credentials() });
    const err = await image.blob(image.manifest.layers[0] ?? fail()).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(DigestMismatchError);
    expect((err as DigestMismatchError).expected).to.equal(layer.digest);
    const cached = await readdir(join(cacheDir, 'blobs', 'sha256'));
    expect(cached).to.not.include(layer.digest.slice('sha256:'.length));
    expect(cached.filter((name) => name.includes('partial'))).to.deep.equal([]);
  });

  it('refuses manifests and layers over their limits', async () => {
    const ref = `${registry.host}/org/provider-test@${pkg.digest}`;
    const manifestErr = await puller({ maxManifestBytes: 10 })
      .pull(ref, { credentials: credentials() })
      .catch((e: unknown) => e);
    expect(manifestErr).to.be.instanceOf(TooLargeError);
    const image = await puller({ maxLayerBytes: 10 }).pull(ref, { credentials: credentials() });
    const layerErr = await image.blob(image.manifest.layers[0] ?? fail()).catch((e: unknown) => e);
    expect(layerErr).to.be.instanceOf(TooLargeError);
    expect((layerErr as Error).message).to.match(/over the limit of 10 bytes$/);
  });

  it('reports a closed port as an unreachable registry', async () => {
    const port = await closedPort();
    const err = await puller()
      .pull(`127.0.0.1:${port}/org/provider-test:v1`)
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RegistryUnreachableError);
    expect((err as Error).message).to.contain(`cannot reach registry 127.0.0.1:${port}`);
  });

  it('refuses schema 1 manifests', async () => {
    const bytes = Buffer.from(JSON.stringify({ schemaVersion: 1, name: 'org/p', fsLayers: [] }));
    const digest = digestOf(bytes);
    registry.manifests.set(digest, { bytes, mediaType: 'application/vnd.docker.distribution.manifest.v1+prettyjws' });
    const err = await puller()
      .pull(`${registry.host}/org/p@${digest}`, { credentials: credentials() })
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(UnsupportedMediaTypeError);
  });
});

function fail(): never {
  throw new Error('missing fixture part');
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return port;
}
