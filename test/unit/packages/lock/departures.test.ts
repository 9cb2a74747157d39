import { expect } from 'chai';
import pino from 'pino';
import { reconcileLimits } from '../../../../src/base/index.js';
import { RecordingEventSink, type KubeObject } from '../../../../src/kube/index.js';
import { createMetrics } from '../../../../src/metrics/index.js';
import {
  LockManager,
  REVISION_FINALIZER,
  RevisionDepartures,
  typeOf,
  type Lock,
} from '../../../../src/packages/lock/index.js';
import { ReconcileLimiter } from '../../../../src/queue/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers } from '../../fakes/index.js';

// Deleted package revisions leave the Lock: one already gone on its delete event, one being deleted with upstream's
// finalizer (a revision Crossplane's package manager made) leaves it and then loses the finalizer, so its deletion
// finishes; a live revision and another kind's entry of the same name stay.

const PKG = 'pkg.crossplane.io/v1';
const LOCK_API = 'pkg.crossplane.io/v1beta1';
const KINDS = [
  { apiVersion: PKG, kind: 'ConfigurationRevision', plural: 'configurationrevisions', namespaced: false },
  { apiVersion: PKG, kind: 'FunctionRevision', plural: 'functionrevisions', namespaced: false },
  { apiVersion: LOCK_API, kind: 'Lock', plural: 'locks', namespaced: false },
];
const signal = new AbortController().signal;

function world(): { server: FakeApiServer; departures: RevisionDepartures } {
  const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
  const departures = new RevisionDepartures({
    client: server.client,
    discovery: server.discovery,
    informers: new FakeInformers().registry,
    events: new RecordingEventSink(),
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles), workers: 1 },
    dependencies: new LockManager(server.client),
    types: ['Configuration', 'Function'],
  });
  const entry = (name: string, type: string): Record<string, unknown> => ({
    name,
    type,
    source: `xpkg.example.org/${name}`,
    version: 'v1',
    dependencies: [],
  });
  server.put({
    apiVersion: LOCK_API,
    kind: 'Lock',
    metadata: { name: 'lock' },
    packages: [entry('gone', 'Configuration'), entry('leaving', 'Configuration'), entry('live', 'Configuration')],
  });
  return { server, departures };
}

const listed = (server: FakeApiServer): string[] =>
  (server.get<KubeObject & Lock>(LOCK_API, 'Lock', 'lock')?.packages ?? []).map(
    (p) => `${String(typeOf(p))}/${p.name}`,
  );

describe('RevisionDepartures', () => {
  it('removes a revision that is gone from the Lock', async () => {
    const { server, departures } = world();
    await departures.reconcile('Configuration/gone', signal);
    expect(listed(server)).to.deep.equal(['Configuration/leaving', 'Configuration/live']);
  });

  it('removes a revision being deleted from the Lock, then its upstream finalizer, and no other', async () => {
    const { server, departures } = world();
    server.put({
      apiVersion: PKG,
      kind: 'ConfigurationRevision',
      metadata: {
        name: 'leaving',
        deletionTimestamp: '2026-11-28T12:00:00Z',
        finalizers: ['example.org/keep', REVISION_FINALIZER],
      },
    });
    await departures.reconcile('Configuration/leaving', signal);
    expect(listed(server)).to.deep.equal(['Configuration/gone', 'Configuration/live']);
    const revision = server.get(PKG, 'ConfigurationRevision', 'leaving');
    expect(revision?.metadata.finalizers).to.deep.equal(['example.org/keep']);
  });

  it('leaves a live revision listed and unwritten, and an entry of another kind with the same name', async () => {
    const { server, departures } = world();
    server.put({
      apiVersion: PKG,
      kind: 'ConfigurationRevision',
      metadata: { name: 'live', finalizers: [REVISION_FINALIZER] },
    });
    const before = server.writes().length;
    await departures.reconcile('Configuration/live', signal);
    await departures.reconcile('Function/gone', signal);
    expect(server.writes().length).to.equal(before);
    expect(listed(server)).to.deep.equal(['Configuration/gone', 'Configuration/leaving', 'Configuration/live']);
    expect(server.get(PKG, 'ConfigurationRevision', 'live')?.metadata.finalizers).to.deep.equal([REVISION_FINALIZER]);
  });
});
