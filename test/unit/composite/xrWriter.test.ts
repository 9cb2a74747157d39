import { expect } from 'chai';
import { OwnWrites } from '../../../src/circuitbreaker/index.js';
import { STATUS_FIELD_OWNER, XR_FIELD_OWNER } from '../../../src/composite/index.js';
import { ApiXrWriter } from '../../../src/composite/xrWriter.js';
import { StatusDraft, type Xr, type XrType } from '../../../src/controller/index.js';
import { CORE_KINDS, FakeApiServer, requestLines } from '../fakes/index.js';

const LEGACY: XrType = { apiVersion: 'example.org/v1', kind: 'XDatabase', namespaced: false, legacy: true };
const PATH = '/apis/example.org/v1/xdatabases/db';
const PUBLISHED = '2026-03-01T11:00:00Z';
const NOW = new Date('2026-03-01T12:00:00Z');
const signal = new AbortController().signal;

/** Crossplane's plain status update owns connectionDetails; `xrOwnerHolds` adds an earlier release's status apply. */
function managedFields(xrOwnerHolds: boolean): unknown[] {
  const crossplane = {
    manager: 'crossplane',
    operation: 'Update',
    subresource: 'status',
    fieldsV1: { 'f:status': { 'f:connectionDetails': { '.': {}, 'f:lastPublishedTime': {} } } },
  };
  if (!xrOwnerHolds) return [crossplane];
  const earlier = {
    manager: XR_FIELD_OWNER,
    operation: 'Apply',
    subresource: 'status',
    fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:connectionDetails': { 'f:lastPublishedTime': {} } } },
  };
  return [{ ...crossplane, fieldsV1: { 'f:status': { 'f:connectionDetails': { '.': {} } } } }, earlier];
}

function setup(xrOwnerHolds = false): { server: FakeApiServer; writer: ApiXrWriter; xr: Xr } {
  const server = new FakeApiServer([
    ...CORE_KINDS,
    { apiVersion: LEGACY.apiVersion, kind: LEGACY.kind, plural: 'xdatabases', namespaced: false },
  ]);
  const xr = server.put<Xr>({
    apiVersion: LEGACY.apiVersion,
    kind: LEGACY.kind,
    metadata: { name: 'db', managedFields: managedFields(xrOwnerHolds) },
    status: {
      image: 'postgres:16',
      connectionDetails: { lastPublishedTime: PUBLISHED },
      claimConditionTypes: ['DatabaseReady'],
    },
  });
  const writer = new ApiXrWriter({
    client: server.client,
    discovery: server.discovery,
    ownWrites: new OwnWrites(),
    xrType: LEGACY,
  });
  return { server, writer, xr };
}

function draftOf(xr: Xr): StatusDraft {
  return new StatusDraft(xr.status ?? {}, xr.metadata.generation, () => NOW);
}

function statusApplies(server: FakeApiServer): { manager: string; status: Record<string, unknown> }[] {
  return server.writes().map((r) => ({
    manager: String(r.query?.fieldManager),
    status: (r.body as { status: Record<string, unknown> }).status,
  }));
}

describe('composite/xrWriter status', () => {
  it("applies when connection details were published under compositor's own manager, apart from the rest", async () => {
    const { server, writer, xr } = setup();
    const status = draftOf(xr);
    status.set('connectionDetails', { lastPublishedTime: NOW.toISOString() });
    status.setCondition({ type: 'Ready', status: 'True', reason: 'Available' });
    await writer.writeStatus(xr, status, signal);
    const applies = statusApplies(server);
    expect(applies.map((a) => a.manager)).to.deep.equal([STATUS_FIELD_OWNER, XR_FIELD_OWNER]);
    expect(applies[0]?.status).to.deep.equal({
      connectionDetails: { lastPublishedTime: NOW.toISOString() },
      claimConditionTypes: ['DatabaseReady'],
    });
    // Crossplane's status apply holds neither field: under its name, compositor must not hold them either.
    expect(applies[1]?.status).to.have.keys('image', 'conditions');
  });

  it('writes only the updated fields when nothing else changed', async () => {
    const { server, writer, xr } = setup();
    const status = draftOf(xr);
    status.set('claimConditionTypes', ['DatabaseReady', 'BackupReady']);
    await writer.writeStatus(xr, status, signal);
    expect(requestLines(server.writes())).to.deep.equal([`PATCH ${PATH}/status [${STATUS_FIELD_OWNER}]`]);
  });

  it('leaves the updated fields to their owner when they did not change, looking at their owners once', async () => {
    const { server, writer, xr } = setup();
    for (const reason of ['Available', 'Creating']) {
      const status = draftOf(xr);
      status.setCondition({ type: 'Ready', status: 'False', reason });
      server.requests.length = 0;
      await writer.writeStatus(xr, status, signal);
      xr.status = status.toStatus();
      const lines = requestLines(server.requests.filter((r) => r.path.startsWith(PATH)));
      const looked = reason === 'Available' ? [`GET ${PATH}`] : [];
      expect(lines, reason).to.deep.equal([...looked, `PATCH ${PATH}/status [${XR_FIELD_OWNER}]`]);
    }
  });

  it("co-owns the fields an earlier release applied under Crossplane's manager before releasing them", async () => {
    const { server, writer, xr } = setup(true);
    const status = draftOf(xr);
    status.setCondition({ type: 'Ready', status: 'True', reason: 'Available' });
    await writer.writeStatus(xr, status, signal);
    const applies = statusApplies(server);
    expect(applies.map((a) => a.manager)).to.deep.equal([STATUS_FIELD_OWNER, XR_FIELD_OWNER]);
    // The values stored today: nothing is published again, and the timestamp does not move.
    expect(applies[0]?.status).to.deep.equal({
      connectionDetails: { lastPublishedTime: PUBLISHED },
      claimConditionTypes: ['DatabaseReady'],
    });
    expect(applies[1]?.status).to.not.have.any.keys('connectionDetails', 'claimConditionTypes');
  });

  it('writes nothing when the draft changes nothing', async () => {
    const { server, writer, xr } = setup(true);
    expect(await writer.writeStatus(xr, draftOf(xr), signal)).to.equal(undefined);
    expect(server.requests).to.be.empty;
  });
});
