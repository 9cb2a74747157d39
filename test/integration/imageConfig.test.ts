import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { buildPackage } from '../unit/fakes/xpkg.js';
import { pullSecret } from '../unit/fakes/registry.js';
import { apply, get, remove, startEngine, type Condition, type RunningEngine } from './engine.js';
import { controlPlane, eventually } from './harness.js';
import { TestRegistry } from './registry.js';

// ImageConfigs end to end: a real registry with token authentication and a real API server. A Configuration naming
// no pull secret installs with the one an ImageConfig gives for its registry; another, whose package path exists only
// under a mirror path, installs from there through an ImageConfig's rewrite, with the status fields upstream writes.
const NS = 'imageconfig-system';
const CONFIGURATION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Configuration' };
const REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'ConfigurationRevision' };
const IMAGE_CONFIG = { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'ImageConfig' };

interface PackageStatus {
  conditions?: Condition[];
  currentRevision?: string;
  currentIdentifier?: string;
  resolvedPackage?: string;
  resolvedImage?: string;
  appliedImageConfigRefs?: { name: string; reason: string }[];
}
type Pkg = KubeObject & { spec: { package?: string; image?: string }; status?: PackageStatus };

/** A Configuration package installing one Composition of its own name, so each package has its own digest. */
function packageYaml(name: string): string {
  return [
    'apiVersion: meta.pkg.crossplane.io/v1',
    'kind: Configuration',
    'metadata:',
    `  name: ${name}`,
    '---',
    'apiVersion: apiextensions.crossplane.io/v1',
    'kind: Composition',
    'metadata:',
    `  name: ${name}.example.org`,
    'spec:',
    '  compositeTypeRef: { apiVersion: example.org/v1, kind: XThing }',
    '  mode: Pipeline',
    '  pipeline:',
    '    - step: pt',
    '      functionRef: { name: function-patch-and-transform }',
    '',
  ].join('\n');
}

/** The Configuration once it is Healthy, or what it was at the deadline. */
function healthy(client: KubeClient, name: string): Promise<Pkg> {
  return eventually(
    `Configuration ${name} Healthy`,
    async () => {
      const got = await get<Pkg>(client, { ...CONFIGURATION, metadata: { name } });
      if (got?.status?.conditions?.find((c) => c.type === 'Healthy')?.status === 'True') return got;
      throw new Error(JSON.stringify(got?.status ?? got));
    },
    { timeoutMs: 60_000 },
  );
}

describe('ImageConfigs for package pulls (integration)', function () {
  this.timeout(90_000);
  const registry = new TestRegistry('token');
  let running: RunningEngine | undefined;
  let client: KubeClient;
  let cacheDir: string | undefined;
  const created: KubeObject[] = [];

  async function create(object: KubeObject): Promise<void> {
    created.push(object);
    await apply(client, object);
  }

  before(async () => {
    client = controlPlane().client();
    await registry.start();
    await registry.push(await buildPackage(packageYaml('imgcfg-private')), 'private/imgcfg-private', 'v1.0.0');
    await registry.push(await buildPackage(packageYaml('imgcfg-mirrored')), 'mirror/imgcfg-mirrored', 'v1.0.0');
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
    running = await startEngine({ packageRuntime: 'Deployment', leaderElectionNamespace: NS, xpkgCacheDir: cacheDir });
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'imgcfg-registry');
    await create({ apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { name: 'imgcfg-registry', namespace: NS } });
    // Every repository of this registry needs the secret; no Configuration below names it.
    await create({
      ...IMAGE_CONFIG,
      metadata: { name: 'imgcfg-registry-creds' },
      spec: {
        matchImages: [{ type: 'Prefix', prefix: `${registry.host}/` }],
        registry: { authentication: { pullSecretRef: { name: 'imgcfg-registry' } } },
      },
    });
  });

  after(async () => {
    for (const object of created.reverse()) await remove(client, object).catch(() => undefined);
    await running?.stop();
    await registry.stop();
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it('installs a package only readable with the pull secret a matching ImageConfig gives, and records it', async () => {
    const ref = `${registry.host}/private/imgcfg-private:v1.0.0`;
    await create({ ...CONFIGURATION, metadata: { name: 'imgcfg-private' }, spec: { package: ref } });
    const cfg = await healthy(client, 'imgcfg-private');
    expect(cfg.status).to.deep.include({
      currentIdentifier: ref,
      resolvedPackage: ref,
      appliedImageConfigRefs: [{ name: 'imgcfg-registry-creds', reason: 'SetImagePullSecret' }],
    });
    const rev = await get<Pkg>(client, { ...REVISION, metadata: { name: cfg.status?.currentRevision ?? '' } });
    expect(rev?.status).to.deep.include({
      resolvedImage: ref,
      appliedImageConfigRefs: [{ name: 'imgcfg-registry-creds', reason: 'SetImagePullSecret' }],
    });
    expect(
      await get(client, {
        apiVersion: 'apiextensions.crossplane.io/v1',
        kind: 'Composition',
        metadata: { name: 'imgcfg-private.example.org' },
      }),
    ).to.not.equal(undefined);
  });

  it('installs from the repository path an ImageConfig rewrites to, with the status fields upstream sets', async () => {
    const original = `${registry.host}/upstream/imgcfg-mirrored:v1.0.0`;
    const rewritten = `${registry.host}/mirror/imgcfg-mirrored:v1.0.0`;
    await create({
      ...IMAGE_CONFIG,
      metadata: { name: 'imgcfg-mirror' },
      spec: {
        matchImages: [{ type: 'Prefix', prefix: `${registry.host}/upstream` }],
        rewriteImage: { prefix: `${registry.host}/mirror` },
      },
    });
    await create({
      ...CONFIGURATION,
      metadata: { name: 'imgcfg-mirrored' },
      spec: { package: original },
    });
    const cfg = await healthy(client, 'imgcfg-mirrored');
    const applied = [
      { name: 'imgcfg-mirror', reason: 'RewriteImage' },
      { name: 'imgcfg-registry-creds', reason: 'SetImagePullSecret' },
    ];
    // The identifier and the revision's spec keep the reference as written; what was pulled is resolved*.
    expect(cfg.status).to.deep.include({
      currentIdentifier: original,
      resolvedPackage: rewritten,
      appliedImageConfigRefs: applied,
    });
    const rev = await get<Pkg>(client, { ...REVISION, metadata: { name: cfg.status?.currentRevision ?? '' } });
    expect(rev?.spec.image).to.equal(original);
    expect(rev?.status).to.deep.include({ resolvedImage: rewritten, appliedImageConfigRefs: applied });
    expect(registry.requests('GET', '/upstream/'), 'requests for the original path').to.deep.equal([]);
    expect(registry.requests('GET', '/mirror/imgcfg-mirrored/')).to.not.deep.equal([]);
  });

  it("runs a Function's runtime from the rewritten image, with the ImageConfig's pull secret and runtime config", async () => {
    const original = `${registry.host}/upstream/imgcfg-fn:v1.0.0`;
    const rewritten = `${registry.host}/mirror/imgcfg-fn:v1.0.0`;
    await create({
      apiVersion: 'pkg.crossplane.io/v1beta1',
      kind: 'DeploymentRuntimeConfig',
      metadata: { name: 'imgcfg-runtime' },
      spec: { deploymentTemplate: { metadata: { labels: { 'imgcfg.example.org/runtime': 'imgcfg-runtime' } } } },
    });
    await create({
      ...IMAGE_CONFIG,
      metadata: { name: 'imgcfg-fn-runtime' },
      spec: {
        matchImages: [{ type: 'Prefix', prefix: `${registry.host}/mirror/imgcfg-fn` }],
        runtime: { configRef: { name: 'imgcfg-runtime' } },
      },
    });
    await create({
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: 'imgcfg-fn' },
      spec: { package: original },
    });
    const fn = await eventually('Function imgcfg-fn status', async () => {
      const got = await get<Pkg>(client, {
        apiVersion: 'pkg.crossplane.io/v1',
        kind: 'Function',
        metadata: { name: 'imgcfg-fn' },
      });
      if (got?.status?.currentRevision !== undefined && got.status.resolvedPackage !== undefined) return got;
      throw new Error(JSON.stringify(got?.status ?? got));
    });
    expect(fn.status).to.deep.include({ currentIdentifier: original, resolvedPackage: rewritten });
    const revision = fn.status?.currentRevision ?? '';
    // Waits for the runtime config's label: an ImageConfig the informer had not seen yet is applied on its event.
    const deployment = await eventually(`Deployment ${NS}/${revision} with the runtime config`, async () => {
      const got = await get<
        KubeObject & {
          spec: { template: { spec: { containers: { image: string }[]; imagePullSecrets?: { name: string }[] } } };
        }
      >(client, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: revision, namespace: NS } });
      const labels = got?.metadata.labels as Record<string, string> | undefined;
      if (labels?.['imgcfg.example.org/runtime'] !== undefined) return got;
      throw new Error(JSON.stringify(got ?? 'no Deployment'));
    });
    expect(deployment.spec.template.spec.containers[0]?.image).to.equal(rewritten);
    expect(deployment.spec.template.spec.imagePullSecrets).to.deep.equal([{ name: 'imgcfg-registry' }]);
    expect(deployment.metadata.labels).to.deep.include({ 'imgcfg.example.org/runtime': 'imgcfg-runtime' });
    const rev = await eventually(`FunctionRevision ${revision} status`, async () => {
      const got = await get<Pkg>(client, {
        apiVersion: 'pkg.crossplane.io/v1',
        kind: 'FunctionRevision',
        metadata: { name: revision },
      });
      if (got?.status?.resolvedImage !== undefined) return got;
      throw new Error(JSON.stringify(got?.status ?? got));
    });
    expect(rev.spec.image).to.equal(original);
    expect(rev.status).to.deep.include({
      resolvedImage: rewritten,
      appliedImageConfigRefs: [
        { name: 'imgcfg-mirror', reason: 'RewriteImage' },
        { name: 'imgcfg-registry-creds', reason: 'SetImagePullSecret' },
        { name: 'imgcfg-fn-runtime', reason: 'ConfigureRuntime' },
      ],
    });
  });
});
