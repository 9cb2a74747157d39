import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Puller, TooLargeError } from '../../../../src/packages/oci/index.js';
import { NotAPackageError, PackageClient, PackageParseError } from '../../../../src/packages/xpkg/index.js';
import { FakeRegistry } from '../../fakes/registry.js';
import { buildImage, buildPackage, type LayerSpec } from '../../fakes/xpkg.js';

const STREAM = 'apiVersion: meta.pkg.crossplane.io/v1beta1\nkind: Function\nmetadata:\n  name: function-test\n';

describe('PackageClient', () => {
  let registry: FakeRegistry;
  let cacheDir: string;
  const client = (maxPackageBytes?: number): PackageClient =>
    new PackageClient({ puller: new Puller({ cacheDir }), ...(maxPackageBytes ? { maxPackageBytes } : {}) });
  const push = async (layers: LayerSpec[], tag: string): Promise<string> => {
    registry.push(await buildImage(layers), tag);
    return `${registry.host}/org/function-test:${tag}`;
  };

  beforeEach(async () => {
    registry = new FakeRegistry();
    await registry.start();
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
  });

  afterEach(async () => {
    await registry.stop();
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('reads package.yaml from the base layer and downloads no other layer', async () => {
    const runtime = { files: { 'bin/function': 'binary', 'package.yaml': 'not this one' } };
    const ref = await push(
      [runtime, { files: { 'package.yaml': STREAM }, annotations: { 'io.crossplane.xpkg': 'base' } }],
      'v1',
    );
    const pkg = await client().get(ref);
    expect(pkg.meta.map((m) => m.metadata?.name)).to.deep.equal(['function-test']);
    expect(pkg.source).to.equal(`${registry.host}/org/function-test`);
    expect(pkg.version).to.equal('v1');
    expect(pkg.resolvedRef).to.equal(`${pkg.source}@${pkg.digest}`);
    expect(registry.count('GET', '/blobs/')).to.equal(1);
  });

  it('reads the flattened filesystem when no layer is annotated: upper layers win, whiteouts delete', async () => {
    const ref = await push(
      [
        { files: { 'package.yaml': 'lower: hidden\n', 'old/package.yaml': 'deleted: true\n' } },
        { files: { 'package.yaml': STREAM, 'old/.wh.package.yaml': '' } },
      ],
      'flat',
    );
    expect((await client().get(ref)).meta).to.have.length(1);
    const gone = await push(
      [{ files: { 'pkg/package.yaml': STREAM } }, { files: { 'pkg/.wh.package.yaml': '' } }],
      'whiteout',
    );
    const err = await client()
      .get(gone)
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NotAPackageError);
  });

  it('refuses an image without package.yaml with Crossplane message', async () => {
    const ref = await push([{ files: { 'crossplane.yaml': STREAM } }], 'empty');
    const err = await client()
      .get(ref)
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NotAPackageError);
    expect((err as Error).message).to.equal(
      `cannot extract package content from ${ref}: package.yaml not found in package`,
    );
  });

  it('refuses a malformed package.yaml, naming the package', async () => {
    registry.push(await buildPackage(`${STREAM}  broken: [\n`), 'bad');
    const err = await client()
      .get(`${registry.host}/org/function-test:bad`)
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(PackageParseError);
    expect((err as Error).message).to.match(/^cannot parse package .*:bad: error converting YAML to JSON/);
  });

  it('refuses a package.yaml over the package size limit', async () => {
    registry.push(await buildPackage(STREAM), 'v1');
    const err = await client(16)
      .get(`${registry.host}/org/function-test:v1`)
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(TooLargeError);
    expect((err as Error).message).to.contain('package.yaml is');
  });
});
