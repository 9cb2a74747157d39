import { expect } from 'chai';
import { OwnWrites } from '../../../src/circuitbreaker/index.js';
import { serverSideApply, type ApplyOptions, type KubeObject } from '../../../src/kube/index.js';
import { FakeApiServer, type RecordedRequest } from '../fakes/index.js';

const APPLY = 'application/apply-patch+yaml';
const CONFIG_MAP: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'team-a' },
  data: { tier: 'gold' },
};
const PATH = '/api/v1/namespaces/team-a/configmaps/settings';

describe('kube/serverSideApply', () => {
  const cases: Record<
    string,
    { reason: string; where: 'path' | 'discovery'; options: ApplyOptions; want: Omit<RecordedRequest, 'body'> }
  > = {
    'at a path': {
      reason: 'a PATCH of content type apply-patch with the field manager, forced',
      where: 'path',
      options: { fieldManager: 'compositor' },
      want: { method: 'PATCH', path: PATH, query: { fieldManager: 'compositor', force: true }, contentType: APPLY },
    },
    'through discovery': {
      reason: 'the path comes from the apiVersion, kind, name and namespace',
      where: 'discovery',
      options: { fieldManager: 'compositor' },
      want: { method: 'PATCH', path: PATH, query: { fieldManager: 'compositor', force: true }, contentType: APPLY },
    },
    'to the status': {
      reason: 'the status subresource is the path plus /status',
      where: 'path',
      options: { fieldManager: 'compositor/status', subresource: 'status' },
      want: {
        method: 'PATCH',
        path: `${PATH}/status`,
        query: { fieldManager: 'compositor/status', force: true },
        contentType: APPLY,
      },
    },
    'not forced': {
      reason: 'force false is sent as it is, so a conflict fails the apply',
      where: 'discovery',
      options: { fieldManager: 'compositor', force: false, subresource: 'status' },
      want: {
        method: 'PATCH',
        path: `${PATH}/status`,
        query: { fieldManager: 'compositor', force: false },
        contentType: APPLY,
      },
    },
  };
  for (const [name, { reason, where, options, want }] of Object.entries(cases)) {
    it(name, async () => {
      const server = new FakeApiServer();
      // Stored already, since a subresource applies only to an object that exists.
      server.put(CONFIG_MAP);
      await serverSideApply(server.client, where === 'path' ? PATH : server.discovery, CONFIG_MAP, options);
      const writes = server.requests.filter((r) => r.method !== 'GET');
      expect(writes, reason).to.deep.equal([{ ...want, body: CONFIG_MAP }]);
    });
  }

  it('returns the object as stored', async () => {
    const server = new FakeApiServer();
    const stored = await serverSideApply(server.client, server.discovery, CONFIG_MAP, { fieldManager: 'compositor' });
    expect(stored.data).to.deep.equal({ tier: 'gold' });
    expect(stored.metadata.resourceVersion).to.be.a('string');
  });

  it('records the written resourceVersion with the echo tracker, so its watch event is known as an echo', async () => {
    const server = new FakeApiServer();
    const ownWrites = new OwnWrites();
    const options = { fieldManager: 'compositor', echoes: ownWrites };
    const stored = await serverSideApply(server.client, server.discovery, CONFIG_MAP, options);
    expect(ownWrites.isEcho(stored), 'the echo of the apply').to.equal(true);
    expect(ownWrites.isEcho({ ...stored, metadata: { ...stored.metadata, resourceVersion: '1' } })).to.equal(false);
  });

  it('holds events about the object while the apply is in flight', async () => {
    const server = new FakeApiServer();
    const ownWrites = new OwnWrites();
    const applied = serverSideApply(server.client, PATH, CONFIG_MAP, { fieldManager: 'compositor', echoes: ownWrites });
    expect(ownWrites.pending(CONFIG_MAP), 'pending while in flight').to.not.equal(undefined);
    await applied;
    expect(ownWrites.pending(CONFIG_MAP), 'settled').to.equal(undefined);
  });

  it('records nothing without an echo tracker', async () => {
    const server = new FakeApiServer();
    const ownWrites = new OwnWrites();
    const stored = await serverSideApply(server.client, PATH, CONFIG_MAP, { fieldManager: 'compositor' });
    expect(ownWrites.isEcho(stored)).to.equal(false);
  });
});
