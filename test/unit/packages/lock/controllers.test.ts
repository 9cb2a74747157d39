import { expect } from 'chai';
import pino from 'pino';
import { reconcileLimits } from '../../../../src/base/index.js';
import { RecordingEventSink, type KubeObject } from '../../../../src/kube/index.js';
import { createMetrics } from '../../../../src/metrics/index.js';
import { ConfigurationRevisionController } from '../../../../src/packages/configuration/index.js';
import {
  LOCK_FINALIZER,
  LockManager,
  LockResolver,
  PROVIDERS_DISABLED,
  type Lock,
} from '../../../../src/packages/lock/index.js';
import type { FetchedPackage } from '../../../../src/packages/xpkg/index.js';
import { ReconcileLimiter } from '../../../../src/queue/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers } from '../../fakes/index.js';

// The revision side and the resolver together on an in-memory API server: a Configuration revision records itself in
// the Lock and is unhealthy with upstream's message until its dependencies are there; the resolver creates the
// Function at the highest tag satisfying the constraint, and leaves a Provider alone while Providers are disabled.

const PKG = 'pkg.crossplane.io/v1';
const LOCK_API = 'pkg.crossplane.io/v1beta1';
const KINDS = [
  { apiVersion: PKG, kind: 'Configuration', plural: 'configurations', namespaced: false },
  { apiVersion: PKG, kind: 'ConfigurationRevision', plural: 'configurationrevisions', namespaced: false },
  { apiVersion: PKG, kind: 'Function', plural: 'functions', namespaced: false },
  { apiVersion: PKG, kind: 'Provider', plural: 'providers', namespaced: false },
  { apiVersion: LOCK_API, kind: 'Lock', plural: 'locks', namespaced: false },
];
const FN = 'xpkg.example.org/crossplane-contrib/function-patch-and-transform';
const HELM = 'xpkg.example.org/upbound/provider-helm';
const DIGEST = `sha256:${'1'.repeat(64)}`;

type Stored = KubeObject & {
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason: string; message?: string }[] } & Record<
    string,
    unknown
  >;
};

const meta = {
  apiVersion: 'meta.pkg.crossplane.io/v1',
  kind: 'Configuration' as const,
  metadata: { name: 'app' },
  spec: {
    dependsOn: [
      { provider: HELM, version: 'v0' },
      { function: FN, version: '>=v0.8.0 <v0.9.0' },
    ],
  },
};

function world(tags: Record<string, string[]>): {
  server: FakeApiServer;
  events: RecordingEventSink;
  revisions: ConfigurationRevisionController;
  resolver: LockResolver;
} {
  const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
  const events = new RecordingEventSink();
  const common = {
    client: server.client,
    discovery: server.discovery,
    informers: new FakeInformers().registry,
    events,
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles), workers: 1 },
  };
  const packages = {
    get: (): Promise<FetchedPackage> =>
      Promise.resolve({ meta: [meta], objects: [], source: '', version: '', digest: DIGEST, resolvedRef: '' }),
  };
  const revisions = new ConfigurationRevisionController({
    ...common,
    namespace: 'crossplane-system',
    packages,
    dependencies: new LockManager(server.client),
  });
  const resolver = new LockResolver({
    ...common,
    providers: false,
    tags: (source: string) => {
      const found = tags[source];
      return found ? Promise.resolve(found) : Promise.reject(new Error(`cannot reach ${source}`));
    },
  });
  server.put({
    apiVersion: PKG,
    kind: 'ConfigurationRevision',
    metadata: { name: 'app-111111111111', labels: { 'pkg.crossplane.io/package': 'app' } },
    spec: {
      desiredState: 'Active',
      image: 'xpkg.example.org/org/app:v1.0.0',
      revision: 1,
      skipDependencyResolution: false,
    },
  });
  return { server, events, revisions, resolver };
}

const signal = new AbortController().signal;
const revision = (server: FakeApiServer): Stored | undefined =>
  server.get<Stored>(PKG, 'ConfigurationRevision', 'app-111111111111');
const health = (server: FakeApiServer): { status: string; message?: string } | undefined =>
  revision(server)?.status?.conditions?.find((c) => c.type === 'RevisionHealthy');
const lock = (server: FakeApiServer): Lock | undefined => server.get(LOCK_API, 'Lock', 'lock');

describe('lock: revisions and the resolver', () => {
  it('records the revision in a new Lock and reports its missing dependencies with the counts', async () => {
    const { server, events, revisions } = world({});
    const err = await revisions.reconcile('app-111111111111', signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect(lock(server)?.packages).to.deep.equal([
      {
        name: 'app-111111111111',
        apiVersion: 'pkg.crossplane.io/v1',
        kind: 'Configuration',
        source: 'xpkg.example.org/org/app',
        version: 'v1.0.0',
        dependencies: [
          { package: HELM, type: 'Provider', constraints: 'v0' },
          { package: FN, type: 'Function', constraints: '>=v0.8.0 <v0.9.0' },
        ],
      },
    ]);
    const status = revision(server)?.status;
    // Upstream's counts are omitempty: the zeros are not written.
    expect(status).to.include({ foundDependencies: 2 });
    expect(status).not.to.have.any.keys('installedDependencies', 'invalidDependencies');
    expect(status?.conditions?.find((c) => c.type === 'RevisionHealthy')).to.include({
      status: 'False',
      reason: 'UnhealthyPackageRevision',
      message: `cannot resolve package dependencies: missing dependencies: [${HELM} ${FN}]`,
    });
    expect(events.events.map((e) => e.input.reason)).to.include('ResolveDependencies');
  });

  it('installs the Function at the highest satisfying tag and reports the Provider it leaves alone', async () => {
    const { server, events, revisions, resolver } = world({ [FN]: ['v0.7.0', 'v0.8.1', 'v0.8.2', 'v0.9.0', 'latest'] });
    await revisions.reconcile('app-111111111111', signal).catch(() => undefined);
    await resolver.reconcile('lock', signal);
    const fn = server.get<Stored>(PKG, 'Function', 'crossplane-contrib-function-patch-and-transform');
    expect(fn?.spec).to.deep.equal({ package: `${FN}:v0.8.2` });
    expect(server.get(PKG, 'Provider', 'upbound-provider-helm')).to.equal(undefined);
    const resolved = lock(server)?.status?.conditions?.find((c) => c.type === 'Resolved');
    expect(resolved).to.include({
      status: 'False',
      reason: 'DependencyResolutionFailed',
      message: `Error occurred during dependency resolution ${PROVIDERS_DISABLED}: [${HELM}]`,
    });
    expect(events.events.some((e) => e.input.type === 'Warning' && e.input.message.includes(HELM))).to.equal(true);
  });

  it('is healthy once the Lock holds every dependency at a valid version, and unhealthy when one is invalid', async () => {
    const { server, revisions } = world({});
    await revisions.reconcile('app-111111111111', signal).catch(() => undefined);
    const current = lock(server);
    const installed = (version: string): Lock['packages'] => [
      ...(current?.packages ?? []),
      { name: 'fn-1', type: 'Function', source: FN, version, dependencies: [] },
      { name: 'helm-1', type: 'Provider', source: HELM, version: 'v0.20.0', dependencies: [] },
    ];
    server.put({ ...current, packages: installed('v0.8.2') } as unknown as KubeObject);
    await revisions.reconcile('app-111111111111', signal);
    expect(revision(server)?.status).to.include({ foundDependencies: 2, installedDependencies: 2 });
    expect(revision(server)?.status).not.to.have.property('invalidDependencies');
    expect(health(server)?.status).to.equal('True');

    server.put({ ...lock(server), packages: installed('v0.9.0') } as unknown as KubeObject);
    await revisions.reconcile('app-111111111111', signal).catch(() => undefined);
    expect(revision(server)?.status).to.include({ invalidDependencies: 1 });
    expect(health(server)?.message).to.equal(
      `cannot resolve package dependencies: incompatible dependencies: existing package ${FN}@v0.9.0 is incompatible with constraint >=v0.8.0 <v0.9.0`,
    );

    server.put({ ...lock(server), packages: installed('v0.8.2') } as unknown as KubeObject);
    await revisions.reconcile('app-111111111111', signal);
    expect(revision(server)?.status, 'a count back to zero is removed').not.to.have.property('invalidDependencies');
  });

  it('retries a conflict on the Lock without reporting it on the revision', async () => {
    const { server, events, revisions } = world({});
    await revisions.reconcile('app-111111111111', signal).catch(() => undefined);
    server.put({ ...lock(server), packages: [] } as unknown as KubeObject);
    const before = events.events.length;
    const healthBefore = health(server);
    server.failNext((r) => r.method === 'PUT' && r.path.includes('/locks/'), 409);
    const err = await revisions.reconcile('app-111111111111', signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.have.property('status', 409);
    expect(events.events.length, 'no event for a conflict').to.equal(before);
    expect(health(server)).to.deep.equal(healthBefore);
  });

  it('reports a dependency with no satisfying tag as upstream, creating nothing', async () => {
    const { server, resolver, revisions } = world({ [FN]: ['v0.7.0', 'v1.0.0'] });
    await revisions.reconcile('app-111111111111', signal).catch(() => undefined);
    const err = await resolver.reconcile('lock', signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect(server.get(PKG, 'Function', 'crossplane-contrib-function-patch-and-transform')).to.equal(undefined);
    expect(lock(server)?.status?.conditions?.find((c) => c.type === 'Resolved')?.message).to.equal(
      `Error occurred during dependency resolution dependency (${FN}) does not have a valid version to upgrade that satisfies all constraints. If there is a valid version that requires downgrade, manual intervention is required. Constraints: >=v0.8.0 <v0.9.0`,
    );
  });

  it('leaves the Lock alone for a revision that skips dependency resolution, and removes an inactive one', async () => {
    const { server, revisions } = world({});
    server.put({ ...revision(server), spec: { ...revision(server)?.spec, skipDependencyResolution: true } } as Stored);
    await revisions.reconcile('app-111111111111', signal);
    expect(lock(server)).to.equal(undefined);
    server.put({ ...revision(server), spec: { ...revision(server)?.spec, skipDependencyResolution: false } } as Stored);
    await revisions.reconcile('app-111111111111', signal).catch(() => undefined);
    expect(lock(server)?.packages).to.have.length(1);
    server.put({ ...revision(server), spec: { ...revision(server)?.spec, desiredState: 'Inactive' } } as Stored);
    await revisions.reconcile('app-111111111111', signal);
    expect(lock(server)?.packages).to.deep.equal([]);
  });

  it("removes upstream's finalizer from an empty Lock only, so deleting it after every package finishes", async () => {
    const { server, resolver } = world({});
    const adopted = { apiVersion: LOCK_API, kind: 'Lock', metadata: { name: 'lock', finalizers: [LOCK_FINALIZER] } };
    server.put({
      ...adopted,
      packages: [{ name: 'x', type: 'Function', source: FN, version: 'v0.8.1', dependencies: [] }],
    });
    await resolver.reconcile('lock', signal);
    expect(lock(server)?.metadata.finalizers, 'a Lock listing packages keeps it').to.deep.equal([LOCK_FINALIZER]);
    server.put({ ...lock(server), packages: [] } as unknown as KubeObject);
    await resolver.reconcile('lock', signal);
    expect(lock(server)?.metadata.finalizers ?? []).to.deep.equal([]);
  });
});
