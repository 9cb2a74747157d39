import { expect } from 'chai';
import { OwnWrites } from '../../../src/circuitbreaker/index.js';
import { KubeOpsStore, kubeActiveRevision, type AppliedObject, type Operation } from '../../../src/operations/index.js';
import { CORE_KINDS, FakeApiServer } from '../fakes/apiServer.js';
import { signal } from './fakes.js';

const KINDS = [
  ...CORE_KINDS,
  { apiVersion: 'ops.crossplane.io/v1alpha1', kind: 'Operation', plural: 'operations', namespaced: false },
  { apiVersion: 'pkg.crossplane.io/v1', kind: 'FunctionRevision', plural: 'functionrevisions', namespaced: false },
];

const op = (name: string, owner: string): Operation => ({
  apiVersion: 'ops.crossplane.io/v1alpha1',
  kind: 'Operation',
  metadata: { name, labels: { 'ops.crossplane.io/cronoperation': owner } },
  spec: { pipeline: [] },
});

describe('operations/KubeOpsStore', () => {
  it('creates, lists by owner label and deletes Operations at their cluster-scoped paths', async () => {
    const server = new FakeApiServer(KINDS);
    const store = new KubeOpsStore(server.client, server.discovery);
    const created = await store.createOperation(op('a-1', 'a'), signal);
    await store.createOperation(op('b-1', 'b'), signal);

    const listed = await store.listOperations('ops.crossplane.io/cronoperation', 'a', signal);
    const list = server.requests.find((r) => r.method === 'GET' && r.path.endsWith('/operations'));
    expect(list?.query).to.deep.equal({ labelSelector: 'ops.crossplane.io/cronoperation=a' });
    expect(listed.map((o) => [o.kind, o.metadata.name])).to.deep.include(['Operation', 'a-1']);

    await store.deleteOperation(created, signal);
    await store.deleteOperation(created, signal);
    expect(server.get('ops.crossplane.io/v1alpha1', 'Operation', 'a-1')).to.equal(undefined);
  });

  it('sends the resourceVersion read with a metadata patch, so a stale claim is refused', async () => {
    const server = new FakeApiServer(KINDS);
    const store = new KubeOpsStore(server.client, server.discovery);
    const stored = await store.createOperation(op('a-1', 'a'), signal);
    await store.patchMetadata(stored, { annotations: { x: '1' } }, signal);
    const patch = server.writes().at(-1);
    expect(patch?.contentType).to.equal('application/merge-patch+json');
    expect(patch?.body).to.deep.equal({
      metadata: { resourceVersion: stored.metadata.resourceVersion, annotations: { x: '1' } },
    });
  });

  it('applies under the field manager it is given and reports what was written', async () => {
    const server = new FakeApiServer(KINDS);
    const ownWrites = new OwnWrites();
    const store = new KubeOpsStore(server.client, server.discovery, { ownWrites });
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { a: '1' } };
    await store.apply(cm, 'ops.crossplane.io/operation/uid-1', signal);
    expect(server.writes().at(-1)?.query).to.deep.include({
      fieldManager: 'ops.crossplane.io/operation/uid-1',
      force: true,
    });
    // What was written is recorded: its watch event is known as the echo of an Operation's own write.
    const stored = await server.client.request<AppliedObject>('GET', '/api/v1/namespaces/default/configmaps/c');
    expect(ownWrites.isEcho(stored)).to.equal(true);
  });

  it("finds a Function's active revision and its capabilities", async () => {
    const server = new FakeApiServer(KINDS);
    const revision = (name: string, desiredState: string, capabilities: string[]) => ({
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'FunctionRevision',
      metadata: { name, labels: { 'pkg.crossplane.io/package': 'fn' } },
      spec: { desiredState },
      status: { capabilities },
    });
    server.put(revision('fn-old', 'Inactive', ['composition']));
    server.put(revision('fn-new', 'Active', ['operation']));
    expect(await kubeActiveRevision(server.client)('fn', signal)).to.deep.equal({
      name: 'fn-new',
      capabilities: ['operation'],
    });
  });
  it('finds no revision to check when the active one lists no capabilities (none read from its package)', async () => {
    const server = new FakeApiServer(KINDS);
    server.put({
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'FunctionRevision',
      metadata: { name: 'fn-abc', labels: { 'pkg.crossplane.io/package': 'fn' } },
      spec: { desiredState: 'Active' },
      status: { capabilities: [] },
    });
    expect(await kubeActiveRevision(server.client)('fn', signal)).to.equal(undefined);
  });
});
