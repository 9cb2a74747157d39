import { expect } from 'chai';
import pino from 'pino';
import {
  CLAIM_FIELD_MANAGER,
  CLAIM_FINALIZER,
  ClaimError,
  ClaimReconciler,
  type Claim,
} from '../../../src/claim/index.js';
import type { Xr, XrType } from '../../../src/controller/index.js';
import { NestingDepthError } from '../../../src/base/index.js';
import { isConflict, RecordingEventSink } from '../../../src/kube/index.js';
import { ObjectStore } from '../../../src/watch/index.js';
import { apiError, CORE_KINDS, eventLines, FakeApiServer, rejection, requestLines } from '../fakes/index.js';

const XR_TYPE: XrType = { apiVersion: 'example.org/v1', kind: 'XApp', namespaced: false, legacy: true };
const CLAIM_PATH = '/apis/example.org/v1/namespaces/team-a/apps/my-app';
const XRS_PATH = '/apis/example.org/v1/xapps';

class ClaimWorld {
  readonly server = new FakeApiServer([
    ...CORE_KINDS,
    { apiVersion: 'example.org/v1', kind: 'App', plural: 'apps', namespaced: true },
    { apiVersion: 'example.org/v1', kind: 'XApp', plural: 'xapps', namespaced: false },
  ]);
  readonly claims = new ObjectStore<Claim>();
  readonly xrs = new ObjectStore<Xr>();
  readonly events = new RecordingEventSink();
  readonly reconciler = new ClaimReconciler({
    xrType: XR_TYPE,
    claims: this.claims,
    xrs: this.xrs,
    client: this.server.client,
    discovery: this.server.discovery,
    events: this.events,
    logger: pino({ level: 'silent' }),
    clock: { now: () => Date.parse('2026-03-01T12:00:00Z') },
  });

  createClaim(extra: Partial<Claim['metadata']> = {}, spec: Claim['spec'] = {}): Claim {
    const claim = this.server.put<Claim>({
      apiVersion: 'example.org/v1',
      kind: 'App',
      metadata: { name: 'my-app', namespace: 'team-a', ...extra },
      spec,
    });
    this.claims.set(claim);
    return claim;
  }

  claim(): Claim | undefined {
    return this.server.get<Claim>('example.org/v1', 'App', 'my-app', 'team-a');
  }

  sync(): void {
    this.claims.clear();
    this.xrs.clear();
    for (const claim of this.server.list<Claim>('example.org/v1', 'App')) this.claims.set(claim);
    for (const xr of this.server.list<Xr>('example.org/v1', 'XApp')) this.xrs.set(xr);
  }

  async reconcile(): Promise<Awaited<ReturnType<ClaimReconciler['reconcile']>>> {
    this.server.requests.length = 0;
    this.events.events.length = 0;
    return this.reconciler.reconcile('team-a/my-app', new AbortController().signal);
  }

  writes(): string[] {
    return requestLines(this.server.writes());
  }

  eventLines(): string[] {
    return eventLines(this.events);
  }
}

describe('claim/ClaimReconciler', () => {
  it('refuses a claim nested 10,000 levels deep: Synced False naming where, a Warning, no XR written', async () => {
    const world = new ClaimWorld();
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    world.createClaim({ uid: 'claim-uid' }, { shallow: 1 });
    const cached = world.claims.get('team-a/my-app');
    if (!cached) throw new Error('no cached claim');
    world.claims.set({ ...cached, spec: { parameters: deep } });
    const started = performance.now();
    const err = await rejection(world.reconcile());
    expect(performance.now() - started, 'refused without a stall').to.be.below(5000);
    expect(err).to.be.instanceOf(NestingDepthError);
    const message =
      'claim App/my-app (team-a) nests deeper than 512 levels of objects and arrays (at spec.parameters.a.a.a.a…)';
    expect(world.eventLines()).to.deep.equal([`Warning ConfigureCompositeResource: ${message}`]);
    const synced = world.claim()?.status?.conditions?.find((c) => c.type === 'Synced');
    expect(synced).to.include({ status: 'False', reason: 'ReconcileError', message });
    expect(world.server.list('example.org/v1', 'XApp')).to.deep.equal([]);
    expect(world.writes().every((w) => w.startsWith(`PATCH ${CLAIM_PATH}/status`))).to.equal(true);
  });

  it('records the binding before it creates the XR, then brings the claim in step with it', async () => {
    const world = new ClaimWorld();
    world.createClaim({ uid: 'claim-uid', labels: { team: 'a' } }, { parameters: { size: 1 } });
    expect(await world.reconcile()).to.deep.equal({});
    const [xr] = world.server.list<Xr>('example.org/v1', 'XApp');
    if (!xr) throw new Error('no XR');
    expect(world.writes()).to.deep.equal([
      `PATCH ${CLAIM_PATH} [compositor/claim-finalizer]`,
      `PATCH ${CLAIM_PATH} [${CLAIM_FIELD_MANAGER}]`,
      `PATCH ${XRS_PATH}/${xr.metadata.name} [${CLAIM_FIELD_MANAGER}]`,
      `PATCH ${CLAIM_PATH}/status [${CLAIM_FIELD_MANAGER}]`,
    ]);
    expect(xr.spec).to.deep.include({
      parameters: { size: 1 },
      claimRef: { apiVersion: 'example.org/v1', kind: 'App', name: 'my-app', namespace: 'team-a' },
    });
    expect(xr.metadata.labels).to.deep.include({ team: 'a', 'crossplane.io/claim-name': 'my-app' });
    const claim = world.claim();
    expect(claim?.metadata.finalizers).to.deep.equal([CLAIM_FINALIZER]);
    expect(claim?.spec?.resourceRef).to.deep.equal({
      apiVersion: 'example.org/v1',
      kind: 'XApp',
      name: xr.metadata.name,
    });
    const conditions = (claim?.status?.conditions ?? []).map((c) => `${c.type} ${c.status} ${c.reason}`);
    expect(conditions).to.deep.equal(['Ready False Waiting', 'Synced True ReconcileSuccess']);
  });

  it('writes nothing once claim and XR are in step', async () => {
    const world = new ClaimWorld();
    world.createClaim({ uid: 'claim-uid' });
    for (let pass = 0; pass < 3; pass++) {
      await world.reconcile();
      world.sync();
    }
    await world.reconcile();
    expect(world.writes()).to.deep.equal([]);
    expect(world.eventLines()).to.deep.equal([]);
  });

  it('copies the Ready condition and the status fields of its XR', async () => {
    const world = new ClaimWorld();
    world.createClaim({ uid: 'claim-uid' });
    await world.reconcile();
    world.sync();
    const [xr] = world.server.list<Xr>('example.org/v1', 'XApp');
    if (!xr) throw new Error('no XR');
    xr.status = {
      address: '10.0.0.1',
      effectivePollInterval: '1m0s',
      conditions: [{ type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: 't' }],
    };
    world.server.put(xr);
    world.sync();
    await world.reconcile();
    const status = world.claim()?.status;
    expect(status?.address).to.equal('10.0.0.1');
    expect(status?.effectivePollInterval, "the XR's own bookkeeping stays on the XR").to.equal(undefined);
    expect(status?.conditions?.find((c) => c.type === 'Ready')?.reason).to.equal('Available');
  });

  it('is paused: Synced False ReconcilePaused with one event, only the status written', async () => {
    const world = new ClaimWorld();
    world.createClaim({ annotations: { 'crossplane.io/paused': 'true' } });
    await world.reconcile();
    expect(world.writes()).to.deep.equal([`PATCH ${CLAIM_PATH}/status [${CLAIM_FIELD_MANAGER}]`]);
    expect(world.eventLines()).to.deep.equal([
      'Normal ReconciliationPaused: Reconciliation is paused via the pause annotation',
    ]);
    world.sync();
    await world.reconcile();
    expect(world.writes()).to.deep.equal([]);
  });

  it('refuses an XR bound to another claim: a Warning, Synced False, and the error thrown', async () => {
    const world = new ClaimWorld();
    world.server.put<Xr>({
      apiVersion: 'example.org/v1',
      kind: 'XApp',
      metadata: { name: 'taken' },
      spec: { claimRef: { apiVersion: 'example.org/v1', kind: 'App', name: 'other', namespace: 'team-b' } },
    });
    world.createClaim({}, { resourceRef: { apiVersion: 'example.org/v1', kind: 'XApp', name: 'taken' } });
    world.sync();
    const err = await rejection(world.reconcile());
    expect(err).to.be.instanceOf(ClaimError);
    expect(world.eventLines()).to.deep.equal([
      'Warning BindCompositeResource: cannot bind to XApp "taken": it is bound to claim team-b/other',
    ]);
    const synced = world.claim()?.status?.conditions?.find((c) => c.type === 'Synced');
    expect(synced?.reason).to.equal('ReconcileError');
    expect(world.writes().filter((w) => w.startsWith(`PATCH ${XRS_PATH}`) || w.startsWith('DELETE'))).to.deep.equal([]);
  });

  it('rethrows a conflict untouched: no event, no status', async () => {
    const world = new ClaimWorld();
    world.createClaim({ uid: 'claim-uid' });
    world.server.failNext((r) => r.path.startsWith(XRS_PATH), apiError(409, 'conflict'));
    const err = await rejection(world.reconcile());
    expect(isConflict(err)).to.equal(true);
    expect(world.eventLines()).to.deep.equal([]);
    expect(world.writes().filter((w) => w.includes('/status'))).to.deep.equal([]);
  });

  it('deletes its XR with the Background policy, then lets the claim go', async () => {
    const world = new ClaimWorld();
    world.createClaim({ uid: 'claim-uid' });
    await world.reconcile();
    world.sync();
    const [xr] = world.server.list<Xr>('example.org/v1', 'XApp');
    await world.server.client.request('DELETE', CLAIM_PATH);
    world.sync();
    expect(await world.reconcile()).to.deep.equal({});
    const deletion = world.server.requests.find((r) => r.method === 'DELETE');
    expect(deletion?.path).to.equal(`${XRS_PATH}/${xr?.metadata.name ?? ''}`);
    expect(deletion?.body).to.deep.include({
      propagationPolicy: 'Background',
      preconditions: { uid: xr?.metadata.uid },
    });
    expect(world.claim(), 'its finalizer removed, the claim is gone').to.equal(undefined);
  });

  it('with the Foreground policy waits, Ready False Deleting, until its XR is gone', async () => {
    const world = new ClaimWorld();
    world.createClaim({ uid: 'claim-uid' }, { compositeDeletePolicy: 'Foreground' });
    await world.reconcile();
    world.sync();
    const [xr] = world.server.list<Xr>('example.org/v1', 'XApp');
    if (!xr) throw new Error('no XR');
    // The XR holds a finalizer: it stays, being deleted, after the claim deletes it.
    xr.metadata.finalizers = ['composite.apiextensions.crossplane.io'];
    world.server.put(xr);
    await world.server.client.request('DELETE', CLAIM_PATH);
    world.sync();
    expect(await world.reconcile()).to.deep.equal({ requeueAfterMs: 2_000 });
    expect(world.claim()?.status?.conditions?.find((c) => c.type === 'Ready')?.reason).to.equal('Deleting');
    world.sync();
    await world.reconcile();
    expect(
      world.writes().filter((w) => w.startsWith('DELETE')),
      'deleted once',
    ).to.deep.equal([]);
  });
});
