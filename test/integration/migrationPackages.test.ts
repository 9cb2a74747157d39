import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCrds } from '../../src/apis/index.js';
import { compositionHash } from '../../src/definition/revisionHash.js';
import { newRevision } from '../../src/definition/revisions.js';
import { ApiError, Discovery, ensureCrds, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { buildPackage } from '../unit/fakes/xpkg.js';
import { pullSecret } from '../unit/fakes/registry.js';
import {
  crossplaneInstall,
  crossplaneLock,
  crossplaneResync,
  friendlyId,
  LOCK_FINALIZER,
  LOCK_REF,
  LABEL_PACKAGE,
  REVISION_FINALIZER,
  type PackageInstall,
} from './crossplanePackageReplay.js';
import { create, crossplaneReconcile, must, xrRef as xrRefIn, type Stored } from './crossplaneReplay.js';
import {
  changing,
  countWrites,
  crossplaneDefined,
  crossplaneRevision,
  crossplaneXrCrd,
  settled,
} from './crossplaneTakeover.js';
import {
  apply,
  composition,
  condition,
  ensureNamespace,
  functions,
  get,
  mergePatch,
  remove,
  startEngine,
  testApi,
  xrd,
  type RunningEngine,
} from './engine.js';
import { controlPlane, eventually } from './harness.js';
import { TestRegistry } from './registry.js';

// Taking over a Configuration Crossplane v2.3's package manager installed, and handing it back, on the real API
// server. crossplanePackageReplay.ts makes the package manager's writes (no Crossplane binary runs); the package is
// pushed to a real registry, so compositor resolves the same digest and so the same revision name. compositor must
// adopt the revision, keep the XRD and Composition controlled by it, recreate nothing and make no new revision; its
// writes are counted (docs/migration.md lists them). Then Crossplane's next reconciles are replayed over what
// compositor left.

const NS = 'migration-packages-system';
/** The digest the replayed Function revisions are named with: their packages are not pulled. */
const ZERO_DIGEST = `sha256:${'0'.repeat(64)}`;
const NAMESPACE = 'migration-packages';
const NAME = 'platform-apis';
// A group of its own (no other test's group is part of it), since the migration tests count writes by group.
const api = testApi('packages.takeover.example.org', 'XTakeover');

type Owned = Stored & {
  metadata: Stored['metadata'] & {
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
};

const CONFIGURATION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Configuration', metadata: { name: NAME } };
const REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'ConfigurationRevision' };
interface LockEntry {
  name: string;
  source: string;
}

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-crossplane', namespace: NAMESPACE } };

/** package.yaml: the Configuration's metadata, the XRD and the Composition of the engine tests (JSON is YAML). */
function packageStream(objects: readonly KubeObject[]): string {
  const meta = { apiVersion: 'meta.pkg.crossplane.io/v1', kind: 'Configuration', metadata: { name: NAME } };
  return [meta, ...objects].map((o) => JSON.stringify(o)).join('\n---\n') + '\n';
}

function controllerOf(object: Owned): string | undefined {
  const ref = object.metadata.ownerReferences?.find((r) => r.controller === true);
  return ref ? `${ref.kind}/${ref.name}` : undefined;
}

describe('migration of a Configuration Crossplane installed, and back', function () {
  this.timeout(180_000);
  const registry = new TestRegistry('htpasswd');
  let engine: RunningEngine | undefined;
  let client: KubeClient;
  let cacheDir: string | undefined;
  let install: PackageInstall;
  const uids = new Map<string, string | undefined>();
  const objects = [xrd(api), composition(api)];
  let revisionName = '';
  /** The Lock as Crossplane's replay left it. */
  let replayedLock: Stored & { packages?: LockEntry[] };

  async function uidOf(object: KubeObject): Promise<string | undefined> {
    return (await must<Stored>(client, object)).metadata.uid;
  }

  before(async () => {
    client = controlPlane().client();
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    await ensureNamespace(client, NAMESPACE);
    await ensureNamespace(client, NS);
    await registry.start();
    const pkg = await buildPackage(packageStream(objects));
    const ref = await registry.push(pkg, 'platform/apis', 'v1.0.0');
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'registry');
    await apply(client, { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { name: 'registry', namespace: NS } });
    for (const fn of functions()) {
      await create(client, fn, 'kubectl-client-side-apply').catch((err: unknown) => {
        if (!(err instanceof ApiError && err.status === 409)) throw err;
      });
    }
    // What the platform team applied, and what Crossplane's package manager made of it.
    const spec = { package: ref, packagePullSecrets: [{ name: 'registry' }] };
    const configuration = await create<Stored>(client, { ...CONFIGURATION, spec }, 'kubectl-client-side-apply');
    install = { configuration, digest: pkg.digest, objects };
    const installed = await crossplaneInstall(client, install);
    revisionName = installed.revision.metadata.name;
    expect(revisionName).to.equal(friendlyId(NAME, pkg.digest));
    // The Lock: the Configuration's revision, and the revisions of the Functions its Composition calls (Crossplane
    // ran them from their packages; their revisions are not replayed, compositor serves them in-process).
    replayedLock = await crossplaneLock(client, [
      { name: revisionName, kind: 'Configuration', image: ref },
      ...functions().map((fn) => ({
        name: friendlyId(fn.metadata.name, ZERO_DIGEST),
        kind: 'Function' as const,
        image: String((fn as { spec?: { package?: string } }).spec?.package),
      })),
    ]);
    // What Crossplane's XRD and Composition controllers made of the package's objects.
    const [definition, comp] = installed.objects as [Owned, Owned];
    await create(client, crossplaneXrCrd(definition), 'crossplane');
    await crossplaneDefined(client, definition, api);
    await eventually('the XR CRD served', async () =>
      (await new Discovery(client).resolve(api.apiVersion, api.kind).catch(() => undefined)) ? true : undefined,
    );
    const compositionRevision = newRevision(comp as never, compositionHash(comp), 1) as KubeObject;
    await crossplaneRevision(client, compositionRevision);
    // An XR Crossplane composed from them.
    const xr = { ...xrRefIn('app', api, NAMESPACE), spec: { image: 'nginx:1.27' } } as KubeObject;
    await create(client, xr, 'kubectl-client-side-apply');
    await crossplaneReconcile(client, 'app', {
      of: api,
      namespace: NAMESPACE,
      revision: compositionRevision.metadata.name,
      composedName: 'app-crossplane',
      data: { image: 'nginx:1.27' },
    });
    for (const object of [CONFIGURATION, installed.revision, LOCK_REF, ...objects, xr])
      uids.set(object.kind, await uidOf(object));
    uids.set('ConfigMap', await uidOf(CONFIG_MAP));
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
  });

  after(async () => {
    await engine?.stop();
    // No Crossplane runs to remove its finalizers: they go by hand, then the Configuration, whose revision and
    // objects the garbage collector deletes, so later test files find nothing of this one pulling a stopped registry.
    for (const object of [xrRefIn('app', api, NAMESPACE), { ...REVISION, metadata: { name: revisionName } }]) {
      await mergePatch(client, object, { metadata: { finalizers: null } }).catch(() => undefined);
      await remove(client, object).catch(() => undefined);
    }
    await remove(client, CONFIGURATION).catch(() => undefined);
    // The Lock without what Crossplane's replay added: its entries and its finalizer (its resolver would remove that
    // once no package is left).
    const lock = await get<Stored & { packages?: { name: string }[] }>(client, LOCK_REF);
    const replayed = new Set([revisionName, ...functions().map((fn) => friendlyId(fn.metadata.name, ZERO_DIGEST))]);
    const kept = (lock?.packages ?? []).filter((p) => !replayed.has(p.name));
    await mergePatch(client, LOCK_REF, { metadata: { finalizers: null }, packages: kept }).catch(() => undefined);
    await registry.stop();
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it('adopts what Crossplane installed: nothing recreated or written, no new revision, the same controllers', async () => {
    const packaged = [CONFIGURATION, { ...REVISION, metadata: { name: revisionName } }, ...objects];
    const versions = new Map<string, string | undefined>();
    for (const object of packaged)
      versions.set(object.kind, (await must<Stored>(client, object)).metadata.resourceVersion);
    engine = await startEngine({
      pollIntervalMs: 5_000,
      packageRuntime: 'Deployment',
      leaderElectionNamespace: NS,
      xpkgCacheDir: cacheDir ?? '',
    });
    await eventually('the XR reconciled by compositor', async () => {
      const xr = await get<Stored>(client, xrRefIn('app', api, NAMESPACE));
      if (xr?.status?.effectivePollInterval && condition(xr, 'Ready')?.status === 'True') return true;
      throw new Error(JSON.stringify(xr?.status));
    });
    // compositor resolved the tag (a HEAD or GET of the manifest), so its controllers have seen the Configuration.
    await eventually('the package resolved by compositor', () => {
      const pulls = [
        ...registry.requests('HEAD', '/platform/apis/manifests/'),
        ...registry.requests('GET', '/platform/apis/manifests/'),
      ];
      return Promise.resolve(pulls.length > 0 ? pulls : undefined);
    });
    const log = await settled(engine);
    const names = [NAME, api.group, `/namespaces/${NAMESPACE}/`, `${api.plural}-`, `compositions/${api.plural}`];
    // The package's objects: one dry run of each object's apply, which shows it already as the package has it, so no
    // write. The rest as for any XR (migration.test.ts): its CRD, its status, its composed resource.
    expect(countWrites(log, names), 'writes at takeover').to.deep.equal({
      'PATCH compositeresourcedefinitions (dry run)': 1,
      'PATCH compositions (dry run)': 1,
      'PATCH customresourcedefinitions': 1,
      'PATCH xtakeovers/status': 1,
      'PATCH configmaps': 1,
    });
    for (const object of packaged) {
      const stored = await must<Owned>(client, object);
      expect(stored.metadata.uid, `${object.kind}: the same object`).to.equal(uids.get(object.kind));
      expect(stored.metadata.resourceVersion, `${object.kind}: not written`).to.equal(versions.get(object.kind));
    }
    const revisions = await client.request<{ items: Owned[] }>(
      'GET',
      '/apis/pkg.crossplane.io/v1/configurationrevisions',
      {
        query: { labelSelector: `${LABEL_PACKAGE}=${NAME}` },
      },
    );
    expect(
      revisions.items.map((r) => r.metadata.name),
      'no new revision',
    ).to.deep.equal([revisionName]);
    for (const object of objects) {
      expect(controllerOf(await must<Owned>(client, object)), object.kind).to.equal(
        `ConfigurationRevision/${revisionName}`,
      );
    }
    const revision = await must<Owned>(client, { ...REVISION, metadata: { name: revisionName } });
    expect(revision.metadata.finalizers, "Crossplane's finalizer").to.deep.equal([REVISION_FINALIZER]);
    // The Lock: the same object, every entry Crossplane made as it was, no package listed twice. Other test files'
    // Functions may add entries of their own, so the object itself may have been written.
    const lock = await must<Owned & { packages?: LockEntry[] }>(client, LOCK_REF);
    expect(lock.metadata.uid, 'the same Lock').to.equal(uids.get('Lock'));
    expect(lock.metadata.finalizers, "the Lock keeps Crossplane's finalizer").to.include(LOCK_FINALIZER);
    const replayedNames = new Set([
      revisionName,
      ...functions().map((fn) => friendlyId(fn.metadata.name, ZERO_DIGEST)),
    ]);
    const replayed = (replayedLock.packages ?? []).filter((p) => replayedNames.has(p.name));
    expect(replayed.map((p) => p.name)).to.include(revisionName);
    for (const entry of replayed) {
      expect(lock.packages, `${entry.name} as Crossplane listed it`).to.deep.include(entry);
      const listed = (lock.packages ?? []).filter((p) => p.source === entry.source);
      expect(listed, `${entry.source} listed once`).to.have.length(1);
    }
    const cm = await must<Stored>(client, CONFIG_MAP);
    expect(cm.metadata.uid, 'the composed ConfigMap').to.equal(uids.get('ConfigMap'));
  });

  it("hands back to Crossplane: its package manager's next reconciles succeed and change nothing compositor left", async () => {
    await engine?.stop();
    engine = undefined;
    const definition = await must<Owned>(client, objects[0] as KubeObject);
    // Throws what the API server answers: a conflict or a refusal of Crossplane's writes fails the test here.
    const record = await crossplaneResync(client, install);
    // Crossplane's establisher updates each object with the package's copy, which has no finalizers: the XRD loses
    // its XRD controller's finalizer (which that controller puts back) and its generation moves, with or without
    // compositor, which wrote none of these objects. Nothing else of any object changes.
    expect(changing(record)).to.deep.equal(['update CompositeResourceDefinition']);
    const after = await must<Owned>(client, definition);
    expect(after.metadata.finalizers ?? []).to.deep.equal([]);
    expect(comparable(after)).to.deep.equal(comparable(definition));
    for (const object of objects) {
      const stored = await must<Owned>(client, object);
      expect(stored.metadata.uid, object.kind).to.equal(uids.get(object.kind));
      expect(controllerOf(stored), object.kind).to.equal(`ConfigurationRevision/${revisionName}`);
    }
  });
});

/** An object but for what Crossplane's update of it changes: field managers, resourceVersion, generation, finalizers. */
function comparable({ metadata, ...rest }: Owned): unknown {
  const { managedFields: _m, resourceVersion: _r, generation: _g, finalizers: _f, ...kept } = metadata;
  return { ...rest, metadata: kept };
}
