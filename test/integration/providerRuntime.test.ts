/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any --
   the runtime objects are plain JSON read field by field, as kubelet reads them */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { freePort } from '../../e2e/controlplane/ports.js';
import { packageRoot } from '../../src/apis/index.js';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { PROVIDER_NOP_API_VERSION, NOP_KIND } from '../../src/managed/index.js';
import { buildPackage } from '../unit/fakes/xpkg.js';
import { pullSecret } from '../unit/fakes/registry.js';
import {
  apply,
  AUTO_READY_FUNCTION,
  condition,
  functions,
  get,
  PT_FUNCTION,
  remove,
  startEngine,
  testApi,
  xrd,
  type Condition,
  type RunningEngine,
  type XrObject,
} from './engine.js';
import { controlPlane, eventually } from './harness.js';
import { packageStream, TestRegistry } from './registry.js';

// A Provider's runtime end to end (--enable-providers, --package-runtime=Deployment), the test playing kubelet:
// provider-nop's package (its crossplane.yaml and CRD, from upstream's data) pushed to a real registry and installed;
// compositor makes the revision's ServiceAccount, Deployment, Service and TLS Secrets; the test starts the process
// the Deployment runs, `compositor provider nop`, with the Deployment's environment, a token of the ServiceAccount
// from the TokenRequest API and the Secrets' files where the Deployment mounts them, and marks the Deployment
// Available. An XR composing a provider-nop NopResource becomes Ready through that process alone: compositor's
// in-process nop provider is off. The package's webhook configuration is left out here: this API server has no route
// to a Service, so a webhook with failurePolicy Fail would refuse every NopResource (providers.test.ts checks its
// install); the process's webhook server is called directly, trusting compositor's CA.
const NS = 'provider-runtime';
const NAME = 'provider-nop';
const PROVIDER = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Provider', metadata: { name: NAME } };
const REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'ProviderRevision' };
const ROLE = `compositor-test:${NAME}`;

type Obj = KubeObject & {
  spec?: Record<string, unknown>;
  status?: { conditions?: Condition[] } & Record<string, unknown>;
  data?: Record<string, string>;
};
type Json = Record<string, any>;

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

const path = {
  deployment: (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`,
  service: (name: string) => `/api/v1/namespaces/${NS}/services/${name}`,
  serviceAccount: (name: string) => `/api/v1/namespaces/${NS}/serviceaccounts/${name}`,
  secret: (name: string) => `/api/v1/namespaces/${NS}/secrets/${name}`,
};

async function markAvailable(client: KubeClient, name: string): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z/, 'Z');
  const available = { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok' };
  await client.request('PATCH', `${path.deployment(name)}/status`, {
    body: { status: { conditions: [{ ...available, lastUpdateTime: now, lastTransitionTime: now }] } },
    contentType: 'application/merge-patch+json',
  });
}

/** What kubelet would mount: each Secret volume's items as files in a directory of its own, by mount path. */
async function mountSecrets(client: KubeClient, pod: Json, dir: string): Promise<Record<string, string>> {
  const mounts: Record<string, string> = {};
  for (const mount of pod.containers[0].volumeMounts as Json[]) {
    const volume = (pod.volumes as Json[]).find((v) => v.name === mount.name);
    const secret = await client.request<Obj>('GET', path.secret(volume?.secret.secretName as string));
    const target = join(dir, mount.name as string);
    await mkdir(target);
    for (const item of volume?.secret.items as Json[]) {
      await writeFile(
        join(target, item.path as string),
        Buffer.from(secret.data?.[item.key as string] ?? '', 'base64'),
      );
    }
    mounts[mount.mountPath as string] = target;
  }
  return mounts;
}

/** The container's environment as kubelet resolves it: field references, $(VAR) expansion, mount paths moved. */
function podEnvironment(container: Json, labels: Record<string, string>, mounts: Record<string, string>): Json {
  const env: Record<string, string> = {};
  for (const variable of container.env as Json[]) {
    const field = variable.valueFrom?.fieldRef?.fieldPath as string | undefined;
    let value: string;
    if (field === 'metadata.namespace') value = NS;
    else if (field !== undefined) value = labels[/^metadata\.labels\['(.+)'\]$/.exec(field)?.[1] ?? ''] ?? '';
    else value = (variable.value as string).replace(/\$\((\w+)\)/g, (_, name: string) => env[name] ?? '');
    env[variable.name as string] = mounts[value] ?? value;
  }
  return env;
}

/** A kubeconfig for the API server as the ServiceAccount, with a token from the TokenRequest API. */
async function serviceAccountKubeconfig(client: KubeClient, account: string, file: string): Promise<void> {
  const review = await client.request<{ status: { token: string } }>('POST', `${path.serviceAccount(account)}/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  const cluster = controlPlane().kubeConfig.getCurrentCluster();
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'c',
        cluster: {
          server: cluster?.server,
          ...(cluster?.caData ? { 'certificate-authority-data': cluster.caData } : {}),
          ...(cluster?.caFile ? { 'certificate-authority': cluster.caFile } : {}),
        },
      },
    ],
    users: [{ name: 'sa', user: { token: review.status.token } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'sa' } }],
    'current-context': 'c',
  };
  await writeFile(file, JSON.stringify(config));
}

/**
 * What the provider's runtime is allowed: its NopResources. compositor does not grant a provider's RBAC with its
 * runtime, so the test grants it as an operator would.
 */
async function grantProvider(client: KubeClient, account: string): Promise<void> {
  await apply(client, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: ROLE },
    rules: [
      { apiGroups: ['nop.crossplane.io'], resources: ['*'], verbs: ['*'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['*'] },
    ],
  });
  await apply(client, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: ROLE },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ROLE },
    subjects: [{ kind: 'ServiceAccount', name: account, namespace: NS }],
  });
}

/** Posts an AdmissionReview to the process's webhook server over TLS, verifying it as the API server would. */
function admissionReview(port: number, ca: string, servername: string): Promise<Json> {
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'review-1', operation: 'CREATE', object: { kind: NOP_KIND } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/validate-nop-crossplane-io-v1alpha1-nopresource',
        ca,
        servername,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          resolve(JSON.parse(text) as Json);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function providerNopComposition(api: ReturnType<typeof testApi>): KubeObject {
  const base = {
    apiVersion: PROVIDER_NOP_API_VERSION,
    kind: NOP_KIND,
    spec: { forProvider: { conditionAfter: [{ conditionType: 'Ready', conditionStatus: 'True', time: '0s' }] } },
  };
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: api.plural },
    spec: {
      compositeTypeRef: { apiVersion: api.apiVersion, kind: api.kind },
      mode: 'Pipeline',
      pipeline: [
        {
          step: 'patch-and-transform',
          functionRef: { name: PT_FUNCTION },
          input: { apiVersion: 'pt.fn.crossplane.io/v1beta1', kind: 'Resources', resources: [{ name: 'nop', base }] },
        },
        { step: 'detect-readiness', functionRef: { name: AUTO_READY_FUNCTION } },
      ],
    },
  };
}

describe('Provider runtime: provider-nop run by its Deployment (integration)', function () {
  this.timeout(120_000);
  const registry = new TestRegistry('htpasswd');
  const api = testApi('providerruntime.compositor.test', 'XRuntimeNop', 'LegacyCluster');
  const xr: XrObject = { apiVersion: api.apiVersion, kind: api.kind, metadata: { name: 'through-runtime' }, spec: {} };
  let running: RunningEngine | undefined;
  let client: KubeClient;
  let dir = '';
  let revision = '';
  let child: ChildProcess | undefined;
  /** What the provider process printed (its log and errors), quoted when a wait times out. */
  let stderr = '';
  let webhookPort = 0;
  /** The NopResource the XR composed, deleted before the provider process stops. */
  let composed: KubeObject | undefined;

  before(async () => {
    client = controlPlane().client();
    dir = await mkdtemp(join(tmpdir(), 'provider-runtime-'));
    await registry.start();
    const pkg = await buildPackage(packageStream(NAME, ['crds/nop.crossplane.io_nopresources.yaml']));
    const ref = await registry.push(pkg, 'crossplane-contrib/provider-nop', 'v0.5.0');
    revision = `${NAME}-${pkg.digest.slice('sha256:'.length, 'sha256:'.length + 12)}`;
    running = await startEngine({
      packageRuntime: 'Deployment',
      enableProviders: true,
      defaultActivations: '*',
      leaderElectionNamespace: NS,
      xpkgCacheDir: join(dir, 'cache'),
    });
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'registry');
    await apply(client, { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { name: 'registry', namespace: NS } });
    for (const fn of functions()) await apply(client, fn);
    await apply(client, { ...PROVIDER, spec: { package: ref, packagePullSecrets: [{ name: 'registry' }] } });
  });

  after(async () => {
    await remove(client, xr).catch(() => undefined);
    // The NopResource's finalizer is the provider process's: it runs until the garbage collector's delete is done.
    if (composed !== undefined) {
      const nop = composed;
      await eventually('the composed NopResource deleted', async () => {
        const left = await get(client, nop);
        if (left === undefined) return true;
        throw new Error(JSON.stringify(left.metadata));
      }).catch((err: unknown) => {
        console.warn(String(err));
      });
    }
    child?.kill('SIGTERM');
    await remove(client, PROVIDER).catch(() => undefined);
    // Its CRD goes with the Provider (the garbage collector), before another test file serves that kind.
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'nopresources.nop.crossplane.io' },
    };
    await eventually(
      "the package's CRD deleted",
      async () => ((await get(client, crd)) === undefined ? true : undefined),
      {
        timeoutMs: 30_000,
      },
    ).catch((err: unknown) => {
      console.warn(String(err));
    });
    for (const kind of ['ClusterRoleBinding', 'ClusterRole']) {
      await remove(client, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind,
        metadata: { name: ROLE },
      }).catch(() => undefined);
    }
    await running?.stop();
    await registry.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("makes the revision's ServiceAccount, Deployment, Service and TLS Secrets with upstream's fields", async () => {
    const rev = await waitCondition(client, { ...REVISION, metadata: { name: revision } }, 'RuntimeHealthy', {
      status: 'False',
      message:
        'post establish runtime hook failed for package: provider package deployment has no condition of type "Available" yet',
    });
    expect(rev.spec).to.include({
      tlsServerSecretName: `${NAME}-tls-server`,
      tlsClientSecretName: `${NAME}-tls-client`,
    });
    expect(rev.status).to.include({
      tlsServerSecretName: `${NAME}-tls-server`,
      tlsClientSecretName: `${NAME}-tls-client`,
    });
    expect(condition(rev, 'RevisionHealthy')).to.include({ status: 'True' });
    await waitCondition(client, PROVIDER, 'Healthy', {
      status: 'False',
      message: `Package runtime health is "False" with message: ${condition(rev, 'RuntimeHealthy')?.message ?? ''}`,
    });

    const deployment = await client.request<Json>('GET', path.deployment(revision));
    const labels = { 'pkg.crossplane.io/revision': revision, 'pkg.crossplane.io/provider': NAME };
    expect(deployment.metadata.ownerReferences[0]).to.include({ kind: 'ProviderRevision', name: revision });
    expect(deployment.spec.selector.matchLabels).to.deep.equal(labels);
    expect(deployment.spec.template.metadata.labels).to.deep.equal(labels);
    expect(deployment.spec.template.metadata.annotations).to.include({ 'prometheus.io/scrape': 'true' });
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(container.image).to.match(/\/crossplane-contrib\/provider-nop:v0\.5\.0$/);
    expect(container.securityContext).to.include({ runAsNonRoot: true, runAsUser: 2000, privileged: false });
    expect(container.ports.map((p: Json) => `${p.name}:${p.containerPort}`)).to.deep.equal([
      'metrics:8080',
      'webhook:9443',
    ]);
    expect(container.env.map((e: Json) => e.name)).to.deep.equal([
      'TLS_CLIENT_CERTS_DIR',
      'TLS_SERVER_CERTS_DIR',
      'POD_NAMESPACE',
      'PROVIDER_NAME',
      'REVISION_NAME',
      'REVISION_UID',
      'WEBHOOK_TLS_CERT_DIR',
    ]);
    expect(container.volumeMounts.map((m: Json) => m.mountPath)).to.deep.equal(['/tls/client', '/tls/server']);
    expect(pod.serviceAccountName).to.equal(revision);
    expect(pod.imagePullSecrets).to.deep.equal([{ name: 'registry' }]);

    const service = await client.request<Json>('GET', path.service(NAME));
    expect(service.spec.selector).to.deep.equal(labels);
    expect(service.spec.ports).to.deep.equal([{ name: 'webhook', protocol: 'TCP', port: 9443, targetPort: 'webhook' }]);
    const account = await client.request<Json>('GET', path.serviceAccount(revision));
    expect(account.metadata.ownerReferences[0]).to.include({ kind: 'ProviderRevision', name: revision });
    for (const name of [`${NAME}-tls-server`, `${NAME}-tls-client`]) {
      const secret = await client.request<Obj>('GET', path.secret(name));
      expect(Object.keys(secret.data ?? {}).sort(), name).to.deep.equal(['ca.crt', 'tls.crt', 'tls.key']);
    }
  });

  it('runs `compositor provider nop` as kubelet would; once the Deployment is Available the Provider is Healthy', async () => {
    const deployment = await client.request<Json>('GET', path.deployment(revision));
    const pod = deployment.spec.template.spec;
    await grantProvider(client, pod.serviceAccountName as string);
    const kubeconfig = join(dir, 'kubeconfig');
    await serviceAccountKubeconfig(client, pod.serviceAccountName as string, kubeconfig);
    const mounts = await mountSecrets(client, pod, dir);
    const env = podEnvironment(
      pod.containers[0],
      deployment.spec.template.metadata.labels as Record<string, string>,
      mounts,
    );
    expect(env).to.include({ POD_NAMESPACE: NS, PROVIDER_NAME: NAME, REVISION_NAME: revision });
    expect(env.WEBHOOK_TLS_CERT_DIR).to.equal(mounts['/tls/server']);
    webhookPort = await freePort();
    // The host is not a pod's network namespace: the process's ports are free ones, metrics and probes off.
    const args = ['provider', 'nop', '--webhook-bind-address', `127.0.0.1:${webhookPort}`];
    child = spawn(
      process.execPath,
      ['--import', 'tsx', join(packageRoot(), 'src', 'cli', 'main.ts'), ...args, '--metrics-bind-address', '0'],
      {
        cwd: packageRoot(),
        env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: kubeconfig, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => (stderr += `\nexited with ${String(code)}`));

    const ca = Buffer.from(
      (await client.request<Obj>('GET', path.secret(`${NAME}-tls-server`))).data?.['ca.crt'] ?? '',
      'base64',
    ).toString();
    const review = await eventually(
      'the webhook server of the provider process',
      () => admissionReview(webhookPort, ca, `${NAME}.${NS}.svc`),
      { timeoutMs: 30_000, intervalMs: 250 },
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; provider process stderr: ${stderr}`);
    });
    expect(review.response).to.deep.equal({ uid: 'review-1', allowed: true });

    await markAvailable(client, revision);
    await waitCondition(client, { ...REVISION, metadata: { name: revision } }, 'RuntimeHealthy', {
      status: 'True',
      reason: 'HealthyPackageRevision',
    });
    await waitCondition(client, PROVIDER, 'Healthy', { status: 'True', reason: 'HealthyPackageRevision' });
  });

  it('an XR composing a provider-nop NopResource becomes Ready through the provider process', async () => {
    await apply(client, xrd(api));
    await apply(client, providerNopComposition(api));
    await eventually('the XRD established', async () =>
      condition(await get<XrObject>(client, xrd(api)), 'Established')?.status === 'True' ? true : undefined,
    );
    await apply(client, xr);
    const ready = await eventually(
      'the XR Ready',
      async () => {
        const got = await get<XrObject>(client, xr);
        if (condition(got, 'Ready')?.status === 'True') return got;
        throw new Error(`${JSON.stringify(got?.status)}; provider process stderr: ${stderr.slice(-2000)}`);
      },
      { timeoutMs: 40_000 },
    );
    const refs = (ready.spec as { resourceRefs?: { apiVersion: string; kind: string; name: string }[] }).resourceRefs;
    const ref = refs?.find((r) => r.kind === NOP_KIND);
    composed = { apiVersion: String(ref?.apiVersion), kind: NOP_KIND, metadata: { name: String(ref?.name) } };
    const nop = await get<Obj>(client, composed);
    expect(condition(nop, 'Ready')).to.include({ status: 'True' });
    expect(condition(nop, 'Synced')).to.include({ status: 'True' });
  });
});
