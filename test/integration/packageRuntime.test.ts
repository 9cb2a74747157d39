import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { expect } from 'chai';
import { freePort } from '../../e2e/controlplane/ports.js';
import { FunctionCallError, GrpcFunctionRunner } from '../../src/functions/index.js';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { CLIENT_SECRET, generateCa, revisionName, type FunctionRevision } from '../../src/packages/index.js';
import { PROBE_FUNCTION } from '../functions/process.js';
import {
  apply,
  AUTO_READY_FUNCTION,
  condition,
  ensureNamespace,
  functions,
  get,
  remove,
  startEngine,
  testApi,
  xrd,
  type RunningEngine,
  type XrObject,
} from './engine.js';
import { controlPlane, eventually } from './harness.js';

// --package-runtime=Deployment end to end, the test playing kubelet: compositor makes the function's Deployment and
// certificates; the test starts the SDK function with the server certificate compositor generated and marks the
// Deployment available; compositor reaches it through the test-only dial override (docs/testing.md), which maps the
// Service's DNS name to the loopback port while TLS still verifies that name.
const NS = 'pkg-runtime';
const FN = 'function-runtime-probe';
const PKG = 'xpkg.example.org/runtime-probe:v1';
const TARGET = `dns:///${FN}.${NS}:9443`;

async function markAvailable(client: KubeClient, name: string, available: boolean): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z/, 'Z');
  const condition = available
    ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok' }
    : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'image cannot be pulled' };
  await client.request('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/${name}/status`, {
    body: { status: { conditions: [{ ...condition, lastUpdateTime: now, lastTransitionTime: now }] } },
    contentType: 'application/merge-patch+json',
  });
}

async function secretData(client: KubeClient, name: string): Promise<Record<string, string>> {
  const secret = await client.request<{ data: Record<string, string> }>(
    'GET',
    `/api/v1/namespaces/${NS}/secrets/${name}`,
  );
  return Object.fromEntries(Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
}

/** Serves the probe function with the server certificate in the Secret compositor generated, as the pod would. */
async function serveWithSecret(client: KubeClient, port: number): Promise<ChildProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'tls-server-'));
  for (const [key, value] of Object.entries(await secretData(client, `${FN}-tls-server`))) {
    await writeFile(join(dir, key), value);
  }
  return spawn(
    process.execPath,
    ['--import', 'tsx', PROBE_FUNCTION, '--tls-server-certs-dir', dir, '--address', `127.0.0.1:${port}`],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

describe('--package-runtime=Deployment: XRs compose with functions compositor runs', function () {
  this.timeout(150_000);
  const api = testApi('pkgruntime.compositor.test', 'XPackaged');
  const rev = revisionName(FN, PKG);
  let running: RunningEngine;
  let client: KubeClient;
  let port: number;
  let child: ChildProcess | undefined;
  const xr: XrObject = {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name: 'pkg', namespace: 'default' },
    spec: {},
  };
  const fnObject: KubeObject = {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'Function',
    metadata: { name: FN },
    spec: { package: PKG },
  };

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NS);
    port = await freePort();
    running = await startEngine(
      { packageRuntime: 'Deployment', leaderElectionNamespace: NS },
      { functionDialOverrides: { [TARGET]: `127.0.0.1:${port}` } },
    );
    for (const f of functions()) await apply(client, f);
    await apply(client, fnObject);
    // The probe function records its calls in the XR's status.
    const definition = xrd(api) as KubeObject & {
      spec: { versions: { schema: { openAPIV3Schema: { properties: Record<string, unknown> } } }[] };
    };
    for (const version of definition.spec.versions) {
      version.schema.openAPIV3Schema.properties.status = {
        type: 'object',
        properties: { calls: { type: 'integer' } },
      };
    }
    await apply(client, definition);
    await apply(client, {
      apiVersion: 'apiextensions.crossplane.io/v1',
      kind: 'Composition',
      metadata: { name: api.plural },
      spec: {
        compositeTypeRef: { apiVersion: api.apiVersion, kind: api.kind },
        mode: 'Pipeline',
        pipeline: [
          {
            step: 'probe',
            functionRef: { name: FN },
            input: { apiVersion: 'probe.fn.compositor.test/v1', kind: 'Input', resources: ['extra'] },
          },
          { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
        ],
      },
    });
  });

  after(async () => {
    await remove(client, xr);
    await running.stop();
    child?.kill('SIGTERM');
    await remove(client, fnObject);
  });

  const failedReconciles = async (): Promise<number> => {
    const controller = `composite/${api.plural}.${api.group}`;
    const metric = (await running.metrics.registry.getMetricsAsJSON()).find(
      (m) => m.name === 'controller_runtime_reconcile_total',
    );
    const failed = (metric?.values ?? []).filter(
      (v) => v.labels.controller === controller && v.labels.result === 'error',
    );
    return failed.reduce((sum, v) => sum + v.value, 0);
  };

  const composed = async (): Promise<KubeObject[]> => {
    const list = await client.request<{ items: KubeObject[] }>('GET', '/api/v1/namespaces/default/configmaps', {
      query: { labelSelector: `crossplane.io/composite=${xr.metadata.name}` },
    });
    return list.items;
  };

  it("names the Function and its Healthy condition in the XR's Synced while its Deployment is not available", async () => {
    await eventually('the Deployment', () =>
      client.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments/${rev}`),
    );
    await markAvailable(client, rev, false);
    await eventually('XR created', () => apply(client, xr));
    const synced = await eventually('Synced False naming the Function', async () => {
      const c = condition(await get<XrObject>(client, xr), 'Synced');
      return c?.status === 'False' && c.message?.includes('image cannot be pulled') === true ? c : undefined;
    });
    expect(synced.message).to.contain(`Function "${FN}" has no healthy runtime`);
    expect(synced.message).to.contain('UnhealthyPackageRevision');
  });

  it('becomes Ready once the function serves with the generated certificate and its Deployment is available', async () => {
    // Let the XR back off: after six failed reconciles (1+2+4+8+16 s apart) its next retry is 32 s away.
    await eventually('six failed reconciles', async () => ((await failedReconciles()) >= 6 ? true : undefined), {
      timeoutMs: 60_000,
    });
    child = await serveWithSecret(client, port);
    await markAvailable(client, rev, true);
    await eventually(
      'XR Ready',
      async () => {
        const got = await get<XrObject>(client, xr);
        if (condition(got, 'Synced')?.status === 'True' && condition(got, 'Ready')?.status === 'True') return true;
        throw new Error(JSON.stringify(got?.status?.conditions));
      },
      // Well within the XR's backoff (32 s by now): the Function becoming Healthy requeues the XRs that call it.
      // The package controller looks at unhealthy runtimes every 5 s.
      { timeoutMs: 15_000 },
    );
    expect((await composed()).length).to.be.greaterThan(0);
  });

  it('deletes nothing and says why when the runtime becomes unavailable again', async () => {
    const before = (await composed()).map((o) => o.metadata.name).sort();
    await markAvailable(client, rev, false);
    // Deployments are not watched: once every runtime is healthy the package controller looks again every minute,
    // or at once on a change to a Function, which the test makes.
    await apply(client, { ...fnObject, metadata: { ...fnObject.metadata, labels: { touched: 'true' } } });
    await eventually('RuntimeHealthy False', async () => {
      const r = await client.request<FunctionRevision>('GET', `/apis/pkg.crossplane.io/v1/functionrevisions/${rev}`);
      return r.status?.conditions?.find((c) => c.type === 'RuntimeHealthy')?.status === 'False' ? true : undefined;
    });
    // A new request (the cached response of the old one stays valid for its TTL, as the function protocol allows).
    await apply(client, { ...xr, spec: { image: 'v2' } });
    const synced = await eventually(
      'Synced False naming the Function',
      async () => {
        const c = condition(await get<XrObject>(client, xr), 'Synced');
        return c?.status === 'False' && c.message?.includes(FN) === true ? c : undefined;
      },
      { timeoutMs: 70_000 },
    );
    expect(synced.message).to.contain('image cannot be pulled');
    expect((await composed()).map((o) => o.metadata.name).sort()).to.deep.equal(before);
    await markAvailable(client, rev, true);
  });

  it('fails a call with a clear error when the server name or the CA is not the one expected', async () => {
    const client_ = await secretData(client, CLIENT_SECRET);
    const call = async (target: string, ca: string): Promise<FunctionCallError> => {
      const runner = new GrpcFunctionRunner({
        resolveEndpoint: () => Promise.resolve(target),
        credentials: credentials.createSsl(
          Buffer.from(ca),
          Buffer.from(client_['tls.key'] ?? ''),
          Buffer.from(client_['tls.crt'] ?? ''),
        ),
        dialOverrides: { [target]: `127.0.0.1:${port}` },
        attempts: 1,
        timeoutMs: 5_000,
      });
      try {
        await runner.run({ functionName: FN, step: 'probe', request: {} });
        throw new Error('the call succeeded');
      } catch (err) {
        return err as FunctionCallError;
      } finally {
        runner.close();
      }
    };
    const wrongName = await call(`dns:///other.${NS}:9443`, client_['ca.crt'] ?? '');
    expect(wrongName).to.be.instanceOf(FunctionCallError);
    expect(wrongName.message).to.match(/cannot call dns:\/\/\/other\.pkg-runtime:9443: .*(Hostname|altnames)/);
    const otherCa = await generateCa(new Date());
    const wrongCa = await call(TARGET, otherCa.cert);
    expect(wrongCa).to.be.instanceOf(FunctionCallError);
    expect(wrongCa.message).to.match(/certificate/i);
  });
});
