import { expect } from 'chai';
import pino from 'pino';
import type { KubeObject } from '../../../../src/kube/index.js';
import { ReportedError } from '../../../../src/packages/configuration/reportedError.js';
import type { PreparedRuntime, RevisionRuntime } from '../../../../src/packages/configuration/index.js';
import { RuntimeHooks } from '../../../../src/packages/configuration/runtimeHooks.js';
import type { ConfigurationRevision } from '../../../../src/packages/configuration/types.js';
import { PROVIDER_KIND } from '../../../../src/packages/provider/index.js';
import type { RuntimeHealth } from '../../../../src/packages/runtime.js';
import type { Condition } from '../../../../src/packages/types.js';
import { CORE_KINDS, FakeApiServer } from '../../fakes/index.js';

// A kind's runtime hooks run for one revision, as upstream's package runtime controller words their outcome:
// RuntimeHealthy from the post hook, a failed hook reported on the revision and thrown as already reported, events
// only when what they say is new, and nothing at all without hooks or for an inactive revision.
const PKG = 'pkg.crossplane.io/v1';
const NAME = 'provider-nop-111111111111';
const signal = new AbortController().signal;
const PREPARED: PreparedRuntime = { webhook: undefined, fields: { tlsServerSecretName: 'provider-nop-tls-server' } };

type Stored = KubeObject & { status?: { conditions?: Condition[] } };

/** Hooks answering `post` with `health`, or failing a hook named in `fail`. */
function fakeRuntime(health: RuntimeHealth, fail: 'pre' | 'post' | undefined, calls: string[]): RevisionRuntime {
  const run = <T>(hook: string, result: T): Promise<T> => {
    calls.push(hook);
    return hook === fail ? Promise.reject(new Error('cannot apply Service: injected')) : Promise.resolve(result);
  };
  return {
    pre: () => run('pre', PREPARED),
    post: () => run('post', health),
    deactivate: () => run('deactivate', undefined),
  };
}

function world(desiredState: 'Active' | 'Inactive', conditions: Condition[] = []): FakeApiServer {
  const server = new FakeApiServer([
    ...CORE_KINDS,
    { apiVersion: PKG, kind: 'ProviderRevision', plural: 'providerrevisions', namespaced: false },
  ]);
  server.put({
    apiVersion: PKG,
    kind: 'ProviderRevision',
    metadata: { name: NAME },
    spec: { desiredState, image: 'xpkg.example/provider-nop:v1', revision: 1 },
    status: { conditions },
  });
  return server;
}

function stored(server: FakeApiServer): ConfigurationRevision {
  const rev = server.get(PKG, 'ProviderRevision', NAME);
  if (rev === undefined) throw new Error('no ProviderRevision stored');
  return rev as unknown as ConfigurationRevision;
}

function hooks(server: FakeApiServer, runtime: RevisionRuntime | undefined, events: string[]): RuntimeHooks {
  return new RuntimeHooks({
    runtime,
    client: server.client,
    kind: PROVIDER_KIND,
    logger: pino({ level: 'silent' }),
    event: (rev, type, message) => events.push(`${rev.metadata.name} ${type}: ${message}`),
  });
}

function runtimeHealthy(server: FakeApiServer): Condition | undefined {
  return server
    .get<Stored>(PKG, 'ProviderRevision', NAME)
    ?.status?.conditions?.find((c) => c.type === 'RuntimeHealthy');
}

describe('packages/configuration/RuntimeHooks', () => {
  it('runs nothing without hooks, or for an inactive revision', async () => {
    const calls: string[] = [];
    for (const [runtime, state] of [
      [undefined, 'Active'],
      [fakeRuntime({ healthy: true }, undefined, calls), 'Inactive'],
    ] as const) {
      const server = world(state);
      const events: string[] = [];
      const subject = hooks(server, runtime, events);
      expect(await subject.pre(stored(server), signal)).to.equal(undefined);
      expect(await subject.post(stored(server), signal, undefined)).to.equal(undefined);
      expect(subject.whileUnhealthy(stored(server))).to.deep.equal([]);
      expect(server.writes()).to.deep.equal([]);
      expect(events).to.deep.equal([]);
    }
    expect(calls).to.deep.equal([]);
  });

  it('pre returns what the hook prepared', async () => {
    const server = world('Active');
    const calls: string[] = [];
    const subject = hooks(server, fakeRuntime({ healthy: true }, undefined, calls), []);
    expect(await subject.pre(stored(server), signal)).to.deep.equal(PREPARED);
    expect(calls).to.deep.equal(['pre']);
  });

  for (const hook of ['pre', 'post'] as const) {
    it(`a failed ${hook} hook is RuntimeHealthy False and a Warning once, thrown as already reported`, async () => {
      const server = world('Active');
      const events: string[] = [];
      const subject = hooks(server, fakeRuntime({ healthy: true }, hook, []), events);
      const run = (): Promise<unknown> =>
        (hook === 'pre' ? subject.pre(stored(server), signal) : subject.post(stored(server), signal, undefined)).then(
          () => undefined,
          (err: unknown) => err,
        );
      const err = await run();
      expect(err).to.be.instanceOf(ReportedError);
      expect((err as Error).cause).to.be.instanceOf(Error);
      const message = `${hook} establish runtime hook failed for package: cannot apply Service: injected`;
      expect(runtimeHealthy(server)).to.include({ status: 'False', reason: 'UnhealthyPackageRevision', message });
      expect(await run()).to.be.instanceOf(ReportedError);
      expect(events, 'the same message again is no new event').to.deep.equal([`${NAME} Warning: ${message}`]);
    });
  }

  it("post words the Deployment's health as RuntimeHealthy, with an event when that changes", async () => {
    const server = world('Active');
    const events: string[] = [];
    const unavailable = { healthy: false, message: 'provider package deployment is unavailable with message: x' };
    const failing = `post establish runtime hook failed for package: ${unavailable.message}`;
    const unknown = 'post establish runtime hook failed for package: unknown';
    const cases: { health: RuntimeHealth; want: Partial<Condition>; events: string[] }[] = [
      { health: unavailable, want: { status: 'False', message: failing }, events: [`${NAME} Warning: ${failing}`] },
      { health: unavailable, want: { status: 'False', message: failing }, events: [] },
      {
        health: { healthy: true },
        want: { status: 'True', reason: 'HealthyPackageRevision' },
        events: [`${NAME} Normal: Successfully configured package revision`],
      },
      { health: { healthy: true }, want: { status: 'True' }, events: [] },
      {
        health: { healthy: undefined },
        want: { status: 'False', message: unknown },
        events: [`${NAME} Warning: ${unknown}`],
      },
    ];
    for (const [i, c] of cases.entries()) {
      events.length = 0;
      const condition = await hooks(server, fakeRuntime(c.health, undefined, []), events).post(
        stored(server),
        signal,
        undefined,
      );
      expect(condition, `step ${i}`).to.include({ type: 'RuntimeHealthy', ...c.want });
      expect(events, `step ${i}`).to.deep.equal(c.events);
      // The revision controller writes the condition with RevisionHealthy; here it is stored as it would be.
      server.put({ ...stored(server), status: { conditions: condition ? [condition] : [] } } as unknown as KubeObject);
    }
  });

  it('an active revision that is not healthy says its runtime waits for it; deactivate runs the hook', async () => {
    const server = world('Active');
    const calls: string[] = [];
    const subject = hooks(server, fakeRuntime({ healthy: true }, undefined, calls), []);
    expect(subject.whileUnhealthy(stored(server))).to.deep.equal([
      {
        type: 'RuntimeHealthy',
        status: 'False',
        reason: 'UnhealthyPackageRevision',
        message: 'Package revision is not healthy yet',
      },
    ]);
    await subject.deactivate(stored(server), signal);
    expect(calls).to.deep.equal(['deactivate']);
  });
});
