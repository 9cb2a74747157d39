import { expect } from 'chai';
import { FunctionRevisions, revisionStatusOf } from '../../../src/packages/functionRevisions.js';
import { LABEL_PARENT_PACKAGE, revisionName } from '../../../src/packages/names.js';
import type { FunctionPackage, FunctionRevision } from '../../../src/packages/types.js';
import { CORE_KINDS, FakeApiServer } from '../fakes/index.js';

// A Function's FunctionRevisions on the fake API server: numbered after every other, activated as the Function's
// policy says, inheriting its spec, and pruned past its history limit, oldest inactive first.
const PKG = 'pkg.crossplane.io/v1';
const signal = new AbortController().signal;
const IMAGE = 'xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.8.2';

function world(...revisions: { name: string; revision: number; state: 'Active' | 'Inactive' }[]): FakeApiServer {
  const server = new FakeApiServer([
    ...CORE_KINDS,
    { apiVersion: PKG, kind: 'FunctionRevision', plural: 'functionrevisions', namespaced: false },
  ]);
  for (const { name, revision, state } of revisions) {
    server.put({
      apiVersion: PKG,
      kind: 'FunctionRevision',
      metadata: { name, labels: { [LABEL_PARENT_PACKAGE]: 'fn' } },
      spec: { desiredState: state, image: `old:${revision}`, revision },
    });
  }
  return server;
}

function fn(spec: FunctionPackage['spec'] = {}): FunctionPackage {
  return {
    apiVersion: PKG,
    kind: 'Function',
    metadata: { name: 'fn', uid: 'uid-fn' },
    spec: { package: IMAGE, ...spec },
  };
}

describe('packages/FunctionRevisions', () => {
  const cases: Record<
    string,
    {
      reason: string;
      stored: { name: string; revision: number; state: 'Active' | 'Inactive' }[];
      spec?: FunctionPackage['spec'];
      want: { revision: number; desiredState: string };
    }
  > = {
    first: {
      reason: 'the first revision is number 1, active',
      stored: [],
      want: { revision: 1, desiredState: 'Active' },
    },
    after: {
      reason: 'a new revision is numbered after the highest',
      stored: [
        { name: 'fn-a', revision: 3, state: 'Active' },
        { name: 'fn-b', revision: 1, state: 'Inactive' },
      ],
      want: { revision: 4, desiredState: 'Active' },
    },
    manual: {
      reason: 'a new revision of a Manual Function is Inactive',
      stored: [{ name: 'fn-a', revision: 1, state: 'Active' }],
      spec: { revisionActivationPolicy: 'Manual' },
      want: { revision: 2, desiredState: 'Inactive' },
    },
    keeps: {
      reason: 'an existing revision that is the highest keeps its number and, under Manual, its state',
      stored: [
        { name: revisionName('fn', IMAGE), revision: 2, state: 'Active' },
        { name: 'fn-a', revision: 1, state: 'Inactive' },
      ],
      spec: { revisionActivationPolicy: 'Manual' },
      want: { revision: 2, desiredState: 'Active' },
    },
    renumbered: {
      reason: 'an existing revision below the highest is numbered after it (the Function went back to it)',
      stored: [
        { name: revisionName('fn', IMAGE), revision: 1, state: 'Inactive' },
        { name: 'fn-a', revision: 2, state: 'Active' },
      ],
      want: { revision: 3, desiredState: 'Active' },
    },
  };
  for (const [name, { reason, stored, spec, want }] of Object.entries(cases)) {
    it(`ensure: ${name}`, async () => {
      const server = world(...stored);
      const revisions = new FunctionRevisions(server.client);
      const listed = await revisions.list('fn', signal);
      expect(
        listed.map((r) => r.metadata.name),
        reason,
      ).to.have.members(stored.map((s) => s.name));
      const current = await revisions.ensure(fn(spec), IMAGE, listed, signal);
      expect(current.metadata.name, reason).to.equal(revisionName('fn', IMAGE));
      expect(current.spec, reason).to.include({ ...want, image: IMAGE });
    });
  }

  it('ensure: the revision is owned by its Function and inherits its pull, runtime and label settings', async () => {
    const server = world();
    const revisions = new FunctionRevisions(server.client);
    const spec = {
      packagePullPolicy: 'Always',
      packagePullSecrets: [{ name: 'pull' }],
      runtimeConfigRef: { name: 'rc' },
      commonLabels: { team: 'a' },
    };
    const current = await revisions.ensure(fn(spec), IMAGE, [], signal);
    expect(current.spec).to.deep.include({ ...spec, tlsServerSecretName: 'fn-tls-server' });
    expect(current.metadata.labels).to.deep.equal({ [LABEL_PARENT_PACKAGE]: 'fn' });
    expect(current.metadata.ownerReferences).to.deep.equal([
      { apiVersion: PKG, kind: 'Function', name: 'fn', uid: 'uid-fn', controller: true, blockOwnerDeletion: true },
    ]);
  });

  it('setDesiredState patches the revision and the object given', async () => {
    const server = world({ name: 'fn-a', revision: 1, state: 'Active' });
    const revisions = new FunctionRevisions(server.client);
    const [revision] = await revisions.list('fn', signal);
    if (revision === undefined) throw new Error('no revision listed');
    await revisions.setDesiredState(revision, 'Inactive', signal);
    expect(revision.spec.desiredState).to.equal('Inactive');
    expect((await revisions.get('fn-a', signal))?.spec.desiredState).to.equal('Inactive');
    expect(await revisions.get('fn-missing', signal)).to.equal(undefined);
  });

  it('collectGarbage deletes the oldest inactive revisions past the history limit, and none with limit 0', async () => {
    const stored = [
      { name: 'fn-1', revision: 1, state: 'Inactive' as const },
      { name: 'fn-2', revision: 2, state: 'Inactive' as const },
      { name: 'fn-3', revision: 3, state: 'Inactive' as const },
      { name: 'fn-4', revision: 4, state: 'Active' as const },
    ];
    const server = world(...stored);
    const revisions = new FunctionRevisions(server.client);
    await revisions.collectGarbage(fn({ revisionHistoryLimit: 0 }), await revisions.list('fn', signal), signal);
    expect(server.writes(), 'limit 0 keeps all').to.deep.equal([]);
    await revisions.collectGarbage(fn(), await revisions.list('fn', signal), signal);
    const left = server.list(PKG, 'FunctionRevision').map((r) => r.metadata.name);
    expect(left).to.have.members(['fn-3', 'fn-4']);
  });

  it('collectGarbage passes over a revision already gone and reports any other failure with its cause', async () => {
    const server = world(
      { name: 'fn-1', revision: 1, state: 'Inactive' },
      { name: 'fn-2', revision: 2, state: 'Inactive' },
      { name: 'fn-3', revision: 3, state: 'Active' },
    );
    const revisions = new FunctionRevisions(server.client);
    const listed = await revisions.list('fn', signal);
    server.failNext((r) => r.method === 'DELETE', 404);
    await revisions.collectGarbage(fn(), listed, signal);
    server.failNext((r) => r.method === 'DELETE', 500);
    const err: unknown = await revisions.collectGarbage(fn(), listed, signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).cause).to.have.property('status', 500);
  });

  it('revisionStatusOf names the status subresource of the revision and its stored status', () => {
    const revision: FunctionRevision = {
      apiVersion: PKG,
      kind: 'FunctionRevision',
      metadata: { name: 'fn-a' },
      spec: { desiredState: 'Active', image: IMAGE, revision: 1 },
      status: { endpoint: 'dns:///fn-a.crossplane-system:9443' },
    };
    expect(revisionStatusOf(revision)).to.deep.equal({
      path: '/apis/pkg.crossplane.io/v1/functionrevisions/fn-a',
      stored: revision.status,
    });
  });
});
