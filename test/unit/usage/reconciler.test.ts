import { expect } from 'chai';
import pino from 'pino';
import type { ObjectMeta } from '../../../src/apis/index.js';
import { RecordingEventSink } from '../../../src/kube/index.js';
import { UsageObjects, UsageReconciler, type Usage } from '../../../src/usage/index.js';
import { CORE_KINDS, FakeApiServer } from '../fakes/apiServer.js';
import { eventLines, requestLines } from '../fakes/helpers.js';

// The usage reconciler over the in-memory API server: what it writes on the Usage and on the objects it names, and
// in which order, as Crossplane's usage controller does.

const USAGE_KIND = {
  apiVersion: 'protection.crossplane.io/v1beta1',
  kind: 'Usage',
  plural: 'usages',
  namespaced: true,
};
const IN_USE = 'crossplane.io/in-use';
const MESSAGE = 'compositor.crossplane.io/in-use-message';
const TIMING = { pollIntervalMs: 60_000, waitIntervalMs: 2_000 };

type Meta = Pick<ObjectMeta, 'labels' | 'annotations' | 'finalizers' | 'ownerReferences'>;

function configMap(
  name: string,
  metadata: Meta = {},
): { apiVersion: string; kind: string; metadata: Meta & { name: string; namespace: string } } {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', ...metadata } };
}

function usage(name: string, spec: Usage['spec'], metadata: Meta & { deletionTimestamp?: string } = {}): Usage {
  return {
    apiVersion: USAGE_KIND.apiVersion,
    kind: 'Usage',
    metadata: { name, namespace: 'default', ...metadata },
    spec,
  };
}

const ofDb = { apiVersion: 'v1', kind: 'ConfigMap', resourceRef: { name: 'db' } };
const byApp = { apiVersion: 'v1', kind: 'ConfigMap', resourceRef: { name: 'app' } };

/** `staleCache`: Usages the reconciler's cache still holds after the API server deleted them. */
function setup(staleCache: Usage[] = []): {
  server: FakeApiServer;
  events: RecordingEventSink;
  reconciler: UsageReconciler;
} {
  const server = new FakeApiServer([...CORE_KINDS, USAGE_KIND]);
  const events = new RecordingEventSink();
  const usages = (): Usage[] => [...server.list<Usage>(USAGE_KIND.apiVersion, 'Usage'), ...staleCache];
  const reconciler = new UsageReconciler({
    objects: new UsageObjects(server.client, server.discovery),
    find: (key) => usages().find((u) => `Usage|default/${u.metadata.name}` === key),
    all: usages,
    events,
    logger: pino({ level: 'silent' }),
    timing: TIMING,
  });
  return { server, events, reconciler };
}

const signal = new AbortController().signal;

function expectConfigured(server: FakeApiServer, ownerUid: string): void {
  const stored = server.get<Usage & { metadata: Meta }>(USAGE_KIND.apiVersion, 'Usage', 'u', 'default');
  if (!stored) throw new Error('the Usage is gone');
  const { finalizers, annotations = {}, ownerReferences = [] } = stored.metadata;
  expect(finalizers).to.deep.equal(['usage.apiextensions.crossplane.io']);
  expect(annotations['crossplane.io/usage-details']).to.equal('ConfigMap/app uses ConfigMap/db');
  expect(ownerReferences.map((o) => o.uid)).to.deep.equal([ownerUid]);
  expect(stored.status?.conditions?.[0]).to.include({ type: 'Ready', status: 'True', reason: 'Available' });
}

describe('usage/reconciler', () => {
  it('configures a Usage: finalizer, details, the used object labelled with the message, the user as owner, Ready', async () => {
    const { server, events, reconciler } = setup();
    server.put(configMap('db'));
    const app = server.put(configMap('app')) as unknown as { metadata: { uid: string } };
    server.put(usage('u', { of: ofDb, by: byApp }));

    const result = await reconciler.reconcile('Usage|default/u', signal);

    expect(result).to.deep.equal({ requeueAfterMs: TIMING.pollIntervalMs });
    const db = server.get<ReturnType<typeof configMap>>('v1', 'ConfigMap', 'db', 'default');
    expect(db?.metadata.labels?.[IN_USE]).to.equal('true');
    expect(db?.metadata.annotations?.[MESSAGE]).to.equal(
      'This resource is in-use by 1 usage(s), including the *v1beta1.Usage "u" (in namespace "default") by resource ConfigMap/app.',
    );
    expectConfigured(server, app.metadata.uid);
    expect(eventLines(events)).to.deep.equal(['Normal UsageConfigured: Usage configured successfully.']);
  });

  it('writes nothing when the Usage is configured already', async () => {
    const { server, events, reconciler } = setup();
    server.put(configMap('db'));
    server.put(configMap('app'));
    server.put(usage('u', { of: ofDb, by: byApp }));
    await reconciler.reconcile('Usage|default/u', signal);
    const writes = server.writes().length;
    await reconciler.reconcile('Usage|default/u', signal);
    expect(requestLines(server.writes().slice(writes))).to.deep.equal([]);
    expect(events.events).to.have.length(1);
  });

  it('resolves a selector into resourceRef and stops there', async () => {
    const { server, reconciler } = setup();
    server.put(configMap('db', { labels: { role: 'db' } }));
    const selecting = { apiVersion: 'v1', kind: 'ConfigMap', resourceSelector: { matchLabels: { role: 'db' } } };
    server.put(usage('u', { of: selecting, reason: 'kept' }));

    expect(await reconciler.reconcile('Usage|default/u', signal)).to.deep.equal({});
    const stored = server.get<Usage>(USAGE_KIND.apiVersion, 'Usage', 'u', 'default');
    expect(stored?.spec.of.resourceRef).to.deep.equal({ name: 'db' });
    expect(
      server.get<ReturnType<typeof configMap>>('v1', 'ConfigMap', 'db', 'default')?.metadata.labels?.[IN_USE],
    ).to.equal(undefined);
  });

  it('fails with a GetUsedResource warning when the used object does not exist', async () => {
    const { server, events, reconciler } = setup();
    server.put(usage('u', { of: ofDb, reason: 'kept' }));
    let thrown: unknown;
    await reconciler.reconcile('Usage|default/u', signal).catch((err: unknown) => (thrown = err));
    expect((thrown as Error).message).to.equal('cannot get used: ConfigMap "db" not found');
    expect(eventLines(events)).to.deep.equal(['Warning GetUsedResource: cannot get used: ConfigMap "db" not found']);
  });

  it('being deleted while another Usage remains: names the other in the message, keeps the label', async () => {
    const { server, reconciler } = setup();
    server.put(configMap('db', { labels: { [IN_USE]: 'true' }, annotations: { [MESSAGE]: 'two' } }));
    const deleting = { finalizers: ['usage.apiextensions.crossplane.io'], deletionTimestamp: '2026-01-01T00:00:00Z' };
    server.put(usage('a', { of: ofDb, reason: 'first' }, deleting));
    server.put(usage('b', { of: ofDb, reason: 'second' }));

    await reconciler.reconcile('Usage|default/a', signal);

    const db = server.get<ReturnType<typeof configMap>>('v1', 'ConfigMap', 'db', 'default');
    expect(db?.metadata.labels?.[IN_USE]).to.equal('true');
    expect(db?.metadata.annotations?.[MESSAGE]).to.equal(
      'This resource is in-use by 1 usage(s), including the *v1beta1.Usage "b" (in namespace "default") with reason: "second".',
    );
    expect(server.get(USAGE_KIND.apiVersion, 'Usage', 'a', 'default')).to.equal(undefined);
  });

  it('being deleted as the last Usage on the server: a Usage only the cache still holds does not keep the label', async () => {
    const gone = usage('a', { of: ofDb, reason: 'first' });
    gone.metadata.uid = 'uid-of-a-deleted-usage';
    const { server, reconciler } = setup([gone]);
    server.put(configMap('db', { labels: { [IN_USE]: 'true' }, annotations: { [MESSAGE]: 'two' } }));
    const deleting = { finalizers: ['usage.apiextensions.crossplane.io'], deletionTimestamp: '2026-01-01T00:00:00Z' };
    server.put(usage('b', { of: ofDb, reason: 'second' }, deleting));

    await reconciler.reconcile('Usage|default/b', signal);

    const db = server.get<ReturnType<typeof configMap>>('v1', 'ConfigMap', 'db', 'default');
    expect(db?.metadata.labels?.[IN_USE], 'label').to.equal(undefined);
    expect(db?.metadata.annotations?.[MESSAGE], 'message').to.equal(undefined);
    expect(server.get(USAGE_KIND.apiVersion, 'Usage', 'b', 'default')).to.equal(undefined);
  });

  it('being deleted as the last Usage: removes label and message, then its finalizer, then replays the deletion', async () => {
    const { server, reconciler } = setup();
    const annotations = { [MESSAGE]: 'one', 'usage.crossplane.io/deletion-attempt-with-policy': 'Foreground' };
    server.put(configMap('db', { labels: { [IN_USE]: 'true', keep: 'me' }, annotations }));
    const deleting = { finalizers: ['usage.apiextensions.crossplane.io'], deletionTimestamp: '2026-01-01T00:00:00Z' };
    server.put(usage('u', { of: ofDb, reason: 'kept', replayDeletion: true }, deleting));

    await reconciler.reconcile('Usage|default/u', signal);

    expect(requestLines(server.writes())).to.deep.equal([
      'PATCH /api/v1/namespaces/default/configmaps/db',
      'PATCH /apis/protection.crossplane.io/v1beta1/namespaces/default/usages/u',
      'DELETE /api/v1/namespaces/default/configmaps/db',
    ]);
    expect(server.writes()[2]?.body).to.include({ propagationPolicy: 'Foreground' });
    expect(server.get('v1', 'ConfigMap', 'db', 'default')).to.equal(undefined);
  });

  it('being deleted as a composed Usage: waits for its user to be gone, writing nothing', async () => {
    const { server, events, reconciler } = setup();
    server.put(configMap('db', { labels: { [IN_USE]: 'true' } }));
    server.put(configMap('app'));
    const deleting = {
      labels: { 'crossplane.io/composite': 'xr' },
      finalizers: ['usage.apiextensions.crossplane.io'],
      deletionTimestamp: '2026-01-01T00:00:00Z',
    };
    server.put(usage('u', { of: ofDb, by: byApp }, deleting));

    expect(await reconciler.reconcile('Usage|default/u', signal)).to.deep.equal({
      requeueAfterMs: TIMING.waitIntervalMs,
    });
    expect(server.writes()).to.deep.equal([]);
    expect(eventLines(events)).to.deep.equal([
      'Normal WaitingUsingDeleted: Waiting for the using resource (which is a "ConfigMap" named "app") to be deleted.',
    ]);
  });
});
