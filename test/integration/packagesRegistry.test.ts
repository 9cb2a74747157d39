import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../e2e/controlplane/ports.js';
import {
  credentialsFromSecrets,
  NotFoundError,
  Puller,
  RegistryAuthError,
  RegistryUnreachableError,
  TooLargeError,
  type KeyedCredentials,
  type PullerOptions,
  type RequestRecord,
} from '../../src/packages/oci/index.js';
import {
  checkCrossplaneVersion,
  lintPackage,
  NotAPackageError,
  PackageClient,
  PackageParseError,
  validatePackage,
} from '../../src/packages/xpkg/index.js';
import { pullSecret } from '../unit/fakes/registry.js';
import { buildImage, buildIndex, buildPackage } from '../unit/fakes/xpkg.js';
import { packageStream, TestRegistry, type RegistryAuth } from './registry.js';

for (const auth of ['token', 'htpasswd'] as RegistryAuth[]) {
  describe(`packages from a real OCI registry (${auth} authentication)`, function () {
    this.timeout(120_000);
    const registry = new TestRegistry(auth);
    let cacheDir: string;
    let credentials: KeyedCredentials[];
    const refs: Record<string, string> = {};
    const digests: Record<string, string> = {};

    const client = (options: Partial<PullerOptions> = {}): PackageClient =>
      new PackageClient({ puller: new Puller({ cacheDir, ...options }) });

    before(async () => {
      await registry.start();
      credentials = credentialsFromSecrets([pullSecret(registry.host, registry.user.username, registry.user.password)]);
      const provider = await buildPackage(
        packageStream('provider-nop', ['crds/nop.crossplane.io_nopresources.yaml', 'webhookconfigurations.yaml']),
      );
      refs.provider = await registry.push(provider, 'crossplane-contrib/provider-nop', 'v0.5.0');
      digests.provider = provider.digest;
      const fnAmd = await buildPackage(
        packageStream('function-patch-and-transform', ['input/pt.fn.crossplane.io_resources.yaml']),
      );
      const fnArm = await buildImage([{ files: { 'package.yaml': 'arm64: not this one\n' } }]);
      const index = buildIndex([
        { image: fnArm, platform: 'linux/arm64' },
        { image: fnAmd, platform: 'linux/amd64' },
      ]);
      refs.function = await registry.push(index, 'crossplane-contrib/function-patch-and-transform', 'v0.10.8');
      digests.functionIndex = index.digest;
      digests.functionAmd = fnAmd.digest;
      const configuration = await buildPackage(
        packageStream('configuration-app', ['apis/definition.yaml', 'apis/composition.yaml']),
      );
      refs.configuration = await registry.push(configuration, 'upbound/configuration-app', 'v0.1.0');
      const empty = await buildImage([{ files: { 'README.md': 'no package here\n' } }]);
      refs.notAPackage = await registry.push(empty, 'org/not-a-package', 'v1');
      const malformed = await buildPackage('apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\n  name: [oops\n');
      refs.malformed = await registry.push(malformed, 'org/malformed', 'v1');
    });

    after(async () => {
      await registry.stop();
    });

    beforeEach(async () => {
      cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
    });

    afterEach(async () => {
      await rm(cacheDir, { recursive: true, force: true });
    });

    it('pulls a Provider by tag and finds it valid and lint-clean', async () => {
      const pkg = await client().get(refs.provider ?? '', { credentials });
      expect(pkg.digest).to.equal(digests.provider);
      expect(pkg.meta.map((m) => `${m.kind}/${m.metadata?.name ?? ''}`)).to.deep.equal(['Provider/provider-nop']);
      expect(pkg.objects.map((o) => o.kind)).to.deep.equal([
        'CustomResourceDefinition',
        'ValidatingWebhookConfiguration',
      ]);
      expect(validatePackage('Provider', pkg)).to.equal(undefined);
      expect(lintPackage('Provider', pkg)).to.equal(undefined);
    });

    it('pulls by digest without resolving a tag', async () => {
      const ref = `${registry.host}/crossplane-contrib/provider-nop@${digests.provider ?? ''}`;
      const seen: RequestRecord[] = [];
      const pkg = await client({ onRequest: (r) => seen.push(r) }).get(ref, { credentials });
      expect(pkg.resolvedRef).to.equal(ref);
      expect(seen.filter((r) => r.method === 'HEAD')).to.deep.equal([]);
      expect(seen.filter((r) => r.url.endsWith(`/manifests/${digests.provider ?? ''}`))).to.have.length(1);
    });

    it('picks the linux/amd64 image of an index', async () => {
      const pkg = await client().get(refs.function ?? '', { credentials });
      expect(pkg.digest).to.equal(digests.functionIndex);
      expect(pkg.meta.map((m) => m.kind)).to.deep.equal(['Function']);
      expect(lintPackage('Function', pkg)).to.equal(undefined);
    });

    it('serves a second pull from the cache without downloading a blob again', async () => {
      const seen: RequestRecord[] = [];
      const pullClient = client({ onRequest: (r) => seen.push(r) });
      await pullClient.get(refs.configuration ?? '', { credentials });
      expect(seen.filter((r) => r.method === 'GET' && r.url.includes('/blobs/'))).to.have.length(1);
      const blobsBefore = await settledCount(registry, '/configuration-app/blobs/');
      seen.length = 0;
      const again = await pullClient.get(refs.configuration ?? '', { credentials });
      expect(again.meta.map((m) => m.kind)).to.deep.equal(['Configuration']);
      expect(
        seen.filter((r) => r.url.includes('/blobs/') || (r.method === 'GET' && r.url.includes('/manifests/'))),
      ).to.deep.equal([]);
      expect(await settledCount(registry, '/configuration-app/blobs/')).to.equal(blobsBefore);
    });

    it('checks the Configuration against Crossplane versions', async () => {
      const pkg = await client().get(refs.configuration ?? '', { credentials });
      const meta = pkg.meta[0];
      if (meta === undefined) throw new Error('no meta');
      expect(validatePackage('Configuration', pkg)).to.equal(undefined);
      expect(lintPackage('Configuration', pkg)).to.equal(undefined);
      expect(checkCrossplaneVersion(meta, 'v2.0.2')).to.equal(undefined);
      expect(checkCrossplaneVersion(meta, 'v1.13.0')).to.equal(
        'package is not compatible with Crossplane version (v1.13.0)',
      );
    });

    it('answers 401 without credentials and with wrong ones', async () => {
      const anonymous = await client()
        .get(refs.provider ?? '')
        .catch((e: unknown) => e);
      expect(anonymous, String(anonymous)).to.be.instanceOf(RegistryAuthError);
      expect((anonymous as RegistryAuthError).status).to.equal(401);
      const wrongCredentials = credentialsFromSecrets([pullSecret(registry.host, registry.user.username, 'wrong')]);
      const wrong = await client()
        .get(refs.provider ?? '', { credentials: wrongCredentials })
        .catch((e: unknown) => e);
      expect(wrong, String(wrong)).to.be.instanceOf(RegistryAuthError);
      expect((wrong as RegistryAuthError).status).to.equal(401);
      // With token authentication the token service refuses the credentials; with htpasswd the registry does.
      const refusedBy =
        auth === 'token'
          ? 'cannot get a token for repository:crossplane-contrib/provider-nop:pull'
          : 'unexpected status code 401 Unauthorized';
      expect((wrong as Error).message).to.contain(refusedBy);
    });

    it('reports a missing tag as NotFound', async () => {
      const err = await client()
        .get(`${registry.host}/crossplane-contrib/provider-nop:v9.9.9`, { credentials })
        .catch((e: unknown) => e);
      expect(err, String(err)).to.be.instanceOf(NotFoundError);
    });

    it('refuses an image without package.yaml', async () => {
      const err = await client()
        .get(refs.notAPackage ?? '', { credentials })
        .catch((e: unknown) => e);
      expect(err, String(err)).to.be.instanceOf(NotAPackageError);
      expect((err as Error).message).to.equal(
        `cannot extract package content from ${refs.notAPackage ?? ''}: package.yaml not found in package`,
      );
    });

    it('refuses a malformed package.yaml', async () => {
      const err = await client()
        .get(refs.malformed ?? '', { credentials })
        .catch((e: unknown) => e);
      expect(err, String(err)).to.be.instanceOf(PackageParseError);
    });

    it('refuses a layer over the size limit', async () => {
      const err = await client({ maxLayerBytes: 64 })
        .get(refs.provider ?? '', { credentials })
        .catch((e: unknown) => e);
      expect(err, String(err)).to.be.instanceOf(TooLargeError);
    });

    it('reports a closed port as an unreachable registry', async () => {
      const port = await freePort();
      const err = await client()
        .get(`127.0.0.1:${port}/crossplane-contrib/provider-nop:v0.5.0`, { credentials })
        .catch((e: unknown) => e);
      expect(err, String(err)).to.be.instanceOf(RegistryUnreachableError);
    });
  });
}

/**
 * The registry's count of GETs on a path, once the access log has caught up: a sentinel request is sent and the
 * count is read when its line appears, so every earlier request has been logged.
 */
async function settledCount(registry: TestRegistry, pathPart: string): Promise<number> {
  const sentinel = `sentinel-${Math.random().toString(36).slice(2)}`;
  await fetch(`http://${registry.host}/v2/${sentinel}/manifests/latest`);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (registry.requests('GET', sentinel).length > 0) return registry.requests('GET', pathPart).length;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the registry's access log never showed ${sentinel}:\n${registry.tail()}`);
}
