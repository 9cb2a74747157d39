import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCrds } from '../../src/apis/index.js';
import { ensureCrds, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { generateCa, issueLeaf, needsReissue } from '../../src/packages/certificates.js';
import { dnsNamesForService, ROOT_CA_SECRET, serverSecretName } from '../../src/packages/names.js';
import { parsePackage } from '../../src/packages/xpkg/index.js';
import { buildPackage } from '../unit/fakes/xpkg.js';
import { pullSecret } from '../unit/fakes/registry.js';
import {
  crossplaneLock,
  friendlyId,
  LABEL_PACKAGE,
  LOCK_FINALIZER,
  LOCK_REF,
  REVISION_FINALIZER,
  type Owned,
} from './crossplanePackageReplay.js';
import { crossplaneProviderInstall, type ProviderInstalled } from './crossplaneProviderReplay.js';
import { create, must, type Stored } from './crossplaneReplay.js';
import { countWrites, settled } from './crossplaneTakeover.js';
import { apply, ensureNamespace, get, mergePatch, remove, startEngine, type RunningEngine } from './engine.js';
import { controlPlane, eventually } from './harness.js';
import { packageStream, TestRegistry } from './registry.js';

// Taking over a Provider Crossplane v2.3 installed, on the real API server (--enable-providers,
// --package-runtime=Deployment). crossplaneProviderReplay.ts makes Crossplane's writes (no Crossplane binary runs):
// the revision, the MRD and its CRD, the runtime's ServiceAccount, Service, Deployment and TLS Secrets, the RBAC
// manager's roles and binding, the Lock entry. provider-nop is pushed to a real registry (its group renamed, so no
// other test's CRD is touched), so compositor resolves the same digest and so the same revision name. compositor must
// adopt all of it: no new revision, nothing recreated, and only the writes docs/migration.md lists.

const NS = 'migration-providers-system';
const NAME = 'provider-migration-nop';
const GROUP = 'nop.migration.example.org';
const PROVIDER = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Provider', metadata: { name: NAME } };
const REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'ProviderRevision' };

/** Plays kubelet: the runtime's Deployment Available, as Crossplane's runtime saw it before it stopped. */
async function markAvailable(client: KubeClient, name: string): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z/, 'Z');
  const available = { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok' };
  await client.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/${name}/status`, {
    body: { status: { conditions: [{ ...available, lastUpdateTime: now, lastTransitionTime: now }] } },
    contentType: 'application/merge-patch+json',
  });
}

/** An object but for who owns its fields: managedFields and resourceVersion. */
function withoutOwnership({ metadata, ...rest }: Stored): unknown {
  const {
    managedFields: _m,
    resourceVersion: _r,
    ...kept
  } = metadata as Stored['metadata'] & {
    managedFields?: unknown;
  };
  return { ...rest, metadata: kept };
}

interface LockEntry {
  name: string;
  source: string;
}

function key(object: KubeObject): string {
  return `${object.kind}/${object.metadata.name}`;
}

describe('migration of a Provider Crossplane installed', function () {
  this.timeout(120_000);
  const registry = new TestRegistry('htpasswd');
  let engine: RunningEngine | undefined;
  let client: KubeClient;
  let cacheDir: string | undefined;
  let installed: ProviderInstalled;
  let revisionName = '';
  /** The Provider's Lock entry as Crossplane's replay made it. */
  let lockEntry: LockEntry | undefined;
  const versions = new Map<string, { uid?: string; resourceVersion?: string; ref: KubeObject; before: Stored }>();

  before(async () => {
    client = controlPlane().client();
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    await ensureNamespace(client, NS);
    await registry.start();
    const stream = packageStream('provider-nop', ['crds/nop.crossplane.io_nopresources.yaml']).replaceAll(
      'nop.crossplane.io',
      GROUP,
    );
    const pkg = await buildPackage(stream);
    const ref = await registry.push(pkg, 'crossplane-contrib/provider-migration-nop', 'v0.5.0');
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'registry');
    await apply(client, { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { name: 'registry', namespace: NS } });
    // What the platform team applied, and what Crossplane made of it.
    const spec = { package: ref, packagePullSecrets: [{ name: 'registry' }] };
    const provider = await create<Stored>(client, { ...PROVIDER, spec }, 'kubectl-client-side-apply');
    installed = await crossplaneProviderInstall(client, {
      provider,
      digest: pkg.digest,
      objects: parsePackage(stream).objects,
      namespace: NS,
    });
    revisionName = installed.revision.metadata.name;
    expect(revisionName).to.equal(friendlyId(NAME, pkg.digest));
    await markAvailable(client, revisionName);
    const lock = await crossplaneLock(client, [{ name: revisionName, kind: 'Provider', image: ref }]);
    lockEntry = (lock as Stored & { packages?: LockEntry[] }).packages?.find((p) => p.name === revisionName);
    const all = [
      PROVIDER,
      installed.revision,
      ...installed.mrds,
      ...installed.crds,
      ...installed.runtime,
      ...installed.core,
      ...installed.rbac,
    ];
    for (const object of all) {
      const stored = await must<Stored>(client, object);
      versions.set(key(object), {
        uid: stored.metadata.uid,
        resourceVersion: stored.metadata.resourceVersion,
        ref: object,
        before: stored,
      });
    }
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
  });

  after(async () => {
    await engine?.stop();
    // No Crossplane runs to remove its finalizer: it goes by hand, then the Provider, whose revision, MRD, CRD, roles
    // and runtime the garbage collector deletes.
    const revision = { ...REVISION, metadata: { name: revisionName } };
    await mergePatch(client, revision, { metadata: { finalizers: null } }).catch(() => undefined);
    await remove(client, PROVIDER).catch(() => undefined);
    const lock = await get<Stored & { packages?: { name: string }[] }>(client, LOCK_REF).catch(() => undefined);
    const kept = (lock?.packages ?? []).filter((p) => p.name !== revisionName);
    // Its finalizer too, which Crossplane's resolver would remove once no package is left.
    await mergePatch(client, LOCK_REF, { metadata: { finalizers: null }, packages: kept }).catch(() => undefined);
    await registry.stop();
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it('adopts the Provider, its revision, MRD, CRD, runtime and roles: nothing recreated, no new revision', async () => {
    engine = await startEngine({
      packageRuntime: 'Deployment',
      enableProviders: true,
      manageProviderRbac: true,
      defaultActivations: '',
      leaderElectionNamespace: NS,
      xpkgCacheDir: cacheDir ?? '',
    });
    // compositor resolved the tag, so its controllers have seen the Provider.
    await eventually('the package resolved by compositor', () => {
      const pulls = [
        ...registry.requests('HEAD', '/provider-migration-nop/manifests/'),
        ...registry.requests('GET', '/provider-migration-nop/manifests/'),
      ];
      return Promise.resolve(pulls.length > 0 ? pulls : undefined);
    });
    const log = await settled(engine);
    // The Lock apart: other test files' Functions may add entries of their own; the Provider's entry is checked below.
    const names = [NAME, GROUP, revisionName, `/namespaces/${NS}/`];
    // One server-side apply each of the MRD's CRD (the MRD controller's) and the runtime's Service, ServiceAccount and
    // Deployment (the runtime's), under compositor's own field managers: each takes co-ownership of what Crossplane
    // set and changes no value. The MRD: one dry run of its apply, which shows it already as the package has it.
    // Nothing else: not the Provider, its revision or their status, the TLS Secrets, the CA, the roles, the binding.
    expect(countWrites(log, names), `writes at takeover:\n${log.join('\n')}`).to.deep.equal({
      'PATCH customresourcedefinitions': 1,
      'PATCH managedresourcedefinitions (dry run)': 1,
      'PATCH services': 1,
      'PATCH serviceaccounts': 1,
      'PATCH deployments': 1,
    });
    const changed: string[] = [];
    for (const [name, seen] of versions) {
      const stored = await must<Owned>(client, seen.ref);
      expect(stored.metadata.uid, `${name}: the same object`).to.equal(seen.uid);
      if (stored.metadata.resourceVersion === seen.resourceVersion) continue;
      changed.push(name);
      // Only field ownership changed: the Deployment keeps its generation and pod template, so no pod rolls.
      expect(withoutOwnership(stored), `${name}: only its managedFields changed`).to.deep.equal(
        withoutOwnership(seen.before),
      );
    }
    expect(
      changed.map((name) => name.split('/')[0]),
      'objects the takeover wrote',
    ).to.deep.equal(['CustomResourceDefinition', 'Service', 'ServiceAccount', 'Deployment']);
    const revisions = await client.request<{ items: Owned[] }>('GET', '/apis/pkg.crossplane.io/v1/providerrevisions', {
      query: { labelSelector: `${LABEL_PACKAGE}=${NAME}` },
    });
    expect(
      revisions.items.map((r) => r.metadata.name),
      'no new revision',
    ).to.deep.equal([revisionName]);
    const revision = await must<Owned>(client, { ...REVISION, metadata: { name: revisionName } });
    expect(revision.metadata.finalizers, "Crossplane's finalizer").to.deep.equal([REVISION_FINALIZER]);
    const lock = await must<Owned & { packages?: LockEntry[] }>(client, LOCK_REF);
    expect(lock.metadata.finalizers, "the Lock keeps Crossplane's finalizer").to.include(LOCK_FINALIZER);
    expect(lockEntry, 'the replayed entry').to.not.equal(undefined);
    expect(lock.packages, 'the entry as Crossplane listed it').to.deep.include(lockEntry);
    expect((lock.packages ?? []).filter((p) => p.source === lockEntry?.source)).to.have.length(1);
  });
  it('reissues, in place, a provider certificate Crossplane left signed by another CA', async () => {
    await engine?.stop();
    engine = undefined;
    // Crossplane keeps any TLS Secret that has data (internal/initializer/tls.go); compositor keeps one only when the
    // CA Secret of its namespace signed it, since the provider and compositor's webhooks verify against that CA.
    const name = serverSecretName(NAME);
    const other = await generateCa(new Date());
    const leaf = await issueLeaf(other, dnsNamesForService(NAME, NS), 'server', new Date());
    const path = `/api/v1/namespaces/${NS}/secrets/${name}`;
    const encode = (text: string): string => Buffer.from(text).toString('base64');
    const data = { 'tls.crt': encode(leaf.cert), 'tls.key': encode(leaf.key), 'ca.crt': encode(other.cert) };
    const before = await client.request<Stored>('PATCH', path, {
      body: { data },
      contentType: 'application/merge-patch+json',
      query: { fieldManager: 'crossplane' },
    });
    engine = await startEngine({
      packageRuntime: 'Deployment',
      enableProviders: true,
      defaultActivations: '',
      leaderElectionNamespace: NS,
      xpkgCacheDir: cacheDir ?? '',
    });
    const ca = await must<Stored & { data: Record<string, string> }>(client, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: ROOT_CA_SECRET, namespace: NS },
    });
    const caPem = Buffer.from(ca.data['tls.crt'] ?? '', 'base64').toString();
    const reissued = await eventually(`Secret ${name} signed by ${ROOT_CA_SECRET}`, async () => {
      const got = await client.request<Stored & { data: Record<string, string> }>('GET', path);
      const cert = Buffer.from(got.data['tls.crt'] ?? '', 'base64').toString();
      if (!(await needsReissue(cert, caPem, dnsNamesForService(NAME, NS), new Date()))) return got;
      throw new Error(`still signed by another CA; resourceVersion ${String(got.metadata.resourceVersion)}`);
    });
    expect(reissued.metadata.uid, 'the same Secret').to.equal(before.metadata.uid);
    expect(Buffer.from(reissued.data['ca.crt'] ?? '', 'base64').toString(), 'ca.crt').to.equal(caPem);
  });
});
