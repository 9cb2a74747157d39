import { expect } from 'chai';
import type { KubeObject } from '../../../../src/kube/index.js';
import { handlePause, PACKAGE_PAUSED_MESSAGE } from '../../../../src/packages/configuration/index.js';
import type { Condition } from '../../../../src/packages/types.js';
import { CORE_KINDS, FakeApiServer } from '../../fakes/index.js';

// The pause annotation on a package, as upstream's package reconcilers: paused gives Synced False ReconcilePaused and
// a Normal event and stops; the first reconcile after the annotation is gone clears the conditions and stops; the
// next goes on.

const PKG = 'pkg.crossplane.io/v1';
const PATH = '/apis/pkg.crossplane.io/v1/configurations/app';
const signal = new AbortController().signal;
type Stored = KubeObject & {
  metadata: { annotations?: Record<string, string> };
  status?: { conditions?: Condition[] };
};

function world(annotations: Record<string, string>, conditions: Condition[] = []): FakeApiServer {
  const server = new FakeApiServer([
    ...CORE_KINDS,
    { apiVersion: PKG, kind: 'Configuration', plural: 'configurations', namespaced: false },
  ]);
  server.put({
    apiVersion: PKG,
    kind: 'Configuration',
    metadata: { name: 'app', annotations },
    status: { conditions },
  });
  return server;
}

async function pass(server: FakeApiServer, events: string[]): Promise<boolean> {
  const object = server.get<Stored>(PKG, 'Configuration', 'app');
  if (object === undefined) throw new Error('no Configuration');
  const event = (reason: string, message: string): void => {
    events.push(`${reason}: ${message}`);
  };
  return handlePause({ client: server.client, object, path: PATH, event }, signal);
}

describe('handlePause (packages)', () => {
  it('stops a paused package with Synced False ReconcilePaused and a Normal event, writing once', async () => {
    const server = world({ 'crossplane.io/paused': 'true' });
    const events: string[] = [];
    expect(await pass(server, events)).to.equal(true);
    const synced = server.get<Stored>(PKG, 'Configuration', 'app')?.status?.conditions?.[0];
    expect(synced).to.include({ type: 'Synced', status: 'False', reason: 'ReconcilePaused' });
    expect(synced?.message).to.equal(PACKAGE_PAUSED_MESSAGE);
    expect(events).to.deep.equal([`ReconciliationPaused: ${PACKAGE_PAUSED_MESSAGE}`]);
    const writes = server.writes().length;
    expect(await pass(server, events)).to.equal(true);
    expect(server.writes().length, 'a second paused pass writes nothing').to.equal(writes);
  });

  it('clears the conditions once unpaused, then lets the next reconcile go on', async () => {
    const paused: Condition = {
      type: 'Synced',
      status: 'False',
      reason: 'ReconcilePaused',
      message: PACKAGE_PAUSED_MESSAGE,
      lastTransitionTime: '2026-11-28T12:00:00Z',
    };
    const server = world({}, [paused]);
    expect(await pass(server, [])).to.equal(true);
    expect(server.get<Stored>(PKG, 'Configuration', 'app')?.status?.conditions ?? []).to.deep.equal([]);
    expect(await pass(server, [])).to.equal(false);
  });
});
