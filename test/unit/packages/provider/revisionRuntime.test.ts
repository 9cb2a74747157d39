import { expect } from 'chai';
import pino from 'pino';
import { reconcileLimits } from '../../../../src/base/index.js';
import { RecordingEventSink, type KubeObject } from '../../../../src/kube/index.js';
import { createMetrics } from '../../../../src/metrics/index.js';
import {
  ConfigurationController,
  ConfigurationRevisionController,
} from '../../../../src/packages/configuration/index.js';
import { TlsSecrets } from '../../../../src/packages/index.js';
import { PROVIDER_KIND, ProviderRuntime } from '../../../../src/packages/provider/index.js';
import type { FetchedPackage } from '../../../../src/packages/xpkg/index.js';
import { ReconcileLimiter } from '../../../../src/queue/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers } from '../../fakes/index.js';

// A ProviderRevision's runtime on the fake API server, the revision controller running its hooks as upstream's
// package runtime controller does: Service and certificates first, webhooks pointed at them, then the ServiceAccount
// and Deployment; RuntimeHealthy follows the Deployment; an inactive revision's Deployment is deleted.
const NS = 'crossplane-system';
const NAME = 'provider-nop-111111111111';
const KINDS = [
  { apiVersion: 'pkg.crossplane.io/v1', kind: 'Provider', plural: 'providers', namespaced: false },
  { apiVersion: 'pkg.crossplane.io/v1', kind: 'ProviderRevision', plural: 'providerrevisions', namespaced: false },
  {
    apiVersion: 'apiextensions.crossplane.io/v1alpha1',
    kind: 'ManagedResourceDefinition',
    plural: 'managedresourcedefinitions',
    namespaced: false,
  },
  {
    apiVersion: 'pkg.crossplane.io/v1beta1',
    kind: 'DeploymentRuntimeConfig',
    plural: 'deploymentruntimeconfigs',
    namespaced: false,
  },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
  },
  { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true },
  { apiVersion: 'v1', kind: 'Service', plural: 'services', namespaced: true },
  { apiVersion: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true },
];

type Stored = KubeObject & {
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason: string; message?: string }[] } & Record<
    string,
    unknown
  >;
  webhooks?: { clientConfig: { caBundle: string; service: Record<string, unknown> } }[];
  data?: Record<string, string>;
};

const pkg: Partial<FetchedPackage> = {
  meta: [{ apiVersion: 'meta.pkg.crossplane.io/v1', kind: 'Provider', metadata: { name: 'provider-nop' } }],
  objects: [
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'nopresources.nop.crossplane.io' },
      spec: { group: 'nop.crossplane.io', names: { kind: 'NopResource', plural: 'nopresources' }, versions: [] },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'validating-webhook-configuration' },
      webhooks: [{ name: 'nopresources.nop.crossplane.io', clientConfig: { service: { path: '/validate' } } }],
    },
  ],
};

function world(): { server: FakeApiServer; events: RecordingEventSink; revisions: ConfigurationRevisionController } {
  const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
  const events = new RecordingEventSink();
  const packages = {
    get: (): Promise<FetchedPackage> =>
      Promise.resolve({ objects: [], source: '', version: '', digest: '', resolvedRef: '', ...pkg } as FetchedPackage),
  };
  const revisions = new ConfigurationRevisionController({
    client: server.client,
    discovery: server.discovery,
    informers: new FakeInformers().registry,
    events,
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles), workers: 1 },
    packages,
    namespace: NS,
    kind: PROVIDER_KIND,
    runtime: new ProviderRuntime({
      client: server.client,
      namespace: NS,
      secrets: new TlsSecrets({ client: server.client, namespace: NS }),
    }),
  });
  server.put({
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'ProviderRevision',
    metadata: { name: NAME, uid: 'rev-uid', labels: { 'pkg.crossplane.io/package': 'provider-nop' } },
    spec: {
      desiredState: 'Active',
      image: 'registry.example.org/nop:v1',
      revision: 1,
      tlsServerSecretName: 'provider-nop-tls-server',
      tlsClientSecretName: 'provider-nop-tls-client',
    },
  });
  return { server, events, revisions };
}

const signal = new AbortController().signal;

function conditions(object: Stored | undefined): Record<string, string> {
  return Object.fromEntries(
    (object?.status?.conditions ?? []).map((c) => [
      c.type,
      `${c.status}/${c.reason}${c.message ? `: ${c.message}` : ''}`,
    ]),
  );
}

const revision = (server: FakeApiServer): Stored | undefined =>
  server.get<Stored>('pkg.crossplane.io/v1', 'ProviderRevision', NAME);
const deployment = (server: FakeApiServer): Stored | undefined => server.get<Stored>('apps/v1', 'Deployment', NAME, NS);

describe('packages/provider revision runtime', function () {
  // Three RSA keys are generated (the CA, the server and the client certificate).
  this.timeout(30_000);

  it('runs the runtime of an active revision and reports RuntimeHealthy from its Deployment', async () => {
    const { server, events, revisions } = world();
    expect(await revisions.reconcile(NAME, signal)).to.deep.equal({ requeueAfterMs: 5_000 });
    const unavailable =
      'post establish runtime hook failed for package: provider package deployment has no condition of type "Available" yet';
    expect(conditions(revision(server))).to.deep.equal({
      RevisionHealthy: 'True/HealthyPackageRevision',
      RuntimeHealthy: `False/UnhealthyPackageRevision: ${unavailable}`,
    });
    expect(revision(server)?.status).to.include({
      tlsServerSecretName: 'provider-nop-tls-server',
      tlsClientSecretName: 'provider-nop-tls-client',
    });
    expect(server.get('v1', 'Service', 'provider-nop', NS)).to.not.equal(undefined);
    expect(server.get('v1', 'ServiceAccount', NAME, NS)).to.not.equal(undefined);
    expect(deployment(server)).to.not.equal(undefined);
    for (const secret of ['crossplane-root-ca', 'provider-nop-tls-server', 'provider-nop-tls-client']) {
      expect(server.get('v1', 'Secret', secret, NS), secret).to.not.equal(undefined);
    }

    // The webhook configuration trusts the server certificate and calls the provider's Service.
    const tlsCrt = server.get<Stored>('v1', 'Secret', 'provider-nop-tls-server', NS)?.data?.['tls.crt'];
    const webhook = server.get<Stored>(
      'admissionregistration.k8s.io/v1',
      'ValidatingWebhookConfiguration',
      'crossplane-provider-provider-nop',
    );
    expect(webhook?.webhooks?.[0]?.clientConfig).to.deep.equal({
      service: { path: '/validate', name: 'provider-nop', namespace: NS, port: 9443 },
      caBundle: tlsCrt,
    });

    const d = deployment(server);
    server.put({ ...d, status: { conditions: [{ type: 'Available', status: 'True' }] } } as Stored);
    expect(await revisions.reconcile(NAME, signal)).to.deep.equal({});
    expect(conditions(revision(server))).to.deep.equal({
      RevisionHealthy: 'True/HealthyPackageRevision',
      RuntimeHealthy: 'True/HealthyPackageRevision',
    });
    expect(events.events.map((e) => `${e.input.type}/${e.input.message}`)).to.include(
      'Normal/Successfully configured package revision',
    );
  });

  it("an inactive revision's Deployment is deleted; the Service and Secrets stay", async () => {
    const { server, revisions } = world();
    await revisions.reconcile(NAME, signal);
    const rev = revision(server);
    server.put({ ...rev, spec: { ...rev?.spec, desiredState: 'Inactive' } } as Stored);
    await revisions.reconcile(NAME, signal);
    expect(deployment(server)).to.equal(undefined);
    expect(server.get('v1', 'Service', 'provider-nop', NS)).to.not.equal(undefined);
    expect(server.get('v1', 'Secret', 'provider-nop-tls-server', NS)).to.not.equal(undefined);
  });

  it('a runtime object that cannot be applied is RuntimeHealthy False with why and a Warning; nothing is deleted', async () => {
    const { server, events, revisions } = world();
    server.failNext((r) => r.path.includes('/services/'), 422);
    const err = await revisions.reconcile(NAME, signal).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    const message = conditions(revision(server)).RuntimeHealthy ?? '';
    expect(message).to.match(
      /^False\/UnhealthyPackageRevision: pre establish runtime hook failed for package: cannot apply provider package service: /,
    );
    expect(events.events.map((e) => `${e.input.type}/${e.input.reason}`)).to.include('Warning/SyncPackage');
    expect(
      server.get('apiextensions.crossplane.io/v1alpha1', 'ManagedResourceDefinition', 'nopresources.nop.crossplane.io'),
    ).to.equal(undefined);
  });
});

describe('packages/provider Provider controller', () => {
  it("gives the revision the provider's TLS Secret names, and takes Healthy from its revision and runtime health", async () => {
    const { server } = world();
    const digest = `sha256:${'2'.repeat(64)}`;
    const providers = new ConfigurationController({
      client: server.client,
      discovery: server.discovery,
      informers: new FakeInformers().registry,
      events: new RecordingEventSink(),
      metrics: createMetrics({ processMetrics: false }),
      logger: pino({ level: 'silent' }),
      settings: { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles), workers: 1 },
      namespace: NS,
      kind: PROVIDER_KIND,
      packages: { get: () => Promise.resolve({ ...pkg, digest } as FetchedPackage) },
    });
    server.put({
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Provider',
      metadata: { name: 'provider-nop', uid: 'p-uid' },
      spec: { package: 'registry.example.org/nop:v1' },
    });
    await providers.reconcile('provider-nop', signal);
    const name = `provider-nop-${'2'.repeat(12)}`;
    const rev = server.get<Stored>('pkg.crossplane.io/v1', 'ProviderRevision', name);
    expect(rev?.spec).to.include({
      tlsServerSecretName: 'provider-nop-tls-server',
      tlsClientSecretName: 'provider-nop-tls-client',
    });
    const waiting = 'provider package deployment has no condition of type "Available" yet';
    server.put({
      ...rev,
      status: {
        conditions: [
          { type: 'RevisionHealthy', status: 'True', reason: 'HealthyPackageRevision' },
          { type: 'RuntimeHealthy', status: 'False', reason: 'UnhealthyPackageRevision', message: waiting },
        ],
      },
    } as Stored);
    await providers.reconcile('provider-nop', signal);
    const provider = server.get<Stored>('pkg.crossplane.io/v1', 'Provider', 'provider-nop');
    expect(conditions(provider).Healthy).to.equal(
      `False/UnhealthyPackageRevision: Package runtime health is "False" with message: ${waiting}`,
    );
  });
});
