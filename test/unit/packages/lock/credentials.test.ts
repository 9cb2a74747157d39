import { expect } from 'chai';
import { parentCredentials } from '../../../../src/packages/lock/credentials.js';
import type { LockPackage } from '../../../../src/packages/lock/index.js';
import { CORE_KINDS, FakeApiServer } from '../../fakes/index.js';
import { pullSecret } from '../../fakes/registry.js';

// A dependency's tags are listed with the pull secrets of the revisions depending on it (compositor has no
// ImageConfig, upstream's source of the resolver's pull secret).

const PKG = 'pkg.crossplane.io/v1';
const KINDS = [
  { apiVersion: PKG, kind: 'ConfigurationRevision', plural: 'configurationrevisions', namespaced: false },
  { apiVersion: PKG, kind: 'FunctionRevision', plural: 'functionrevisions', namespaced: false },
];
const parent = (name: string, type: LockPackage['type']): LockPackage => ({
  name,
  type,
  source: `r.example.org/org/${name}`,
  version: 'v1',
  dependencies: [{ package: 'r.example.org/org/fn', constraints: '*' }],
});
const signal = new AbortController().signal;

describe('lock/credentials: the pull secrets of the depending revisions', () => {
  it("reads each depending revision's packagePullSecrets once, from compositor's namespace", async () => {
    const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
    server.put({
      apiVersion: PKG,
      kind: 'ConfigurationRevision',
      metadata: { name: 'app-1' },
      spec: { packagePullSecrets: [{ name: 'registry' }] },
    });
    server.put({
      apiVersion: PKG,
      kind: 'FunctionRevision',
      metadata: { name: 'fn-1' },
      spec: { packagePullSecrets: [{ name: 'registry' }] },
    });
    server.put({
      apiVersion: 'v1',
      kind: 'Secret',
      ...pullSecret('r.example.org', 'alice', 'secret', 'registry'),
      metadata: { name: 'registry', namespace: 'crossplane-system' },
    });
    const deps = { client: server.client, namespace: 'crossplane-system' };
    const credentials = await parentCredentials(
      deps,
      [parent('app-1', 'Configuration'), parent('fn-1', 'Function'), parent('gone', 'Configuration')],
      signal,
    );
    expect(credentials.map((c) => c.key)).to.deep.equal(['r.example.org']);
    expect(credentials[0]?.credentials).to.include({ username: 'alice', password: 'secret' });
  });

  it('lists anonymously when no depending revision names a pull secret', async () => {
    const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
    const deps = { client: server.client, namespace: 'crossplane-system' };
    expect(await parentCredentials(deps, [parent('gone', 'Configuration')], signal)).to.deep.equal([]);
  });
});
