import { expect } from 'chai';
import pino from 'pino';
import { ClaimController, type Claim } from '../../../src/claim/index.js';
import type { Xr, XrType } from '../../../src/controller/index.js';
import { RecordingEventSink } from '../../../src/kube/index.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { reconcileLimits } from '../../../src/base/index.js';
import { ReconcileLimiter } from '../../../src/queue/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers, until } from '../fakes/index.js';

const XR_TYPE: XrType = { apiVersion: 'example.org/v1', kind: 'XApp', namespaced: false, legacy: true };
const CLAIM_TYPE = { apiVersion: 'example.org/v1', kind: 'App' };

/** A claim controller on an in-memory API server whose changes reach the informers as watch events would. */
function world(): { server: FakeApiServer; informers: FakeInformers; controller: ClaimController } {
  const server = new FakeApiServer([
    ...CORE_KINDS,
    { ...CLAIM_TYPE, plural: 'apps', namespaced: true },
    { apiVersion: XR_TYPE.apiVersion, kind: XR_TYPE.kind, plural: 'xapps', namespaced: false },
  ]);
  const informers = new FakeInformers();
  informers.follow(server);
  const controller = new ClaimController({
    name: 'claim/apps.example.org',
    claimType: CLAIM_TYPE,
    xrType: XR_TYPE,
    client: server.client,
    discovery: server.discovery,
    informers: informers.registry,
    events: new RecordingEventSink(),
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles), workers: 2 },
  });
  return { server, informers, controller };
}

function claim(server: FakeApiServer): Claim | undefined {
  return server.get<Claim>(CLAIM_TYPE.apiVersion, CLAIM_TYPE.kind, 'my-app', 'team-a');
}

/** Waits until the controller has written nothing for a while: what follows is caused by the test alone. */
async function quiet(server: FakeApiServer): Promise<void> {
  let seen = -1;
  while (seen !== server.requests.length) {
    seen = server.requests.length;
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('claim/ClaimController', () => {
  it('reconciles a claim that existed before it started, and binds it to the XR it creates', async () => {
    const { server, informers, controller } = world();
    const existing = server.put<Claim>({ ...CLAIM_TYPE, metadata: { name: 'my-app', namespace: 'team-a' }, spec: {} });
    // Listed before the controller subscribed: the informer's replay is how the controller learns of it.
    informers.informer(CLAIM_TYPE.apiVersion, CLAIM_TYPE.kind).seed(existing);
    await controller.start(new AbortController().signal);
    await until(() => claim(server)?.spec?.resourceRef !== undefined, 'the claim is bound to an XR');
    const [xr] = server.list<Xr>(XR_TYPE.apiVersion, XR_TYPE.kind);
    expect(claim(server)?.spec?.resourceRef?.name).to.equal(xr?.metadata.name);
    await controller.stop(AbortSignal.timeout(1_000));
    expect(informers.held(CLAIM_TYPE.apiVersion, CLAIM_TYPE.kind), 'the claim lease is released').to.equal(0);
    expect(informers.held(XR_TYPE.apiVersion, XR_TYPE.kind), 'the XR lease is released').to.equal(0);
  });

  it("reconciles the claim again when its XR changes: the XR's conditions reach the claim", async () => {
    const { server, informers, controller } = world();
    await controller.start(new AbortController().signal);
    const created = server.put<Claim>({ ...CLAIM_TYPE, metadata: { name: 'my-app', namespace: 'team-a' }, spec: {} });
    informers.informer(CLAIM_TYPE.apiVersion, CLAIM_TYPE.kind).add(created);
    await until(() => claim(server)?.spec?.resourceRef !== undefined, 'the claim is bound to its XR');
    await quiet(server);
    const [xr] = server.list<Xr>(XR_TYPE.apiVersion, XR_TYPE.kind);
    if (!xr) throw new Error('no XR');
    const ready = {
      type: 'Ready',
      status: 'True',
      reason: 'Available',
      lastTransitionTime: '2026-03-01T12:00:00Z',
    } as const;
    // Someone else's write: the XR's controller marks it Ready.
    const updated = server.put<Xr>({ ...xr, status: { ...xr.status, conditions: [ready] } });
    informers.informer(XR_TYPE.apiVersion, XR_TYPE.kind).update(updated);
    await until(
      () => claim(server)?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
      "the XR's Ready condition is shown on the claim",
    );
    await controller.stop(AbortSignal.timeout(1_000));
  });
});
