import { expect } from 'chai';
import pino from 'pino';
import { reconcileLimits } from '../../../../src/base/index.js';
import { RecordingEventSink, type KubeObject } from '../../../../src/kube/index.js';
import { createMetrics } from '../../../../src/metrics/index.js';
import {
  ConfigurationController,
  ConfigurationRevisionController,
} from '../../../../src/packages/configuration/index.js';
import { RegistryUnreachableError, type PullOptions } from '../../../../src/packages/oci/index.js';
import type { FetchedPackage } from '../../../../src/packages/xpkg/index.js';
import { ReconcileLimiter } from '../../../../src/queue/index.js';
import { CORE_KINDS, FakeApiServer, FakeInformers } from '../../fakes/index.js';

const PKG = 'pkg.crossplane.io/v1';
const KINDS = [
  { apiVersion: PKG, kind: 'Configuration', plural: 'configurations', namespaced: false },
  { apiVersion: PKG, kind: 'ConfigurationRevision', plural: 'configurationrevisions', namespaced: false },
  { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'ImageConfig', plural: 'imageconfigs', namespaced: false },
];
const DIGEST = `sha256:${'1'.repeat(64)}`;
const ORIGINAL = 'registry.example.org/org/app:v1';
const MIRRORED = 'mirror.example.org/copy/app:v1';

type Stored = KubeObject & {
  spec: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason: string; message?: string }[] } & Record<
    string,
    unknown
  >;
};

/** A package client serving the mirrored reference only, recording the credentials each pull was given. */
function mirrorOnly(pulls: { ref: string; keys: string[] }[]): {
  get: (ref: string, o?: PullOptions) => Promise<FetchedPackage>;
} {
  const meta = { apiVersion: 'meta.pkg.crossplane.io/v1', kind: 'Configuration' as const, metadata: { name: 'app' } };
  return {
    get: (ref, options) => {
      pulls.push({ ref, keys: (options?.credentials ?? []).map((c) => c.key) });
      if (ref !== MIRRORED) return Promise.reject(new RegistryUnreachableError(`cannot reach ${ref}`));
      return Promise.resolve({ meta: [meta], objects: [], source: '', version: '', digest: DIGEST, resolvedRef: '' });
    },
  };
}

function dockerConfig(host: string): string {
  const auth = Buffer.from('user:pass').toString('base64');
  return Buffer.from(JSON.stringify({ auths: { [host]: { auth } } })).toString('base64');
}

function world(): {
  server: FakeApiServer;
  pulls: { ref: string; keys: string[] }[];
  configurations: ConfigurationController;
  revisions: ConfigurationRevisionController;
} {
  const server = new FakeApiServer([...CORE_KINDS, ...KINDS]);
  const pulls: { ref: string; keys: string[] }[] = [];
  const common = {
    client: server.client,
    discovery: server.discovery,
    informers: new FakeInformers().registry,
    events: new RecordingEventSink(),
    metrics: createMetrics({ processMetrics: false }),
    logger: pino({ level: 'silent' }),
    settings: { reconcileLimiter: new ReconcileLimiter(reconcileLimits(100).reconciles), workers: 1 },
    namespace: 'crossplane-system',
    packages: mirrorOnly(pulls),
  };
  server.put({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'mirror-creds', namespace: 'crossplane-system' },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': dockerConfig('mirror.example.org') },
  });
  server.put({ apiVersion: PKG, kind: 'Configuration', metadata: { name: 'app' }, spec: { package: ORIGINAL } });
  return {
    server,
    pulls,
    configurations: new ConfigurationController(common),
    revisions: new ConfigurationRevisionController(common),
  };
}

function imageConfig(server: FakeApiServer, name: string, spec: Record<string, unknown>): void {
  server.put({ apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'ImageConfig', metadata: { name }, spec });
}

const signal = new AbortController().signal;

describe('packages/imageconfig with the package controllers', () => {
  it('pulls the rewritten reference with the ImageConfig pull secret and records both, keeping spec.image as written', async () => {
    const { server, pulls, configurations, revisions } = world();
    imageConfig(server, 'mirror', {
      matchImages: [{ type: 'Prefix', prefix: 'registry.example.org/org' }],
      rewriteImage: { prefix: 'mirror.example.org/copy' },
    });
    imageConfig(server, 'mirror-creds', {
      matchImages: [{ type: 'Prefix', prefix: 'mirror.example.org/' }],
      registry: { authentication: { pullSecretRef: { name: 'mirror-creds' } } },
    });
    await configurations.reconcile('app', signal);
    expect(pulls).to.deep.equal([{ ref: MIRRORED, keys: ['mirror.example.org'] }]);
    const applied = [
      { name: 'mirror', reason: 'RewriteImage' },
      { name: 'mirror-creds', reason: 'SetImagePullSecret' },
    ];
    const cfg = server.get<Stored>(PKG, 'Configuration', 'app');
    expect(cfg?.status).to.deep.include({
      currentIdentifier: ORIGINAL,
      resolvedPackage: MIRRORED,
      appliedImageConfigRefs: applied,
    });
    const rev = server.get<Stored>(PKG, 'ConfigurationRevision', 'app-111111111111');
    expect(rev?.spec.image).to.equal(ORIGINAL);
    await revisions.reconcile('app-111111111111', signal);
    const reconciled = server.get<Stored>(PKG, 'ConfigurationRevision', 'app-111111111111');
    expect(reconciled?.status).to.deep.include({ resolvedImage: MIRRORED, appliedImageConfigRefs: applied });
    expect(reconciled?.status?.conditions?.map((c) => c.type)).to.deep.equal(['RevisionHealthy']);
  });

  it('an ImageConfig changing under an installed package changes what is pulled; a failed pull changes nothing installed; removed, the original is pulled', async () => {
    const { server, pulls, configurations } = world();
    imageConfig(server, 'mirror', {
      matchImages: [{ prefix: 'registry.example.org/org' }],
      rewriteImage: { prefix: 'mirror.example.org/copy' },
    });
    await configurations.reconcile('app', signal);
    // The prefix now keeps the organisation: registry.example.org/org/app:v1 → mirror.example.org/copy/org/app:v1,
    // which the mirror does not serve. The pull fails, nothing installed changes.
    imageConfig(server, 'mirror', {
      matchImages: [{ prefix: 'registry.example.org/' }],
      rewriteImage: { prefix: 'mirror.example.org/copy/' },
    });
    const failure = await configurations.reconcile('app', signal).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(Error);
    expect(pulls.map((p) => p.ref)).to.deep.equal([MIRRORED, 'mirror.example.org/copy/org/app:v1']);
    const cfg = server.get<Stored>(PKG, 'Configuration', 'app');
    expect(cfg?.status).to.deep.include({ resolvedPackage: MIRRORED, currentRevision: 'app-111111111111' });
    expect(server.list(PKG, 'ConfigurationRevision')).to.have.length(1);
    await server.client.request('DELETE', '/apis/pkg.crossplane.io/v1beta1/imageconfigs/mirror', { signal });
    await configurations.reconcile('app', signal).catch(() => undefined);
    expect(pulls.at(-1)?.ref).to.equal(ORIGINAL);
  });

  it('a verification ImageConfig installs unverified, recorded as upstream without its alpha flag, and says so', async () => {
    const { server, configurations, revisions } = world();
    imageConfig(server, 'mirror', {
      matchImages: [{ prefix: 'registry.example.org/org' }],
      rewriteImage: { prefix: 'mirror.example.org/copy' },
    });
    imageConfig(server, 'signed', {
      matchImages: [{ prefix: 'mirror.example.org/' }],
      verification: { provider: 'Cosign', cosign: { authorities: [{ name: 'a', keyless: { identities: [] } }] } },
    });
    await configurations.reconcile('app', signal);
    await revisions.reconcile('app-111111111111', signal);
    const rev = server.get<Stored>(PKG, 'ConfigurationRevision', 'app-111111111111');
    expect(rev?.status?.appliedImageConfigRefs).to.deep.include({ name: 'signed', reason: 'VerifyImage' });
    const verified = rev?.status?.conditions?.find((c) => c.type === 'Verified');
    expect(verified).to.include({ status: 'True', reason: 'SignatureVerificationSkipped' });
    expect(verified?.message).to.contain('was not verified');
  });
});
