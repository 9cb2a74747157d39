import { expect } from 'chai';
import pino from 'pino';
import { reconcileLimits } from '../../../../src/base/index.js';
import { RecordingEventSink, type KubeObject } from '../../../../src/kube/index.js';
import { createMetrics } from '../../../../src/metrics/index.js';
import { LockManager, LockResolver, type Lock, type LockPackage } from '../../../../src/packages/lock/index.js';
import { ReconcileLimiter } from '../../../../src/queue/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers } from '../../fakes/index.js';

// The resolver with --enable-dependency-version-upgrades on an in-memory API server: an installed Function whose
// version breaks a constraint of a package in the Lock has its spec.package moved, with one write and nothing
// deleted; a move that would go down waits for --enable-dependency-version-downgrades, with upstream's message.

const PKG = 'pkg.crossplane.io/v1';
const LOCK_API = 'pkg.crossplane.io/v1beta1';
const KINDS = [
  { apiVersion: PKG, kind: 'Function', plural: 'functions', namespaced: false },
  { apiVersion: PKG, kind: 'Provider', plural: 'providers', namespaced: false },
  { apiVersion: PKG, kind: 'Configuration', plural: 'configurations', namespaced: false },
  { apiVersion: LOCK_API, kind: 'Lock', plural: 'locks', namespaced: false },
];
const FN = 'xpkg.example.org/org/function-x';
const FN_NAME = 'org-function-x';
const TAGS = ['v0.8.2', 'v0.9.0', 'v0.9.1', 'v1.0.0'];

type Stored = KubeObject & { spec: { package: string } };

const parent = (name: string, constraints: string): LockPackage => ({
  name,
  apiVersion: PKG,
  kind: 'Configuration',
  source: `xpkg.example.org/org/${name}`,
  version: 'v1.0.0',
  dependencies: [{ package: FN, type: 'Function', constraints }],
});

function world(
  options: { downgrades?: boolean; installed: string; resolved?: string },
  parents: LockPackage[],
): { server: FakeApiServer; events: RecordingEventSink; resolver: LockResolver } {
  const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
  const events = new RecordingEventSink();
  const resolver = new LockResolver({
    client: server.client,
    discovery: server.discovery,
    informers: new FakeInformers().registry,
    events,
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles), workers: 1 },
    providers: false,
    upgrades: true,
    downgrades: options.downgrades ?? false,
    tags: () => Promise.resolve(TAGS),
  });
  server.put({
    apiVersion: PKG,
    kind: 'Function',
    metadata: { name: FN_NAME },
    spec: { package: `${FN}:${options.installed}` },
    ...(options.resolved !== undefined ? { status: { resolvedPackage: `${FN}:${options.resolved}` } } : {}),
  });
  const fnInLock: LockPackage = {
    name: `${FN_NAME}-abc`,
    apiVersion: PKG,
    kind: 'Function',
    source: FN,
    version: options.installed,
    dependencies: [],
  };
  server.put({ apiVersion: LOCK_API, kind: 'Lock', metadata: { name: 'lock' }, packages: [...parents, fnInLock] });
  return { server, events, resolver };
}

const signal = new AbortController().signal;
const resolved = (server: FakeApiServer): { status: string; reason: string; message?: string } | undefined =>
  (server.get(LOCK_API, 'Lock', 'lock') as Lock | undefined)?.status?.conditions?.find((c) => c.type === 'Resolved');
const functionWrites = (server: FakeApiServer): string[] =>
  server
    .writes()
    .filter((r) => r.path.startsWith('/apis/pkg.crossplane.io/v1/functions'))
    .map((r) => r.method);

describe('lock: the resolver upgrading an installed dependency', () => {
  it('moves the Function to the lowest tag satisfying every constraint with one patch of spec.package', async () => {
    const { server, events, resolver } = world({ installed: 'v0.8.2' }, [
      parent('a', '>=v0.8.0'),
      parent('b', '>=v0.9.0'),
    ]);
    await resolver.reconcile('lock', signal);
    expect(server.get<Stored>(PKG, 'Function', FN_NAME)?.spec).to.deep.equal({ package: `${FN}:v0.9.0` });
    expect(functionWrites(server), 'one write, no delete, no create').to.deep.equal(['PATCH']);
    expect(resolved(server)).to.include({ status: 'True', reason: 'DependencyResolutionSucceeded' });
    expect(events.events.map((e) => e.input.message)).to.deep.equal([
      `Updated dependency Function "${FN_NAME}" from ${FN}:v0.8.2 to ${FN}:v0.9.0`,
    ]);

    // Its revision not yet in the Lock at the new version: the package names it already, so nothing is written.
    await resolver.reconcile('lock', signal);
    expect(functionWrites(server)).to.deep.equal(['PATCH']);
  });

  it('counts the installed version from status.resolvedPackage when it is set', async () => {
    // An ImageConfig rewrite runs v0.9.1 for a spec.package of v0.8.2: upgrades start from v0.9.1, not v0.9.0.
    const { server, resolver } = world({ installed: 'v0.8.2', resolved: 'v0.9.1' }, [parent('b', '>=v0.9.0')]);
    await resolver.reconcile('lock', signal);
    expect(server.get<Stored>(PKG, 'Function', FN_NAME)?.spec.package).to.equal(`${FN}:v0.9.1`);
  });

  it('refuses to go down without downgrades, with upstream message, and leaves the Function as it is', async () => {
    const { server, resolver } = world({ installed: 'v1.0.0' }, [parent('b', '<v0.9.0')]);
    const err = await resolver.reconcile('lock', signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, 'retried with backoff').to.be.instanceOf(Error);
    expect(server.get<Stored>(PKG, 'Function', FN_NAME)?.spec.package).to.equal(`${FN}:v1.0.0`);
    expect(functionWrites(server)).to.deep.equal([]);
    expect(resolved(server)).to.deep.include({
      status: 'False',
      reason: 'DependencyResolutionFailed',
      message: `Error occurred during dependency resolution cannot find dependency version to upgrade: dependency (${FN}) does not have a valid version to upgrade that satisfies all constraints. If there is a valid version that requires downgrade, manual intervention is required. Constraints: [<v0.9.0]`,
    });
  });

  it('goes down to the highest satisfying tag with downgrades', async () => {
    const { server, resolver } = world({ installed: 'v1.0.0', downgrades: true }, [parent('b', '<v0.9.1')]);
    await resolver.reconcile('lock', signal);
    expect(server.get<Stored>(PKG, 'Function', FN_NAME)?.spec.package).to.equal(`${FN}:v0.9.0`);
  });

  it('moves to the digest every constraint pins without asking the registry', async () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const { server, resolver } = world({ installed: 'v0.8.2' }, [parent('a', digest), parent('b', digest)]);
    await resolver.reconcile('lock', signal);
    expect(server.get<Stored>(PKG, 'Function', FN_NAME)?.spec.package).to.equal(`${FN}@${digest}`);
  });

  it('reports a failed update on the Lock and retries', async () => {
    const { server, resolver } = world({ installed: 'v0.8.2' }, [parent('b', '>=v0.9.0')]);
    server.failNext((r) => r.method === 'PATCH' && r.path.includes('/functions/'), 409);
    const err = await resolver.reconcile('lock', signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect(resolved(server)?.message).to.match(
      /^Error occurred during dependency resolution cannot update dependency package: /,
    );
    expect(server.get<Stored>(PKG, 'Function', FN_NAME)?.spec.package).to.equal(`${FN}:v0.8.2`);
  });
});

describe('lock: a Function a built-in serves, moved by an upgrade', () => {
  const entries = (server: FakeApiServer): LockPackage[] =>
    (server.get(LOCK_API, 'Lock', 'lock') as Lock | undefined)?.packages ?? [];

  it('has its own Lock entry follow its package to the new version', async () => {
    const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
    const manager = new LockManager(server.client);
    await manager.recordUnlessListed({ name: FN_NAME, type: 'Function', image: `${FN}:v0.8.2` }, signal);
    await manager.recordUnlessListed({ name: FN_NAME, type: 'Function', image: `${FN}:v0.9.0` }, signal);
    expect(entries(server).map((p) => `${p.name} ${p.version}`)).to.deep.equal([`${FN_NAME} v0.9.0`]);
  });

  it("leaves an entry another revision recorded (Crossplane's) as it is", async () => {
    const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
    const manager = new LockManager(server.client);
    await manager.record({ name: `${FN_NAME}-abc`, type: 'Function', image: `${FN}:v0.8.2` }, signal);
    await manager.recordUnlessListed({ name: FN_NAME, type: 'Function', image: `${FN}:v0.9.0` }, signal);
    expect(entries(server).map((p) => `${p.name} ${p.version}`)).to.deep.equal([`${FN_NAME}-abc v0.8.2`]);
  });
});
