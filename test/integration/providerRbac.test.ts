import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTENT_TYPE, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { buildPackage } from '../unit/fakes/xpkg.js';
import { pullSecret } from '../unit/fakes/registry.js';
import { apply, eventsFor, get, mergePatch, remove, startEngine, type RunningEngine } from './engine.js';
import { controlPlane, eventually } from './harness.js';
import { packageStream, TestRegistry } from './registry.js';

// The RBAC manager's part for Providers end to end (--enable-providers, --manage-provider-rbac): upstream's
// provider-nop, its group renamed so no other test's MRD is in the way, installed from a real registry on a real API
// server. Each ProviderRevision gets the three ClusterRoles and the binding Crossplane's RBAC manager gives it, with
// upstream's names, labels, rules and controller; a second revision gets its own; roles and a binding Crossplane made
// are taken over by a restarted compositor without a single write.
const NS = 'provider-rbac-system';
const GROUP = 'rbac.nop.example.org';
const RBAC = 'rbac.authorization.k8s.io/v1';
const PROVIDER = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Provider' };
const REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'ProviderRevision' };
const NAME = 'provider-rbac-nop';
const CONTROLLER = 'packages/rbac.providerrevision.pkg.crossplane.io';

interface Meta {
  [key: string]: unknown;
  name: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  ownerReferences?: Record<string, unknown>[];
  managedFields?: { manager?: string }[];
}
type Role = KubeObject & { metadata: Meta; rules?: Record<string, unknown>[] };
type Binding = KubeObject & { metadata: Meta; roleRef?: Record<string, string>; subjects?: Record<string, string>[] };
type Pkg = KubeObject & { metadata: Meta; status?: { currentRevision?: string; objectRefs?: unknown[] } };

const role = (name: string): Role => ({ apiVersion: RBAC, kind: 'ClusterRole', metadata: { name } });
type Deployment = KubeObject & {
  metadata: Meta & { ownerReferences?: { uid: string }[] };
  spec: { template: { spec: { serviceAccountName: string } } };
};

const binding = (name: string): Binding => ({ apiVersion: RBAC, kind: 'ClusterRoleBinding', metadata: { name } });

/** The roles Crossplane v2.3's RBAC manager renders for a revision of this package (roles.go), written out by hand. */
function upstreamRoles(revision: string, uid: string): Role[] {
  const kinds = { apiGroups: [GROUP], resources: ['nopresources', 'nopresources/status'] };
  const owner = { ...REVISION, name: revision, uid, controller: true, blockOwnerDeletion: true };
  const meta = (suffix: string, labels: Record<string, string>): Meta => ({
    name: `crossplane:provider:${revision}:${suffix}`,
    labels,
    ownerReferences: [owner],
  });
  return [
    {
      ...role(''),
      metadata: meta('aggregate-to-edit', {
        'rbac.crossplane.io/aggregate-to-crossplane': 'true',
        'rbac.crossplane.io/aggregate-to-admin': 'true',
        'rbac.crossplane.io/aggregate-to-edit': 'true',
      }),
      rules: [{ ...kinds, verbs: ['*'] }],
    },
    {
      ...role(''),
      metadata: meta('aggregate-to-view', { 'rbac.crossplane.io/aggregate-to-view': 'true' }),
      rules: [{ ...kinds, verbs: ['get', 'list', 'watch'] }],
    },
    {
      ...role(''),
      metadata: meta('system', { 'rbac.crossplane.io/system': revision }),
      rules: [
        { ...kinds, verbs: ['get', 'list', 'watch', 'update', 'patch', 'create'] },
        { apiGroups: [GROUP], resources: ['*/finalizers'], verbs: ['update'] },
        {
          apiGroups: ['', 'coordination.k8s.io'],
          resources: ['secrets', 'configmaps', 'events', 'leases'],
          verbs: ['*'],
        },
      ],
    },
  ];
}

/** Labels, rules and owners of a stored role, the fields upstream sets. */
function fieldsOf(stored: Role | undefined): unknown {
  if (stored === undefined) return undefined;
  const { name, labels, ownerReferences } = stored.metadata;
  return { name, labels, ownerReferences, rules: stored.rules };
}

/** The Provider's current revision once it is Active and lists its MRD: its name and uid. */
async function activeRevision(
  client: KubeClient,
  provider: string,
  not?: string,
): Promise<{ name: string; uid: string }> {
  const what = `Provider ${provider} has an active revision${not === undefined ? '' : ` other than ${not}`} listing its MRD`;
  return eventually(
    what,
    async () => {
      const pkg = await get<Pkg>(client, { ...PROVIDER, metadata: { name: provider } });
      const name = pkg?.status?.currentRevision ?? '';
      const rev = name === '' || name === not ? undefined : await installed(client, name);
      if (rev === undefined) throw new Error(JSON.stringify(pkg?.status));
      return rev;
    },
    { timeoutMs: 40_000 },
  );
}

/** The revision's name and uid once it lists what it installed. */
async function installed(client: KubeClient, name: string): Promise<{ name: string; uid: string } | undefined> {
  const rev = await get<Pkg>(client, { ...REVISION, metadata: { name } });
  const uid = rev?.metadata.uid;
  return uid === undefined || (rev?.status?.objectRefs ?? []).length === 0 ? undefined : { name, uid };
}

/** The revision's three roles once they are all there. */
function rolesOf(client: KubeClient, revision: string): Promise<Role[]> {
  return eventually(`the ClusterRoles of ${revision}`, async () => {
    const names = ['aggregate-to-edit', 'aggregate-to-view', 'system'].map(
      (s) => `crossplane:provider:${revision}:${s}`,
    );
    const roles = await Promise.all(names.map((name) => get<Role>(client, role(name))));
    if (roles.some((r) => r === undefined))
      throw new Error(`seen: ${JSON.stringify(roles.map((r) => r?.metadata.name))}`);
    return roles as Role[];
  });
}

describe('Provider RBAC as Crossplane’s RBAC manager (integration)', function () {
  this.timeout(90_000);
  const registry = new TestRegistry('token');
  let running: RunningEngine | undefined;
  let client: KubeClient;
  let cacheDir: string | undefined;
  const refs: string[] = [];
  const revisions: { name: string; uid: string }[] = [];

  const engine = (): Promise<RunningEngine> =>
    startEngine({
      packageRuntime: 'Deployment',
      enableProviders: true,
      manageProviderRbac: true,
      defaultActivations: '',
      leaderElectionNamespace: NS,
      ...(cacheDir !== undefined ? { xpkgCacheDir: cacheDir } : {}),
    });

  before(async () => {
    client = controlPlane().client();
    await registry.start();
    const stream = packageStream('provider-nop', ['crds/nop.crossplane.io_nopresources.yaml']).replaceAll(
      'nop.crossplane.io',
      GROUP,
    );
    for (const [tag, text] of [
      ['v1', stream],
      ['v2', stream.replace('    license: Apache-2.0', '    license: Apache-2.0\n    release: second')],
    ] as const) {
      refs.push(await registry.push(await buildPackage(text), 'crossplane-contrib/provider-rbac-nop', tag));
    }
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
    running = await engine();
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'registry');
    await apply(client, { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { name: 'registry', namespace: NS } });
  });

  after(async () => {
    await remove(client, { ...PROVIDER, metadata: { name: NAME } }).catch(() => undefined);
    await remove(client, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'rbac-probe-runtime', namespace: NS },
    }).catch(() => undefined);
    await running?.stop();
    await registry.stop();
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it("gives the active revision upstream's three ClusterRoles and a binding of its system role, controlled by it", async () => {
    await apply(client, {
      ...PROVIDER,
      metadata: { name: NAME },
      spec: { package: refs[0], packagePullSecrets: [{ name: 'registry' }] },
    });
    const rev = await activeRevision(client, NAME);
    revisions.push(rev);
    expect((await rolesOf(client, rev.name)).map(fieldsOf)).to.deep.equal(
      upstreamRoles(rev.name, rev.uid).map(fieldsOf),
    );
    const system = `crossplane:provider:${rev.name}:system`;
    const stored = await eventually(`ClusterRoleBinding ${system}`, async () => {
      const got = await get<Binding>(client, binding(system));
      if (got === undefined) throw new Error('no binding yet');
      return got;
    });
    expect(stored.roleRef).to.deep.equal({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: system });
    expect(stored.metadata.ownerReferences).to.deep.equal(
      upstreamRoles(rev.name, rev.uid)[0]?.metadata.ownerReferences,
    );
    const note = `Applied RBAC ClusterRoles: crossplane:provider:${rev.name}:aggregate-to-edit, crossplane:provider:${rev.name}:aggregate-to-view, and ${system}`;
    await eventually(`the ApplyClusterRoles event of ${rev.name}`, async () => {
      const events = await eventsFor(client, 'default', rev.uid, 'ApplyClusterRoles');
      if (!events.some((e) => e.type === 'Normal' && e.note === note)) throw new Error(JSON.stringify(events));
      return events;
    });
  });

  it('binds the system role to the ServiceAccount of a Deployment the revision owns, once the revision changes', async () => {
    const [rev] = revisions;
    if (rev === undefined) throw new Error('the first test installs the revision');
    await apply(client, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'rbac-probe-runtime',
        namespace: NS,
        ownerReferences: [{ ...REVISION, name: rev.name, uid: rev.uid }],
      },
      spec: {
        selector: { matchLabels: { app: 'rbac-probe-runtime' } },
        template: {
          metadata: { labels: { app: 'rbac-probe-runtime' } },
          spec: { serviceAccountName: 'rbac-probe', containers: [{ name: 'runtime', image: 'example.invalid/none' }] },
        },
      },
    });
    // Any change to the revision looks again, as its runtime's health written to it would.
    await mergePatch(
      client,
      { ...REVISION, metadata: { name: rev.name } },
      { metadata: { annotations: { probe: '1' } } },
    );
    const system = `crossplane:provider:${rev.name}:system`;
    await eventually(`ClusterRoleBinding ${system} binds rbac-probe`, async () => {
      const got = await get<Binding>(client, binding(system));
      const subject = { kind: 'ServiceAccount', namespace: NS, name: 'rbac-probe' };
      const bound = (got?.subjects ?? []).some((s) =>
        Object.entries(subject).every(([key, value]) => s[key] === value),
      );
      if (!bound) throw new Error(`subjects: ${JSON.stringify(got?.subjects)}`);
      return got;
    });
  });

  it('gives a second revision roles of its own, and leaves the first revision’s', async () => {
    const [first] = revisions;
    if (first === undefined) throw new Error('the first test installs the revision');
    await mergePatch(client, { ...PROVIDER, metadata: { name: NAME } }, { spec: { package: refs[1] } });
    const second = await activeRevision(client, NAME, first.name);
    revisions.push(second);
    expect((await rolesOf(client, second.name)).map(fieldsOf)).to.deep.equal(
      upstreamRoles(second.name, second.uid).map(fieldsOf),
    );
    expect((await rolesOf(client, first.name)).map(fieldsOf)).to.deep.equal(
      upstreamRoles(first.name, first.uid).map(fieldsOf),
    );
  });

  it('takes over the roles and binding Crossplane made for a revision without writing them', async () => {
    const rev = revisions[1];
    if (rev === undefined) throw new Error('the previous test installs the second revision');
    // The active revision's runtime Deployment, which the binding names, made before the engine stops.
    const owned = await eventually('the active revision runs its Deployment', async () => {
      const deployments = await client.request<{ items: Deployment[] }>(
        'GET',
        `/apis/apps/v1/namespaces/${NS}/deployments`,
      );
      const items = deployments.items.filter((d) => (d.metadata.ownerReferences ?? []).some((o) => o.uid === rev.uid));
      return items.length > 0 ? items : undefined;
    });
    await running?.stop();
    running = undefined;
    // As Crossplane's RBAC manager left them: created by its own client, with its own field manager.
    const system = `crossplane:provider:${rev.name}:system`;
    // Its binding names the ServiceAccount of each Deployment the revision owns, as upstream's lists them.
    const subjects = owned.map((d) => ({
      kind: 'ServiceAccount',
      namespace: NS,
      name: d.spec.template.spec.serviceAccountName,
    }));
    const crossplaneMade: KubeObject[] = [
      ...upstreamRoles(rev.name, rev.uid),
      {
        ...binding(system),
        metadata: { name: system, ownerReferences: upstreamRoles(rev.name, rev.uid)[0]?.metadata.ownerReferences },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: system },
        ...(subjects.length > 0 ? { subjects } : {}),
      },
    ];
    const versions = new Map<string, string | undefined>();
    for (const object of crossplaneMade) {
      await remove(client, object);
      const plural = object.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings';
      const created = await client.request<Role>('POST', `/apis/${RBAC}/${plural}`, {
        body: object,
        contentType: CONTENT_TYPE.json,
        query: { fieldManager: 'crossplane' },
      });
      versions.set(`${object.kind}/${object.metadata.name}`, created.metadata.resourceVersion);
    }
    running = await engine();
    const restarted = running;
    // Both revisions are reconciled once the caches sync; wait for the second one to have been.
    await eventually(`${CONTROLLER} reconciled both revisions`, async () => {
      const count = await restarted.reconciles(CONTROLLER);
      if (count < 2) throw new Error(`reconciles: ${count}`);
      return count;
    });
    // Only the objects Crossplane made: the other revision's binding may catch up with its Deployment's deletion.
    const adopted = crossplaneMade.map((o) => `/${o.metadata.name}`);
    const rbacWrites = restarted
      .writeLog()
      .filter((w) => w.includes('/clusterrole') && adopted.some((name) => w.endsWith(name)));
    expect(rbacWrites, 'writes to the ClusterRoles or ClusterRoleBinding Crossplane made').to.deep.equal([]);
    for (const object of crossplaneMade) {
      const stored = await get<Role>(client, object);
      expect(stored?.metadata.resourceVersion, `${object.kind} ${object.metadata.name}`).to.equal(
        versions.get(`${object.kind}/${object.metadata.name}`),
      );
    }
  });
});
