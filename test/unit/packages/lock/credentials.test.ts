import { expect } from 'chai';
import { ImageConfigStore } from '../../../../src/packages/imageconfig/index.js';
import { parentCredentials, tagListing } from '../../../../src/packages/lock/credentials.js';
import type { LockPackage } from '../../../../src/packages/lock/index.js';
import { CORE_KINDS, FakeApiServer } from '../../fakes/index.js';
import { pullSecret } from '../../fakes/registry.js';

// A dependency's tags are listed with the pull secrets of the revisions depending on it, and at the source and with
// the pull secret a matching ImageConfig gives, as upstream's resolver lists them.

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

  it('lists the source an ImageConfig rewrites it to, with the pull secret of the ImageConfig matching that', async () => {
    const server = new FakeApiServer([
      ...CORE_KINDS,
      ...KINDS,
      { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'ImageConfig', plural: 'imageconfigs', namespaced: false },
    ]);
    const imageConfig = (name: string, spec: Record<string, unknown>): void => {
      server.put({ apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'ImageConfig', metadata: { name }, spec });
    };
    imageConfig('mirror', { matchImages: [{ prefix: 'r.example.org/' }], rewriteImage: { prefix: 'm.example.org/' } });
    imageConfig('mirror-creds', {
      matchImages: [{ prefix: 'm.example.org/org' }],
      registry: { authentication: { pullSecretRef: { name: 'mirror' } } },
    });
    server.put({
      apiVersion: 'v1',
      kind: 'Secret',
      ...pullSecret('m.example.org', 'bob', 'secret', 'mirror'),
      metadata: { name: 'mirror', namespace: 'crossplane-system' },
    });
    const deps = {
      client: server.client,
      namespace: 'crossplane-system',
      imageConfigs: new ImageConfigStore({ client: server.client }),
    };
    const listing = await tagListing(deps, 'r.example.org/org/fn', [parent('gone', 'Configuration')], signal);
    expect(listing.source).to.equal('m.example.org/org/fn');
    expect(listing.credentials.map((c) => c.key)).to.deep.equal(['m.example.org']);
    expect(listing.credentials[0]?.credentials).to.include({ username: 'bob', password: 'secret' });
  });
});
