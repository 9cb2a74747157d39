import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pino from 'pino';
import { credentials, Client, Metadata } from '@grpc/grpc-js';
import { loadCrds } from '../../src/apis/index.js';
import { runFunctionMethod, RUN_FUNCTION_V1 } from '../../src/functions/proto.js';
import { DEFAULT_BUILTIN_REGISTRIES } from '../../src/functions/index.js';
import { FunctionCaller } from '../../src/engine/index.js';
import { Discovery, ensureCrds, type KubeClient } from '../../src/kube/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { reconcileLimits } from '../../src/base/index.js';
import { ReconcileLimiter } from '../../src/queue/index.js';
import { InformerRegistry } from '../../src/watch/index.js';
import {
  ClientCertificate,
  FunctionPackageController,
  revisionName,
  SERVER_CERT_ANNOTATION,
  TlsSecrets,
  type FunctionRevision,
} from '../../src/packages/index.js';
import { PROBE_FUNCTION } from '../functions/process.js';
import { freePort } from '../../e2e/controlplane/ports.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { apply, ensureNamespace } from './engine.js';
import { controlPlane, eventually } from './harness.js';

const NS = 'pkg-system';
const FN = 'function-probe';
const REVISIONS = '/apis/pkg.crossplane.io/v1/functionrevisions';

interface Deployment {
  metadata: { name: string };
  spec: { template: { spec: { containers: { image: string; env?: { name: string; value: string }[] }[] } } };
}

/** Plays kubelet: marks a Deployment available (or not) through its status subresource. */
async function markAvailable(client: KubeClient, name: string, available: boolean): Promise<void> {
  const condition = available
    ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok' }
    : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'image cannot be pulled' };
  await client.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/${name}/status`, {
    body: {
      status: {
        conditions: [
          {
            ...condition,
            lastUpdateTime: new Date().toISOString().replace(/\.\d+Z/, 'Z'),
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z/, 'Z'),
          },
        ],
      },
    },
    contentType: 'application/merge-patch+json',
  });
}

async function secretFiles(client: KubeClient, name: string): Promise<string> {
  const secret = await client.request<{ data: Record<string, string> }>(
    'GET',
    `/api/v1/namespaces/${NS}/secrets/${name}`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'tls-'));
  for (const [key, value] of Object.entries(secret.data)) await writeFile(join(dir, key), Buffer.from(value, 'base64'));
  return dir;
}

/** Plays kubelet: runs the probe function with the server certificate files in `dir`. */
function spawnProbe(dir: string, port: number): ChildProcess {
  return spawn(
    process.execPath,
    ['--import', 'tsx', PROBE_FUNCTION, '--tls-server-certs-dir', dir, '--address', `127.0.0.1:${port}`],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

async function podAnnotations(client: KubeClient, deployment: string): Promise<Record<string, string>> {
  const got = await client.request<{ spec: { template: { metadata?: { annotations?: Record<string, string> } } } }>(
    'GET',
    `/apis/apps/v1/namespaces/${NS}/deployments/${deployment}`,
  );
  return got.spec.template.metadata?.annotations ?? {};
}

async function serverCert(client: KubeClient): Promise<string | undefined> {
  const secret = await client.request<{ data?: Record<string, string> }>(
    'GET',
    `/api/v1/namespaces/${NS}/secrets/${FN}-tls-server`,
  );
  return secret.data?.['tls.crt'];
}

describe('Function packages (integration)', function () {
  this.timeout(90_000);
  let client: KubeClient;
  let controller: FunctionPackageController;
  let clientTls: ClientCertificate;

  before(async () => {
    client = controlPlane().client();
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    await ensureNamespace(client, NS);
    const secrets = new TlsSecrets({ client, namespace: NS });
    const logger = pino({ level: process.env.TEST_LOG ?? 'silent' });
    // Looks every 300 ms instead of every minute, so the renewal test sees a new CA at once.
    clientTls = new ClientCertificate({ secrets, namespace: NS, issue: true, logger, refreshMs: 300 });
    controller = new FunctionPackageController({
      client,
      secrets,
      namespace: NS,
      logger,
      metrics: createMetrics({ processMetrics: false }),
      reconcileLimiter: new ReconcileLimiter(reconcileLimits(10).reconciles),
      resyncMs: 300,
      idleResyncMs: 300,
    });
    await clientTls.start();
    await controller.start();
  });

  after(async () => {
    await controller.stop(AbortSignal.timeout(5_000));
    await clientTls.stop();
    await client.request('DELETE', `/apis/pkg.crossplane.io/v1/functions/${FN}`);
  });

  it('runs a Function as a Deployment whose server certificate the function client verifies by Service DNS name', async () => {
    const pkg = 'xpkg.example.org/probe:v1';
    await apply(client, {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: FN },
      spec: { package: pkg },
    });
    const rev = revisionName(FN, pkg);
    const deployment = await eventually('the Deployment', () =>
      client.request<Deployment>('GET', `/apis/apps/v1/namespaces/${NS}/deployments/${rev}`),
    );
    const container = deployment.spec.template.spec.containers[0];
    expect(container?.image).to.equal(pkg);
    expect(container?.env).to.deep.include({ name: 'TLS_SERVER_CERTS_DIR', value: '/tls/server' });
    await eventually('the Service', () => client.request('GET', `/api/v1/namespaces/${NS}/services/${FN}`));

    // Not yet available: the revision and the Function say why.
    await markAvailable(client, rev, false);
    await eventually('the Function Healthy False', async () => {
      const fn = await client.request<{
        status?: { conditions?: { type: string; status: string; message?: string }[] };
      }>('GET', `/apis/pkg.crossplane.io/v1/functions/${FN}`);
      const healthy = fn.status?.conditions?.find((c) => c.type === 'Healthy');
      expect(healthy?.status).to.equal('False');
      expect(healthy?.message).to.contain('image cannot be pulled');
      return true;
    });

    // The kubelet's part: serve the function with the Secret compositor generated, then mark it available.
    const dir = await secretFiles(client, `${FN}-tls-server`);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', PROBE_FUNCTION, '--tls-server-certs-dir', dir, '--address', `127.0.0.1:${port}`],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    try {
      await markAvailable(client, rev, true);
      const revision = await eventually('RuntimeHealthy True', async () => {
        const r = await client.request<FunctionRevision>('GET', `${REVISIONS}/${rev}`);
        expect(r.status?.conditions?.find((c) => c.type === 'RuntimeHealthy')?.status).to.equal('True');
        return r;
      });
      expect(revision.status?.endpoint).to.equal(`dns:///${FN}.${NS}:9443`);
      expect(revision.status?.capabilities).to.deep.equal([]);

      const tls = clientTls.current();
      if (tls === undefined) throw new Error(`no client certificate: ${clientTls.problem()}`);
      // The server Secret is controlled by the active revision, as upstream's.
      const serverSecret = await client.request<{ metadata: { ownerReferences?: { kind: string; name: string }[] } }>(
        'GET',
        `/api/v1/namespaces/${NS}/secrets/${FN}-tls-server`,
      );
      expect(serverSecret.metadata.ownerReferences).to.deep.include({
        apiVersion: 'pkg.crossplane.io/v1',
        kind: 'FunctionRevision',
        name: rev,
        uid: revision.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      });
      const call = (serverName: string, ca: string): Promise<unknown> => {
        const creds = credentials.createSsl(Buffer.from(ca), Buffer.from(tls.key), Buffer.from(tls.cert));
        // The test-only dial override: the Service's DNS name, reached on the loopback port.
        const c = new Client(`127.0.0.1:${port}`, creds, { 'grpc.ssl_target_name_override': serverName });
        const method = runFunctionMethod();
        return new Promise((resolve, reject) => {
          c.makeUnaryRequest(
            RUN_FUNCTION_V1,
            method.serializeRequest,
            method.deserializeResponse,
            {} as never,
            new Metadata(),
            { deadline: Date.now() + 10_000 },
            (err, value) => {
              c.close();
              if (err) reject(err);
              else resolve(value);
            },
          );
        });
      };
      await eventually('a call by the Service DNS name', () => call(`${FN}.${NS}`, tls.ca).then(() => true));
      const wrongName = await call(`other.${NS}`, tls.ca).then(
        () => undefined,
        (err: unknown) => err as Error,
      );
      expect(wrongName?.message).to.match(/Hostname|altnames|certificate/i);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('upgrades on a new spec.package: a new revision and Deployment, the old one retired once the new is healthy', async () => {
    const oldRev = revisionName(FN, 'xpkg.example.org/probe:v1');
    const pkg = 'xpkg.example.org/probe:v2';
    await apply(client, {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: FN },
      spec: { package: pkg },
    });
    const rev = revisionName(FN, pkg);
    await eventually('the new Deployment', () =>
      client.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments/${rev}`),
    );
    // Still serving: the old revision stays Active until the new runtime is available.
    const old = await client.request<FunctionRevision>('GET', `${REVISIONS}/${oldRev}`);
    expect(old.spec.desiredState).to.equal('Active');
    await markAvailable(client, rev, true);
    await eventually('the old revision Inactive', async () => {
      const r = await client.request<FunctionRevision>('GET', `${REVISIONS}/${oldRev}`);
      expect(r.spec.desiredState).to.equal('Inactive');
      return true;
    });
    const svc = await client.request<{ spec: { selector: Record<string, string> } }>(
      'GET',
      `/api/v1/namespaces/${NS}/services/${FN}`,
    );
    expect(svc.spec.selector['pkg.crossplane.io/revision']).to.equal(rev);
  });

  it("picks up renewed certificates: after a new CA, compositor's function client trusts it and calls on", async () => {
    const rev = revisionName(FN, 'xpkg.example.org/probe:v2');
    const target = `dns:///${FN}.${NS}:9443`;
    const port = await freePort();
    const logger = pino({ level: process.env.TEST_LOG ?? 'silent' });
    const discovery = new Discovery(client);
    const informers = new InformerRegistry({
      client,
      kubeConfig: client.kubeConfig,
      discovery,
      logger,
      syncIntervalMs: 3_600_000,
    });
    const caller = new FunctionCaller({
      informers,
      config: {
        functionInsecure: false,
        functionTlsDir: '/nonexistent',
        functionTimeoutMs: 10_000,
        builtinFunctions: true,
        builtinFunctionRegistries: DEFAULT_BUILTIN_REGISTRIES,
        enableFunctionResponseCache: false,
        xfnCacheMaxTtlMs: 0,
        maxComposedResources: 1000,
        packageRuntime: 'Deployment',
        leaderElectionNamespace: NS,
      },
      metrics: createMetrics({ processMetrics: false }),
      log: logger,
      packageTls: clientTls,
      dialOverrides: { [target]: `127.0.0.1:${port}` },
    });
    await caller.start();
    const runner = caller.runner();
    const call = (): Promise<boolean> => runner.run({ functionName: FN, step: 'probe', request: {} }).then(() => true);
    // The kubelet's part: run the function with the server Secret as it is now, restarted when it changes.
    let child = spawnProbe(await secretFiles(client, `${FN}-tls-server`), port);
    try {
      await eventually('a call before the renewal', call);
      const before = { client: clientTls.current(), deployment: await podAnnotations(client, rev) };
      const serverBefore = await serverCert(client);

      // A new CA: every certificate is reissued, the function's pods roll, compositor's client follows.
      await client.request('DELETE', `/api/v1/namespaces/${NS}/secrets/crossplane-root-ca`);
      await eventually('a new client certificate and CA', () => {
        const now = clientTls.current();
        return Promise.resolve(now !== before.client && now?.ca !== before.client?.ca ? now : undefined);
      });
      const annotations = await eventually('the pods rolled for the new server certificate', async () => {
        const now = await podAnnotations(client, rev);
        return now[SERVER_CERT_ANNOTATION] !== before.deployment[SERVER_CERT_ANNOTATION] ? now : undefined;
      });
      expect(annotations[SERVER_CERT_ANNOTATION]).to.match(/^[0-9a-f]{16}$/);
      child.kill('SIGTERM');
      expect(await serverCert(client)).to.not.equal(serverBefore);
      child = spawnProbe(await secretFiles(client, `${FN}-tls-server`), port);
      await eventually('a call after the renewal', call);
    } finally {
      child.kill('SIGTERM');
      await caller.stop();
      await informers.stop();
    }
  });
});

describe('Function packages where the Secrets cannot be written yet (integration)', function () {
  this.timeout(90_000);
  const ns = 'pkg-late';
  const fn = 'function-late';
  let client: KubeClient;
  let controller: FunctionPackageController;
  let clientTls: ClientCertificate;

  before(async () => {
    client = controlPlane().client();
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    const secrets = new TlsSecrets({ client, namespace: ns });
    const logger = pino({ level: process.env.TEST_LOG ?? 'silent' });
    const backoff = { baseMs: 100, capMs: 500 };
    clientTls = new ClientCertificate({ secrets, namespace: ns, issue: true, logger, backoff });
    controller = new FunctionPackageController({
      client,
      secrets,
      namespace: ns,
      logger,
      metrics: createMetrics({ processMetrics: false }),
      reconcileLimiter: new ReconcileLimiter(reconcileLimits(10).reconciles),
      resyncMs: 300,
      idleResyncMs: 300,
    });
  });

  after(async () => {
    await controller.stop(AbortSignal.timeout(5_000));
    await clientTls.stop();
  });

  it('starts without its namespace, says why on the Function, and catches up once the namespace exists', async () => {
    // Neither start may throw: an engine that crash-loops on a missing namespace or Role helps nobody.
    await clientTls.start();
    await controller.start();
    expect(clientTls.current()).to.equal(undefined);
    expect(clientTls.problem()).to.match(/cannot load the client certificate crossplane-tls-client: .*pkg-late/);
    await apply(client, {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: fn },
      spec: { package: 'xpkg.example.org/late:v1' },
    });
    await eventually('the Function Healthy False naming the Secret', async () => {
      const got = await client.request<{
        status?: { conditions?: { type: string; status: string; message?: string }[] };
      }>('GET', `/apis/pkg.crossplane.io/v1/functions/${fn}`);
      const healthy = got.status?.conditions?.find((c) => c.type === 'Healthy');
      expect(healthy?.status).to.equal('False');
      expect(healthy?.message).to.match(/cannot create or update secret: crossplane-root-ca.*pkg-late/);
      return true;
    });
    await ensureNamespace(client, ns);
    await eventually('the client certificate', () => Promise.resolve(clientTls.current()));
    await eventually('the Deployment', () =>
      client.request(
        'GET',
        `/apis/apps/v1/namespaces/${ns}/deployments/${revisionName(fn, 'xpkg.example.org/late:v1')}`,
      ),
    );
    await client.request('DELETE', `/apis/pkg.crossplane.io/v1/functions/${fn}`);
  });
});
