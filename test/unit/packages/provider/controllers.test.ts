import { expect } from 'chai';
import pino from 'pino';
import { reconcileLimits } from '../../../../src/base/index.js';
import { RecordingEventSink, type KubeObject } from '../../../../src/kube/index.js';
import { createMetrics } from '../../../../src/metrics/index.js';
import { ConfigurationRevisionController } from '../../../../src/packages/configuration/index.js';
import {
  DefaultActivationPolicy,
  MrapController,
  MrdController,
  PROVIDER_KIND,
} from '../../../../src/packages/provider/index.js';
import type { FetchedPackage } from '../../../../src/packages/xpkg/index.js';
import { ReconcileLimiter } from '../../../../src/queue/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers } from '../../fakes/index.js';

// The Provider controllers on the fake API server: a ProviderRevision installs MRDs, the MRAP controller activates
// them, the MRD controller creates their CRDs; each failure is a condition and nothing is deleted.
const PKG = 'pkg.crossplane.io/v1';
const XP = 'apiextensions.crossplane.io/v1alpha1';
const CRD_API = 'apiextensions.k8s.io/v1';
const KINDS = [
  { apiVersion: 'pkg.crossplane.io/v1', kind: 'ProviderRevision', plural: 'providerrevisions', namespaced: false },
  { apiVersion: XP, kind: 'ManagedResourceDefinition', plural: 'managedresourcedefinitions', namespaced: false },
  {
    apiVersion: XP,
    kind: 'ManagedResourceActivationPolicy',
    plural: 'managedresourceactivationpolicies',
    namespaced: false,
  },
  { apiVersion: CRD_API, kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false },
];
const MRD_NAME = 'nopresources.nop.crossplane.io';

type Stored = KubeObject & {
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason: string; message?: string }[] } & Record<
    string,
    unknown
  >;
};

const nopCrd = {
  apiVersion: CRD_API,
  kind: 'CustomResourceDefinition',
  metadata: { name: MRD_NAME },
  spec: {
    group: 'nop.crossplane.io',
    names: { kind: 'NopResource', plural: 'nopresources' },
    scope: 'Cluster',
    versions: [{ name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
  },
};
const providerMeta = (capabilities: string[]): FetchedPackage['meta'][number] => ({
  apiVersion: 'meta.pkg.crossplane.io/v1',
  kind: 'Provider',
  metadata: { name: 'provider-nop' },
  spec: { capabilities },
});
const TABLE: Record<string, Partial<FetchedPackage>> = {
  'registry.example.org/nop:v1': { meta: [providerMeta([])], objects: [nopCrd] },
  'registry.example.org/nop:safe': { meta: [providerMeta(['safe-start'])], objects: [nopCrd] },
};

function world(): {
  server: FakeApiServer;
  events: RecordingEventSink;
  mrds: MrdController;
  mraps: MrapController;
  revisions: ConfigurationRevisionController;
} {
  const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
  const events = new RecordingEventSink();
  const common = {
    client: server.client,
    discovery: server.discovery,
    informers: new FakeInformers().registry,
    events,
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles), workers: 1 },
  };
  const packages = {
    get: (ref: string): Promise<FetchedPackage> =>
      Promise.resolve({ meta: [], objects: [], source: '', version: '', digest: '', resolvedRef: '', ...TABLE[ref] }),
  };
  return {
    server,
    events,
    mrds: new MrdController(common),
    mraps: new MrapController(common),
    revisions: new ConfigurationRevisionController({
      ...common,
      packages,
      namespace: 'crossplane-system',
      kind: PROVIDER_KIND,
    }),
  };
}

const signal = new AbortController().signal;

function conditions(object: Stored | undefined): Record<string, string> {
  return Object.fromEntries((object?.status?.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));
}

function revision(server: FakeApiServer, image: string): void {
  server.put({
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'ProviderRevision',
    metadata: { name: 'provider-nop-111111111111', labels: { 'pkg.crossplane.io/package': 'provider-nop' } },
    spec: { desiredState: 'Active', image, revision: 1 },
  });
}

function mrd(server: FakeApiServer): Stored | undefined {
  return server.get<Stored>(XP, 'ManagedResourceDefinition', MRD_NAME);
}

describe('packages/provider controllers', () => {
  it('a ProviderRevision installs its CRD as an MRD, Active and controlled by the revision', async () => {
    const { server, revisions } = world();
    revision(server, 'registry.example.org/nop:v1');
    await revisions.reconcile('provider-nop-111111111111', signal);
    const stored = mrd(server);
    expect(stored?.spec.state).to.equal('Active');
    expect(stored?.metadata.ownerReferences).to.deep.include({
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'ProviderRevision',
      name: 'provider-nop-111111111111',
      uid: server.get(PKG, 'ProviderRevision', 'provider-nop-111111111111')?.metadata.uid,
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(server.list(CRD_API, 'CustomResourceDefinition')).to.deep.equal([]);
    expect(conditions(server.get<Stored>(PKG, 'ProviderRevision', 'provider-nop-111111111111'))).to.deep.equal({
      RevisionHealthy: 'True/HealthyPackageRevision',
    });
  });

  it('a safe-start provider leaves its MRD Inactive: the MRD controller says so and creates no CRD', async () => {
    const { server, revisions, mrds } = world();
    revision(server, 'registry.example.org/nop:safe');
    await revisions.reconcile('provider-nop-111111111111', signal);
    expect(mrd(server)?.spec.state).to.equal(undefined);
    await mrds.reconcile(MRD_NAME, signal);
    expect(conditions(mrd(server))).to.deep.equal({ Established: 'False/InactiveManagedResource' });
    expect(server.list(CRD_API, 'CustomResourceDefinition')).to.deep.equal([]);
  });

  it('the MRAP activates matching MRDs; the MRD controller then creates the CRD and looks again until it is established', async () => {
    const { server, events, revisions, mraps, mrds } = world();
    revision(server, 'registry.example.org/nop:safe');
    await revisions.reconcile('provider-nop-111111111111', signal);
    server.put({
      apiVersion: XP,
      kind: 'ManagedResourceActivationPolicy',
      metadata: { name: 'default' },
      spec: { activate: ['*.nop.crossplane.io', '*.aws.crossplane.io'] },
    });
    await mraps.reconcile('default', signal);
    expect(mrd(server)?.spec.state).to.equal('Active');
    const policy = server.get<Stored>(XP, 'ManagedResourceActivationPolicy', 'default');
    expect(policy?.status?.activated).to.deep.equal([MRD_NAME]);
    expect(conditions(policy)).to.deep.equal({ Healthy: 'True/Running' });
    expect(events.events.map((e) => `${e.input.type}/${e.input.reason}`)).to.include(
      'Normal/ActivateManagedResourceDefinition',
    );

    const pendingResult = await mrds.reconcile(MRD_NAME, signal);
    const crd = server.get<Stored>(CRD_API, 'CustomResourceDefinition', MRD_NAME);
    expect(crd?.spec).to.include({ group: 'nop.crossplane.io', scope: 'Cluster' });
    const owners = crd?.metadata.ownerReferences as { kind: string }[] | undefined;
    expect(owners?.map((r) => r.kind)).to.deep.equal(['ManagedResourceDefinition', 'ProviderRevision']);
    expect(conditions(mrd(server))).to.deep.equal({ Established: 'Unknown/PendingManagedResource' });
    expect(pendingResult).to.deep.equal({ requeueAfterMs: 1_000 });

    server.put({ ...crd, status: { conditions: [{ type: 'Established', status: 'True' }] } } as Stored);
    expect(await mrds.reconcile(MRD_NAME, signal)).to.deep.equal({});
    expect(conditions(mrd(server))).to.deep.equal({ Established: 'True/EstablishedManagedResource' });
  });

  it('a CRD that cannot be applied is Established False with a Warning event, and the stored CRD stays', async () => {
    const { server, events, revisions, mrds } = world();
    revision(server, 'registry.example.org/nop:v1');
    await revisions.reconcile('provider-nop-111111111111', signal);
    await mrds.reconcile(MRD_NAME, signal);
    server.failNext((r) => r.path.startsWith('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/'), 422);
    const err = await mrds.reconcile(MRD_NAME, signal).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    expect(mrd(server)?.status?.conditions?.[0]).to.include({
      type: 'Established',
      status: 'False',
      reason: 'PendingManagedResource',
      message: 'unable to apply CustomResourceDefinition, see events',
    });
    expect(events.events.map((e) => `${e.input.type}/${e.input.reason}`)).to.include(
      'Warning/ApplyCustomResourceDefinition',
    );
    expect(server.get(CRD_API, 'CustomResourceDefinition', MRD_NAME)).to.not.equal(undefined);
    expect(server.writes().some((w) => w.method === 'DELETE')).to.equal(false);
  });

  it('an MRD the policy cannot activate leaves Healthy Unknown with the count, and is retried', async () => {
    const { server, revisions, mraps } = world();
    revision(server, 'registry.example.org/nop:safe');
    await revisions.reconcile('provider-nop-111111111111', signal);
    server.put({
      apiVersion: XP,
      kind: 'ManagedResourceActivationPolicy',
      metadata: { name: 'default' },
      spec: { activate: ['*'] },
    });
    server.failNext((r) => r.method === 'PATCH' && r.path.endsWith(`/managedresourcedefinitions/${MRD_NAME}`), 500);
    const err = await mraps.reconcile('default', signal).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    const policy = server.get<Stored>(XP, 'ManagedResourceActivationPolicy', 'default');
    expect(policy?.status?.conditions?.[0]).to.include({
      type: 'Healthy',
      status: 'Unknown',
      reason: 'EncounteredErrors',
      // Upstream's count: an MRD that failed is not among those activated, so "1 of 0".
      message: 'failed to activate 1 of 0 ManagedResourceDefinitions',
    });
    expect(mrd(server)?.spec.state).to.equal(undefined);
  });

  it('the default policy is created once with its patterns; an existing one is left as the user made it', async () => {
    const { server } = world();
    await new DefaultActivationPolicy({ client: server.client, activations: ['*'] }).start();
    expect(server.get<Stored>(XP, 'ManagedResourceActivationPolicy', 'default')?.spec).to.deep.equal({
      activate: ['*'],
    });
    server.put({
      ...server.get<Stored>(XP, 'ManagedResourceActivationPolicy', 'default'),
      spec: { activate: ['*.aws.crossplane.io'] },
    } as Stored);
    await new DefaultActivationPolicy({ client: server.client, activations: ['*'] }).start();
    expect(server.get<Stored>(XP, 'ManagedResourceActivationPolicy', 'default')?.spec).to.deep.equal({
      activate: ['*.aws.crossplane.io'],
    });
  });

  it('no default patterns, no default policy', async () => {
    const { server } = world();
    await new DefaultActivationPolicy({ client: server.client, activations: [] }).start();
    expect(server.list(XP, 'ManagedResourceActivationPolicy')).to.deep.equal([]);
  });
});
