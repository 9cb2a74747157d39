import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { pullSecret } from '../unit/fakes/registry.js';
import { buildPackage } from '../unit/fakes/xpkg.js';
import { apply, condition, get, remove, startEngine, type Condition, type RunningEngine } from './engine.js';
import { controlPlane, eventually } from './harness.js';
import { packageStream, TestRegistry } from './registry.js';

// Package dependencies end to end: upstream's configuration-app, whose metadata depends on provider-helm and
// function-patch-and-transform, with both addresses moved to a real registry (token authentication) that holds the
// Function at a tag satisfying the constraint and at one that does not. compositor's revision records itself in the
// Lock, the resolver creates the Function at the satisfying tag, the Function's revision joins the Lock, and the
// Provider (Providers disabled) stays missing with upstream's message. The Function is pushed under a repository of
// this test's own: the resolver names a dependency's package object after its repository and, as upstream's, leaves
// an object of that name alone whatever its source, so a Function another test file left must not take that name.
const NS = 'dependencies-system';
const NAME = 'configuration-app';
const FN_REPOSITORY = 'dependencies-test/function-patch-and-transform';
const FUNCTION_NAME = 'dependencies-test-function-patch-and-transform';
const PKG = 'pkg.crossplane.io/v1';

type Stored = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown> & { conditions?: Condition[] };
};
interface LockPackage {
  name: string;
  type: string;
  source: string;
  version: string;
  dependencies: { package: string; type?: string; constraints: string }[];
}
type Lock = Stored & { packages?: LockPackage[] };

const lockRef = { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'Lock', metadata: { name: 'lock' } };

describe('package dependencies through the Lock (integration)', function () {
  this.timeout(90_000);
  const registry = new TestRegistry('token');
  let running: RunningEngine | undefined;
  let client: KubeClient;
  let cacheDir: string | undefined;
  let fnSource = '';
  let helmSource = '';
  let configurationRef = '';

  before(async () => {
    client = controlPlane().client();
    await registry.start();
    fnSource = `${registry.host}/${FN_REPOSITORY}`;
    helmSource = `${registry.host}/upbound/provider-helm`;
    // The shared metadata with the dependencies' addresses moved to the test registry; nothing else changed.
    const stream = packageStream(NAME, ['apis/definition.yaml', 'apis/composition.yaml'])
      .replace('xpkg.upbound.io/upbound/provider-helm', helmSource)
      .replace('xpkg.upbound.io/crossplane-contrib/function-patch-and-transform', fnSource);
    if (!stream.includes(fnSource) || !stream.includes(helmSource)) {
      throw new Error('configuration-app no longer names the dependencies this test moves');
    }
    configurationRef = await registry.push(await buildPackage(stream), 'upbound/configuration-app', 'v0.1.0');
    const fn = await buildPackage(packageStream('function-patch-and-transform', []));
    // The metadata asks for v0.8.2; v0.9.0 is newer and does not satisfy it.
    await registry.push(fn, FN_REPOSITORY, 'v0.8.2');
    await registry.push(fn, FN_REPOSITORY, 'v0.9.0');
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
    running = await startEngine({ packageRuntime: 'Deployment', leaderElectionNamespace: NS, xpkgCacheDir: cacheDir });
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'registry');
    await apply(client, { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { name: 'registry', namespace: NS } });
  });

  after(async () => {
    await remove(client, { apiVersion: PKG, kind: 'Configuration', metadata: { name: NAME } }).catch(() => undefined);
    await remove(client, { apiVersion: PKG, kind: 'Function', metadata: { name: FUNCTION_NAME } }).catch(
      () => undefined,
    );
    await running?.stop();
    // Stopped first, so no revision records itself again: later tests start from no Lock.
    await remove(client, lockRef).catch(() => undefined);
    await registry.stop();
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it('installs the Function dependency at the satisfying tag and lists both packages in the Lock', async () => {
    await apply(client, {
      apiVersion: PKG,
      kind: 'Configuration',
      metadata: { name: NAME },
      spec: { package: configurationRef, packagePullSecrets: [{ name: 'registry' }] },
    });

    const fn = await eventually(
      'the resolver creates the Function dependency',
      () => get<Stored>(client, { apiVersion: PKG, kind: 'Function', metadata: { name: FUNCTION_NAME } }),
      { timeoutMs: 40_000 },
    );
    expect(fn.spec?.package).to.equal(`${fnSource}:v0.8.2`);

    // Only the packages of this test's registry: revisions other test files deleted while Active stay listed (no
    // finalizer takes them out, docs/packages.md), and their sources are on other registries.
    const ours = (lock: Lock | undefined): LockPackage[] =>
      (lock?.packages ?? []).filter((p) => p.source.startsWith(`${registry.host}/`));
    const listed = await eventually(
      'the Lock lists the Configuration and the Function',
      async () => {
        const got = await get<Lock>(client, lockRef);
        const types = ours(got)
          .map((p) => p.type)
          .sort();
        if (JSON.stringify(types) === JSON.stringify(['Configuration', 'Function'])) return ours(got);
        throw new Error(JSON.stringify(got?.packages ?? got));
      },
      { timeoutMs: 40_000 },
    );
    const configuration = listed.find((p) => p.type === 'Configuration');
    expect(configuration).to.deep.include({
      source: `${registry.host}/upbound/configuration-app`,
      version: 'v0.1.0',
      dependencies: [
        { package: helmSource, type: 'Provider', constraints: 'v0' },
        { package: fnSource, type: 'Function', constraints: 'v0.8.2' },
      ],
    });
    expect(listed.find((p) => p.type === 'Function')).to.deep.include({ source: fnSource, version: 'v0.8.2' });

    const revision = await eventually(
      'the revision reports the Provider as its only missing dependency',
      async () => {
        const cfg = await get<Stored>(client, { apiVersion: PKG, kind: 'Configuration', metadata: { name: NAME } });
        const name = typeof cfg?.status?.currentRevision === 'string' ? cfg.status.currentRevision : '';
        const rev = await get<Stored>(client, { apiVersion: PKG, kind: 'ConfigurationRevision', metadata: { name } });
        if (rev?.status?.installedDependencies === 1) return rev;
        throw new Error(JSON.stringify(rev?.status ?? cfg?.status));
      },
      { timeoutMs: 40_000 },
    );
    expect(revision.status).to.include({ foundDependencies: 2, installedDependencies: 1 });
    expect(revision.status, 'a zero count is not written, as upstream').not.to.have.property('invalidDependencies');
    expect(condition(revision, 'RevisionHealthy')).to.include({
      status: 'False',
      reason: 'UnhealthyPackageRevision',
      message: `cannot resolve package dependencies: missing dependencies: [${helmSource}]`,
    });
    const resolved = condition(await get<Lock>(client, lockRef), 'Resolved');
    expect(resolved).to.include({ status: 'False', reason: 'DependencyResolutionFailed' });
    expect(resolved?.message).to.include(`unless --enable-providers is set: [${helmSource}]`);
    // Polled: a CRD the engine has just installed may answer "storage is (re)initializing" at first.
    const providers = await eventually('the Providers listed', () =>
      client.request<{ items: unknown[] }>('GET', '/apis/pkg.crossplane.io/v1/providers'),
    );
    expect(providers.items, 'no Provider is installed while Providers are disabled').to.deep.equal([]);
  });
});
