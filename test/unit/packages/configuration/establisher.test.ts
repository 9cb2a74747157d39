import { expect } from 'chai';
import { ControlRefusedError, Establisher, type OwnerReference } from '../../../../src/packages/configuration/index.js';
import type { KubeObject } from '../../../../src/kube/index.js';
import type { PackageObject } from '../../../../src/packages/xpkg/index.js';
import { FakeApiServer } from '../../fakes/index.js';

const XRD_KIND = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'CompositeResourceDefinition' };
const COMPOSITION_KIND = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'Composition' };
const KINDS = [
  { ...XRD_KIND, plural: 'compositeresourcedefinitions', namespaced: false },
  { ...COMPOSITION_KIND, plural: 'compositions', namespaced: false },
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
  },
];
const REVISION: OwnerReference = {
  apiVersion: 'pkg.crossplane.io/v1',
  kind: 'ConfigurationRevision',
  name: 'app-1',
  uid: 'uid-1',
};
const PACKAGE: OwnerReference = {
  apiVersion: 'pkg.crossplane.io/v1',
  kind: 'Configuration',
  name: 'app',
  uid: 'uid-app',
};

const objects: PackageObject[] = [
  { ...XRD_KIND, metadata: { name: 'xapps.example.org' }, spec: { group: 'example.org' } },
  { ...COMPOSITION_KIND, metadata: { name: 'xapps.example.org', labels: { tier: 'app' } }, spec: { mode: 'Pipeline' } },
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.example.org' } },
];

function world(): { api: FakeApiServer; establisher: Establisher } {
  const api = new FakeApiServer(KINDS);
  return { api, establisher: new Establisher({ client: api.client, discovery: api.discovery }) };
}

const signal = new AbortController().signal;

/** A stored object as the fake returns it. */
type Owned = KubeObject & { metadata: { labels?: Record<string, string>; ownerReferences: OwnerReference[] } };

describe('packages/configuration/Establisher', () => {
  it('applies the XRD and Composition of an active revision with its control and commonLabels, and no other kind', async () => {
    const { api, establisher } = world();
    const refs = await establisher.establish(
      { objects, revision: REVISION, owningPackage: PACKAGE, control: true, commonLabels: { team: 'a' } },
      signal,
    );
    expect(refs.map((r) => `${r.kind}/${r.name}`)).to.deep.equal([
      'Composition/xapps.example.org',
      'CompositeResourceDefinition/xapps.example.org',
    ]);
    expect(refs.every((r) => r.uid !== undefined)).to.equal(true);
    const [composition] = api.list<Owned>(COMPOSITION_KIND.apiVersion, COMPOSITION_KIND.kind);
    expect(composition?.metadata.labels).to.deep.equal({ tier: 'app', team: 'a' });
    expect(composition?.metadata.ownerReferences).to.deep.equal([
      { ...REVISION, controller: true, blockOwnerDeletion: true },
      { ...PACKAGE, controller: false },
    ]);
    expect(
      api.list('apiextensions.k8s.io/v1', 'CustomResourceDefinition'),
      'a CRD is not a Configuration kind',
    ).to.deep.equal([]);
    const applies = api.writes().filter((w) => w.contentType === 'application/apply-patch+yaml');
    expect(applies.map((w) => w.query?.fieldManager)).to.deep.equal(Array(4).fill('compositor/packages'));
    expect(
      applies.slice(0, 2).map((w) => w.query?.dryRun),
      'a dry run of every write first',
    ).to.deep.equal(['All', 'All']);
  });

  it('refuses an object another controller controls and writes nothing at all', async () => {
    const { api, establisher } = world();
    const mine = { apiVersion: 'v1', kind: 'ConfigMap', name: 'mine', uid: 'uid-mine', controller: true };
    api.put({ ...COMPOSITION_KIND, metadata: { name: 'xapps.example.org', ownerReferences: [mine] }, spec: {} });
    const before = api.writes().length;
    const err = await establisher
      .establish({ objects, revision: REVISION, owningPackage: PACKAGE, control: true }, signal)
      .catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ControlRefusedError);
    expect((err as Error).message).to.equal('xapps.example.org is already controlled by ConfigMap mine (UID uid-mine)');
    expect(api.writes().length, 'not even the XRD, which nobody controls').to.equal(before);
    expect(api.list(XRD_KIND.apiVersion, XRD_KIND.kind)).to.deep.equal([]);
  });

  it('makes an inactive revision an owner of existing objects only, creating nothing', async () => {
    const { api, establisher } = world();
    const active = { ...REVISION, name: 'app-2', uid: 'uid-2', controller: true, blockOwnerDeletion: true };
    api.put({ ...XRD_KIND, metadata: { name: 'xapps.example.org', ownerReferences: [active] }, spec: {} });
    await establisher.establish({ objects, revision: REVISION, owningPackage: PACKAGE, control: false }, signal);
    const [xrd] = api.list<Owned>(XRD_KIND.apiVersion, XRD_KIND.kind);
    expect(xrd?.metadata.ownerReferences).to.deep.equal([active, { ...PACKAGE, controller: false }, REVISION]);
    expect(api.list(COMPOSITION_KIND.apiVersion, COMPOSITION_KIND.kind)).to.deep.equal([]);
    expect(api.writes().every((w) => w.contentType === 'application/merge-patch+json')).to.equal(true);
  });

  it('releases control of what a revision installed, keeping it an owner', async () => {
    const { api, establisher } = world();
    const controlled = { ...REVISION, controller: true, blockOwnerDeletion: true };
    api.put({
      ...XRD_KIND,
      metadata: { name: 'xapps.example.org', ownerReferences: [controlled] },
      spec: {},
    });
    await establisher.release([{ ...XRD_KIND, name: 'xapps.example.org', uid: 'uid-xrd' }], REVISION, signal);
    const [xrd] = api.list<Owned>(XRD_KIND.apiVersion, XRD_KIND.kind);
    expect(xrd?.metadata.ownerReferences).to.deep.equal([REVISION]);
  });
});
