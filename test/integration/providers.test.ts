import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { buildPackage } from '../unit/fakes/xpkg.js';
import { pullSecret } from '../unit/fakes/registry.js';
import { apply, condition, eventsFor, get, remove, startEngine, type Condition, type RunningEngine } from './engine.js';
import { controlPlane, eventually } from './harness.js';
import { packagesDir, packageStream, TestRegistry } from './registry.js';

// Provider packages end to end (--enable-providers): upstream's provider-nop pushed to a real registry, installed by
// the Provider controllers on a real API server; its NopResource CRD installed as a ManagedResourceDefinition, which
// the default activation policy lists and the MRD controller turns into a served CRD; a Provider's Healthy waiting
// for its runtime's Deployment, which the test marks Available as kubelet would (providerRuntime.test.ts runs the
// process); CRDs converted by webhook and webhook configurations pointed at the provider's Service; a package whose
// metadata is not a Provider, reported on the revision and the Provider.
const NS = 'providers-system';
const PROVIDER = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Provider' };
const REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'ProviderRevision' };
const XP = 'apiextensions.crossplane.io/v1alpha1';
const MRD_NAME = 'nopresources.nop.crossplane.io';
const MRD = { apiVersion: XP, kind: 'ManagedResourceDefinition', metadata: { name: MRD_NAME } };
const MRAP = { apiVersion: XP, kind: 'ManagedResourceActivationPolicy', metadata: { name: 'default' } };
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: MRD_NAME } };
const NAME = 'provider-nop';
/** provider-kubernetes' CRDs (v2 layout), which is a safe-start provider. */
const K8S_CRDS = [
  'kubernetes.crossplane.io_objects',
  'kubernetes.crossplane.io_observedobjectcollections',
  'kubernetes.crossplane.io_providerconfigs',
  'kubernetes.crossplane.io_providerconfigusages',
  'kubernetes.m.crossplane.io_clusterproviderconfigs',
  'kubernetes.m.crossplane.io_objects',
  'kubernetes.m.crossplane.io_observedobjectcollections',
  'kubernetes.m.crossplane.io_providerconfigs',
  'kubernetes.m.crossplane.io_providerconfigusages',
];

type Obj = KubeObject & {
  metadata: KubeObject['metadata'] & { ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
  spec?: Record<string, unknown>;
  status?: { conditions?: Condition[] } & Record<string, unknown>;
};

function provider(name: string, pkg: string): KubeObject {
  return { ...PROVIDER, metadata: { name }, spec: { package: pkg, packagePullSecrets: [{ name: 'registry' }] } };
}

/** `ref`'s condition once it matches `want`; what was last seen on timeout. */
function waitCondition(client: KubeClient, ref: KubeObject, type: string, want: Partial<Condition>): Promise<Obj> {
  return eventually(
    `${ref.kind} ${ref.metadata.name} ${type} ${JSON.stringify(want)}`,
    async () => {
      const got = await get<Obj>(client, ref);
      const c = condition(got, type);
      if (got !== undefined && Object.entries(want).every(([k, v]) => c?.[k as keyof Condition] === v)) return got;
      throw new Error(JSON.stringify(got?.status ?? got));
    },
    { timeoutMs: 40_000 },
  );
}

/** Plays kubelet for a Provider's current revision: its runtime Deployment, once made, is marked Available. */
async function runtimeAvailable(client: KubeClient, provider: string): Promise<void> {
  const pkg = await eventually(`Provider ${provider} has a current revision`, async () => {
    const got = await get<Obj>(client, { ...PROVIDER, metadata: { name: provider } });
    if (typeof got?.status?.currentRevision === 'string') return got;
    throw new Error(JSON.stringify(got?.status ?? got));
  });
  const path = `/apis/apps/v1/namespaces/${NS}/deployments/${String(pkg.status?.currentRevision)}`;
  const revision = { ...REVISION, metadata: { name: String(pkg.status?.currentRevision) } };
  await eventually(
    `the runtime Deployment of ${provider}`,
    () =>
      client.request('GET', path).catch(async (err: unknown) => {
        const rev = await get<Obj>(client, revision);
        throw new Error(`${String(err)}; revision status: ${JSON.stringify(rev?.status?.conditions)}`);
      }),
    { timeoutMs: 40_000 },
  );
  const now = new Date().toISOString().replace(/\.\d+Z/, 'Z');
  const available = { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok' };
  await client.request('PATCH', `${path}/status`, {
    body: { status: { conditions: [{ ...available, lastUpdateTime: now, lastTransitionTime: now }] } },
    contentType: 'application/merge-patch+json',
  });
}

describe('Provider packages from a real registry (integration)', function () {
  this.timeout(90_000);
  const registry = new TestRegistry('token');
  let running: RunningEngine | undefined;
  let client: KubeClient;
  let cacheDir: string | undefined;
  const refs: Record<string, string> = {};
  const digests: Record<string, string> = {};

  before(async () => {
    client = controlPlane().client();
    await registry.start();
    // Without its webhook configuration: this API server has no route to the provider's Service, so a webhook that
    // fails closed would refuse every NopResource. The webhooks test below installs it, and removes it.
    const nop = await buildPackage(packageStream(NAME, ['crds/nop.crossplane.io_nopresources.yaml']));
    refs.nop = await registry.push(nop, 'crossplane-contrib/provider-nop', 'v0.5.0');
    digests.nop = nop.digest;
    const notAProvider = await buildPackage(
      'apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: not-a-provider\n',
    );
    refs.notAProvider = await registry.push(notAProvider, 'org/not-a-provider', 'v1');
    const k8sStream = packageStream(
      'provider-kubernetes',
      K8S_CRDS.map((c) => `crds/${c}.yaml`),
    );
    const webhooks = readFileSync(join(packagesDir(), NAME, 'webhookconfigurations.yaml'), 'utf8').trimEnd();
    const kubernetes = await buildPackage(`${k8sStream.trimEnd()}\n---\n${webhooks}\n`);
    refs.kubernetes = await registry.push(kubernetes, 'crossplane-contrib/provider-kubernetes', 'v1.0.0');
    // The same CRDs without their conversion webhook, which only the provider's runtime could serve.
    const unconverted = await buildPackage(k8sStream.replace(/^ {2}conversion:\n(?: {4}.*\n)+/gm, ''));
    refs.unconverted = await registry.push(unconverted, 'org/provider-kubernetes-unconverted', 'v1.0.0');
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
    running = await startEngine({
      packageRuntime: 'Deployment',
      enableProviders: true,
      defaultActivations: '*',
      leaderElectionNamespace: NS,
      xpkgCacheDir: cacheDir,
    });
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'registry');
    await apply(client, { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { name: 'registry', namespace: NS } });
  });

  after(async () => {
    await remove(client, {
      apiVersion: 'nop.crossplane.io/v1alpha1',
      kind: 'NopResource',
      metadata: { name: 'probe' },
    }).catch(() => undefined);
    for (const name of [NAME, 'broken', 'provider-kubernetes', 'webhooks'])
      await remove(client, provider(name, '')).catch(() => undefined);
    await running?.stop();
    await registry.stop();
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it('installs provider-nop: an Active revision whose CRD is an Active MRD it controls', async () => {
    await apply(client, provider(NAME, refs.nop ?? ''));
    const revision = `${NAME}-${(digests.nop ?? '').slice('sha256:'.length, 'sha256:'.length + 12)}`;
    // Healthy waits for the runtime as well as the revision.
    await waitCondition(client, { ...PROVIDER, metadata: { name: NAME } }, 'Healthy', {
      status: 'False',
      message:
        'Package runtime health is "False" with message: post establish runtime hook failed for package: provider package deployment has no condition of type "Available" yet',
    });
    await runtimeAvailable(client, NAME);
    await waitCondition(client, { ...PROVIDER, metadata: { name: NAME } }, 'Healthy', { status: 'True' });
    const pkg = await waitCondition(client, { ...PROVIDER, metadata: { name: NAME } }, 'Installed', {
      status: 'True',
      reason: 'ActivePackageRevision',
    });
    expect(pkg.status?.currentRevision).to.equal(revision);
    const rev = await get<Obj>(client, { ...REVISION, metadata: { name: revision } });
    expect(rev?.spec).to.include({ desiredState: 'Active', revision: 1 });
    expect(condition(rev, 'RevisionHealthy')).to.include({ status: 'True', reason: 'HealthyPackageRevision' });
    expect(rev?.status?.objectRefs).to.deep.equal([
      {
        apiVersion: XP,
        kind: 'ManagedResourceDefinition',
        name: MRD_NAME,
        uid: (await get<Obj>(client, MRD))?.metadata.uid,
      },
    ]);
    const mrd = await get<Obj>(client, MRD);
    expect(mrd?.spec?.state).to.equal('Active');
    expect(mrd?.metadata.ownerReferences?.find((r) => r.controller === true)).to.include({
      kind: 'ProviderRevision',
      name: revision,
    });
  });

  it('creates the default activation policy, which lists the MRD', async () => {
    const policy = await eventually('the default policy lists the MRD', async () => {
      const got = await get<Obj>(client, MRAP);
      const activated = got?.status?.activated as string[] | undefined;
      if (activated?.includes(MRD_NAME) === true) return got;
      throw new Error(JSON.stringify(got ?? 'no default policy'));
    });
    expect(policy.spec).to.deep.equal({ activate: ['*'] });
    expect(condition(policy, 'Healthy')).to.include({ status: 'True', reason: 'Running' });
  });

  it('serves the CRD of the Active MRD: Established, and a NopResource can be created', async () => {
    await waitCondition(client, MRD, 'Established', { status: 'True', reason: 'EstablishedManagedResource' });
    const crd = await get<Obj>(client, CRD);
    expect(crd?.metadata.ownerReferences?.map((r) => r.kind)).to.deep.equal([
      'ManagedResourceDefinition',
      'ProviderRevision',
    ]);
    const nop = {
      apiVersion: 'nop.crossplane.io/v1alpha1',
      kind: 'NopResource',
      metadata: { name: 'probe' },
      spec: { forProvider: { fields: { integerField: 42 } } },
    };
    await apply(client, nop);
    const stored = await get<Obj>(client, nop);
    expect(stored?.spec?.forProvider).to.deep.equal({ fields: { integerField: 42 } });
  });

  it("points CRDs converted by webhook and the webhook configuration at the provider's Service, trusting its certificate", async () => {
    await apply(client, provider('webhooks', refs.kubernetes ?? ''));
    await runtimeAvailable(client, 'webhooks');
    const pkg = await waitCondition(client, { ...PROVIDER, metadata: { name: 'webhooks' } }, 'Healthy', {
      status: 'True',
    });
    const rev = await get<Obj>(client, { ...REVISION, metadata: { name: String(pkg.status?.currentRevision) } });
    expect(rev?.status).to.include({ tlsServerSecretName: 'webhooks-tls-server' });
    const secret = await client.request<{ data: Record<string, string> }>(
      'GET',
      `/api/v1/namespaces/${NS}/secrets/webhooks-tls-server`,
    );
    const clientConfig = { service: { name: 'webhooks', namespace: NS, port: 9443 }, caBundle: secret.data['tls.crt'] };
    const mrd = await get<Obj>(client, { ...MRD, metadata: { name: 'objects.kubernetes.crossplane.io' } });
    const conversion = mrd?.spec?.conversion as { strategy: string; webhook: { clientConfig: unknown } };
    expect(conversion.strategy).to.equal('Webhook');
    expect(conversion.webhook.clientConfig).to.deep.equal({
      service: { ...clientConfig.service, path: '/convert' },
      caBundle: clientConfig.caBundle,
    });
    const validating = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'crossplane-provider-webhooks' },
    };
    const webhook = await get<Obj & { webhooks: { clientConfig: { service: Record<string, unknown> } }[] }>(
      client,
      validating,
    );
    expect(webhook?.webhooks[0]?.clientConfig).to.deep.equal({
      service: { ...clientConfig.service, path: '/validate-nop-crossplane-io-v1alpha1-nopresource' },
      caBundle: clientConfig.caBundle,
    });
    expect((rev?.status?.objectRefs as { kind: string }[]).map((r) => r.kind)).to.include(
      'ValidatingWebhookConfiguration',
    );
    // Removed with the Provider by the garbage collector, with its MRDs and their CRDs, before the next test installs
    // the same kinds (and before any NopResource meets the webhook, which nothing here serves).
    await remove(client, provider('webhooks', ''));
    await eventually(
      'the webhook configuration, MRDs and CRDs of the removed Provider are gone',
      async () => {
        const left = [
          await get(client, validating),
          await get(client, { ...MRD, metadata: { name: 'objects.kubernetes.crossplane.io' } }),
          await get(client, { ...CRD, metadata: { name: 'objects.kubernetes.crossplane.io' } }),
        ].filter((o) => o !== undefined);
        if (left.length === 0) return true;
        throw new Error(left.map((o) => `${o.kind}/${o.metadata.name}`).join(', '));
      },
      { timeoutMs: 40_000 },
    );
  });

  it("copies the metadata's capabilities to the revision, as upstream's revision reconciler", async () => {
    await apply(client, provider('provider-kubernetes', refs.unconverted ?? ''));
    // Not waiting for Healthy, which needs the runtime's Deployment available: RevisionHealthy is enough.
    const capabilities = await eventually('the revision healthy, with capabilities', async () => {
      const pkg = await get<Obj>(client, { ...PROVIDER, metadata: { name: 'provider-kubernetes' } });
      const rev = await get<Obj>(client, { ...REVISION, metadata: { name: String(pkg?.status?.currentRevision) } });
      if (condition(rev, 'RevisionHealthy')?.status === 'True') return rev?.status?.capabilities;
      throw new Error(JSON.stringify(rev?.status ?? pkg?.status));
    });
    expect(capabilities).to.deep.equal(['SafeStart']);
  });

  it('installs a safe-start provider: its MRDs made Active by the default policy, its ProviderConfig kinds as CRDs', async () => {
    await apply(client, provider('provider-kubernetes', refs.unconverted ?? ''));
    await runtimeAvailable(client, 'provider-kubernetes');
    const pkg = await waitCondition(client, { ...PROVIDER, metadata: { name: 'provider-kubernetes' } }, 'Healthy', {
      status: 'True',
    });
    const rev = await get<Obj>(client, { ...REVISION, metadata: { name: String(pkg.status?.currentRevision) } });
    const installed = (rev?.status?.objectRefs ?? []) as { kind: string; name: string }[];
    const byKind = (kind: string): string[] =>
      installed
        .filter((r) => r.kind === kind)
        .map((r) => r.name)
        .sort();
    const managed = [
      'objects.kubernetes.crossplane.io',
      'objects.kubernetes.m.crossplane.io',
      'observedobjectcollections.kubernetes.crossplane.io',
      'observedobjectcollections.kubernetes.m.crossplane.io',
    ];
    expect(byKind('ManagedResourceDefinition')).to.deep.equal(managed);
    expect(byKind('CustomResourceDefinition')).to.have.length(5);
    for (const name of managed) {
      const ref = { ...MRD, metadata: { name } };
      await waitCondition(client, ref, 'Established', { status: 'True' });
      expect((await get<Obj>(client, ref))?.spec?.state).to.equal('Active');
    }
    const policy = await get<Obj>(client, MRAP);
    expect(policy?.status?.activated).to.include.members(managed);
    // The revision created them Inactive: the policy's events say it activated them.
    const activations = await eventually('the policy reports its activations', async () => {
      const events = await eventsFor(
        client,
        'default',
        String(policy?.metadata.uid),
        'ActivateManagedResourceDefinition',
      );
      if (events.length > 0) return events;
      throw new Error('no ActivateManagedResourceDefinition event on the default policy');
    });
    expect(activations.map((e) => e.type)).to.include('Normal');
  });

  it('reports a package that is not a Provider on its revision and the Provider, installing nothing', async () => {
    await apply(client, provider('broken', refs.notAProvider ?? ''));
    const message = 'validating package contents failed: package meta type is not Provider';
    const pkg = await waitCondition(client, { ...PROVIDER, metadata: { name: 'broken' } }, 'Healthy', {
      status: 'False',
      message: `Package revision health is "False" with message: ${message}`,
    });
    const rev = await get<Obj>(client, { ...REVISION, metadata: { name: String(pkg.status?.currentRevision) } });
    expect(condition(rev, 'RevisionHealthy')).to.include({ status: 'False', message });
    expect(rev?.status?.objectRefs ?? []).to.deep.equal([]);
  });
});
