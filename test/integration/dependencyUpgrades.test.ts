import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { pullSecret } from '../unit/fakes/registry.js';
import { buildPackage } from '../unit/fakes/xpkg.js';
import { apply, condition, get, remove, startEngine, type Condition, type RunningEngine } from './engine.js';
import { controlPlane, eventually } from './harness.js';
import { withoutLock } from './lockHygiene.js';
import { TestRegistry } from './registry.js';

// Dependency version upgrades end to end (--enable-dependency-version-upgrades, alpha as Crossplane's): a
// Configuration depending on a Function at >=v0.8.0 gets it installed at v0.8.2, the only tag the registry has then;
// newer tags are pushed, and a second Configuration needing >=v0.9.0 makes the resolver move the installed Function's
// spec.package, as upstream's, to the lowest tag at or above v0.8.2 satisfying both constraints (v0.9.0, not v0.9.1).
// The same Function object moves (nothing is deleted or created again), its new revision joins the Lock, and the
// second Configuration's revision turns healthy. Repositories, names and namespace are this file's own.
const NS = 'upgrades-system';
const REPO = 'upgrades-test';
const FN_NAME = `${REPO}-function-upgraded`;
const PKG = 'pkg.crossplane.io/v1';

type Stored = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown> & { conditions?: Condition[] };
};
interface LockPackage {
  name: string;
  kind?: string;
  source: string;
  version: string;
}
type Lock = Stored & { packages?: LockPackage[] };

const lockRef = { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'Lock', metadata: { name: 'lock' } };
const fnRef = { apiVersion: PKG, kind: 'Function', metadata: { name: FN_NAME } };

function yamlStream(objects: readonly object[]): string {
  return objects.map((o) => JSON.stringify(o)).join('\n---\n') + '\n';
}

/** The Function package at one version: its annotation differs per version, so each tag is an image of its own. */
function functionPackage(version: string): string {
  return yamlStream([
    {
      apiVersion: 'meta.pkg.crossplane.io/v1beta1',
      kind: 'Function',
      metadata: { name: 'function-upgraded', annotations: { 'example.org/version': version } },
      spec: {},
    },
  ]);
}

function configurationPackage(name: string, fnSource: string, constraint: string): string {
  return yamlStream([
    {
      apiVersion: 'meta.pkg.crossplane.io/v1',
      kind: 'Configuration',
      metadata: { name },
      spec: { dependsOn: [{ function: fnSource, version: constraint }] },
    },
  ]);
}

describe('dependency version upgrades through the Lock (integration)', function () {
  this.timeout(90_000);
  const registry = new TestRegistry('token');
  const configurations = ['configuration-first', 'configuration-second'];
  let running: RunningEngine | undefined;
  let client: KubeClient;
  let cacheDir: string | undefined;
  let fnSource = '';

  const installConfiguration = async (name: string, constraint: string): Promise<void> => {
    const ref = await registry.push(
      await buildPackage(configurationPackage(name, fnSource, constraint)),
      `${REPO}/${name}`,
      'v1.0.0',
    );
    await apply(client, {
      apiVersion: PKG,
      kind: 'Configuration',
      metadata: { name },
      spec: { package: ref, packagePullSecrets: [{ name: 'registry' }] },
    });
  };
  const fnInLock = async (): Promise<LockPackage[]> =>
    ((await get<Lock>(client, lockRef))?.packages ?? []).filter((p) => p.source === fnSource);

  before(async () => {
    client = controlPlane().client();
    await registry.start();
    fnSource = `${registry.host}/${REPO}/function-upgraded`;
    await registry.push(await buildPackage(functionPackage('v0.8.2')), `${REPO}/function-upgraded`, 'v0.8.2');
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
    await withoutLock(client);
    running = await startEngine({
      packageRuntime: 'Deployment',
      leaderElectionNamespace: NS,
      xpkgCacheDir: cacheDir,
      enableDependencyVersionUpgrades: true,
    });
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'registry');
    await apply(client, { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { name: 'registry', namespace: NS } });
  });

  after(async () => {
    for (const name of configurations) {
      await remove(client, { apiVersion: PKG, kind: 'Configuration', metadata: { name } }).catch(() => undefined);
    }
    await remove(client, fnRef).catch(() => undefined);
    await running?.stop();
    // Stopped first, so no revision records itself again: later tests start from no Lock.
    await withoutLock(client);
    await registry.stop();
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it('moves the installed Function to the lowest tag satisfying both Configurations', async () => {
    await installConfiguration('configuration-first', '>=v0.8.0');
    const installed = await eventually(
      'the resolver installs the Function at v0.8.2 and its revision joins the Lock',
      async () => {
        const fn = await get<Stored>(client, fnRef);
        const listed = await fnInLock();
        if (fn?.spec?.package === `${fnSource}:v0.8.2` && listed.some((p) => p.version === 'v0.8.2')) return fn;
        throw new Error(JSON.stringify({ fn: fn?.spec, lock: listed }));
      },
      { timeoutMs: 40_000 },
    );

    await registry.push(await buildPackage(functionPackage('v0.9.0')), `${REPO}/function-upgraded`, 'v0.9.0');
    await registry.push(await buildPackage(functionPackage('v0.9.1')), `${REPO}/function-upgraded`, 'v0.9.1');
    await installConfiguration('configuration-second', '>=v0.9.0');

    const moved = await eventually(
      'the resolver moves the Function to v0.9.0',
      async () => {
        const fn = await get<Stored>(client, fnRef);
        if (fn?.spec?.package === `${fnSource}:v0.9.0`) return fn;
        throw new Error(JSON.stringify({ fn: fn?.spec, lock: await fnInLock() }));
      },
      { timeoutMs: 40_000 },
    );
    expect(moved.metadata.uid, 'the same object, updated in place').to.equal(installed.metadata.uid);

    // The new revision joins the Lock. compositor keeps the old revision active, and listed, until the new one's
    // runtime is healthy, which no Deployment becomes here (no kubelet); the new entry is what dependants check.
    await eventually(
      'the new revision joins the Lock at v0.9.0',
      async () => {
        const got = await fnInLock();
        if (got.some((p) => p.version === 'v0.9.0' && p.kind === 'Function')) return got;
        throw new Error(JSON.stringify(got));
      },
      { timeoutMs: 40_000 },
    );

    const revision = await eventually(
      'the second Configuration revision finds its dependency at a valid version',
      async () => {
        const cfg = await get<Stored>(client, {
          apiVersion: PKG,
          kind: 'Configuration',
          metadata: { name: 'configuration-second' },
        });
        const name = typeof cfg?.status?.currentRevision === 'string' ? cfg.status.currentRevision : '';
        const rev = await get<Stored>(client, { apiVersion: PKG, kind: 'ConfigurationRevision', metadata: { name } });
        if (condition(rev, 'RevisionHealthy')?.status === 'True') return rev;
        throw new Error(JSON.stringify(rev?.status ?? cfg?.status));
      },
      { timeoutMs: 40_000 },
    );
    expect(revision.status).to.include({ foundDependencies: 1, installedDependencies: 1 });
  });
});
