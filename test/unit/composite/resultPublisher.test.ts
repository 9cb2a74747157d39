import { expect } from 'chai';
import pino from 'pino';
import { ManualClock } from '../../../src/base/index.js';
import { ApiResultPublisher } from '../../../src/composite/index.js';
import { RequiredKinds } from '../../../src/composite/requiredKinds.js';
import type { Xr, XrType } from '../../../src/controller/index.js';
import type { PipelineEvent } from '../../../src/functions/index.js';
import { RecordingEventSink, type KubeObject } from '../../../src/kube/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers, requestLines, until } from '../fakes/index.js';

// Claim-targeted events reach the claim, which is read from its kind's informer cache (the claim controller's,
// shared) once that has synced, and from the API server before.

const CLAIM_KIND = { apiVersion: 'example.org/v1', kind: 'App', plural: 'apps', namespaced: true };
const XR_TYPE: XrType = { apiVersion: 'example.org/v1', kind: 'XApp', namespaced: false, legacy: true };
const CLAIM: KubeObject = {
  apiVersion: 'example.org/v1',
  kind: 'App',
  metadata: { name: 'shop', namespace: 'team', uid: 'uid-claim' },
};
const XR: Xr = {
  apiVersion: 'example.org/v1',
  kind: 'XApp',
  metadata: { name: 'shop-x1', uid: 'uid-xr' },
  spec: { claimRef: { apiVersion: 'example.org/v1', kind: 'App', name: 'shop', namespace: 'team' } },
};
const EVENTS: PipelineEvent[] = [
  {
    type: 'Normal',
    reason: 'Ready',
    message: 'step: ready',
    detail: 'ready',
    target: 'CompositeAndClaim',
    step: 'step',
    severity: 'SEVERITY_NORMAL',
  },
];

function harness(claimCacheSynced: boolean | undefined): {
  api: FakeApiServer;
  sink: RecordingEventSink;
  publisher: ApiResultPublisher;
  clock: ManualClock;
} {
  const api = new FakeApiServer([...CORE_KINDS, CLAIM_KIND]);
  api.put(CLAIM);
  const fakes = new FakeInformers();
  if (claimCacheSynced !== undefined) fakes.informer('example.org/v1', 'App', claimCacheSynced).seed(CLAIM);
  const sink = new RecordingEventSink();
  const clock = new ManualClock();
  const claims =
    claimCacheSynced === undefined
      ? undefined
      : new RequiredKinds({ informers: fakes.registry, clock, syncWaitMs: 10 });
  const publisher = new ApiResultPublisher({
    client: api.client,
    discovery: api.discovery,
    events: sink,
    logger: pino({ level: 'silent' }),
    xrType: XR_TYPE,
    connectionSecretKeys: () => undefined,
    now: () => new Date(0),
    claims,
  });
  api.requests.length = 0;
  return { api, sink, publisher, clock };
}

/** The reads of objects (discovery left out). */
function objectReads(api: FakeApiServer): string[] {
  return requestLines(api.requests).filter((line) => line.includes('/namespaces/'));
}

/** The uids of the objects the sink recorded events about. */
function targets(sink: RecordingEventSink): unknown[] {
  return sink.events.map((e) => (e.target as { metadata: { uid?: string } }).metadata.uid);
}

describe('composite/ApiResultPublisher claim-targeted events', () => {
  it('reads the claim from its synced cache: no request', async () => {
    const { api, sink, publisher } = harness(true);
    await publisher.emitEvents(XR, EVENTS, new AbortController().signal);
    expect(targets(sink)).to.deep.equal(['uid-xr', 'uid-claim']);
    expect(requestLines(api.requests)).to.deep.equal([]);
  });

  it('reads the claim from the API server before its cache has synced', async () => {
    const { api, sink, publisher, clock } = harness(false);
    const emitted = publisher.emitEvents(XR, EVENTS, new AbortController().signal);
    // The first lookup waits (a bounded time) for the first list, which does not come.
    await until(() => clock.pendingTimers() === 1, 'the bounded wait for the first list');
    clock.advance(10);
    await emitted;
    expect(targets(sink)).to.deep.equal(['uid-xr', 'uid-claim']);
    expect(objectReads(api)).to.deep.equal(['GET /apis/example.org/v1/namespaces/team/apps/shop']);
  });

  it('reads the claim from the API server without a cache', async () => {
    const { api, sink, publisher } = harness(undefined);
    await publisher.emitEvents(XR, EVENTS, new AbortController().signal);
    expect(targets(sink)).to.deep.equal(['uid-xr', 'uid-claim']);
    expect(objectReads(api)).to.deep.equal(['GET /apis/example.org/v1/namespaces/team/apps/shop']);
  });
});
