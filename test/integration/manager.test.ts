import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { loadCrds } from '../../src/apis/index.js';
import { isEstablished } from '../../src/kube/index.js';
import { createLogger, Manager, StartupError } from '../../src/manager/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import type { CustomResourceDefinition } from '../../src/apis/index.js';
import { freePort } from '../../e2e/controlplane/ports.js';
import { controlPlane, eventually } from './harness.js';

const silent = createLogger('silent');
const baseConfig = {
  metricsBindAddress: '127.0.0.1:0',
  healthProbeBindAddress: '127.0.0.1:0',
  installCrds: true,
  gracefulShutdownTimeoutMs: 5_000,
};

async function get(port: number | undefined, path: string): Promise<{ status: number; body: string }> {
  if (port === undefined) throw new Error('server not listening');
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: await response.text() };
}

describe('manager (integration)', () => {
  it('installs the CRDs, serves probes and metrics, and stops gracefully', async () => {
    const metrics = createMetrics();
    const manager = new Manager({
      config: baseConfig,
      log: silent,
      metrics,
      kubeConfig: () => controlPlane().kubeConfig,
      crds: () => loadCrds(),
    });
    const stop = new AbortController();
    let started = false;
    const running = manager.run(stop.signal, () => (started = true));

    await eventually('the manager to report ready', () => Promise.resolve(started ? true : undefined));
    const ready = await get(manager.probesPort, '/readyz');
    expect(ready.status, ready.body).to.equal(200);
    expect((await get(manager.probesPort, '/healthz')).status).to.equal(200);

    const client = controlPlane().client();
    for (const crd of await loadCrds()) {
      const stored = await client.request<CustomResourceDefinition>(
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
      );
      expect(isEstablished(stored), crd.metadata.name).to.equal(true);
    }

    const scraped = await get(manager.metricsPort, '/metrics');
    expect(scraped.status).to.equal(200);
    expect(scraped.body).to.match(/rest_client_requests_total\{method="GET",code="200"\} \d+/);
    expect(scraped.body).to.include('process_resident_memory_bytes');

    stop.abort();
    await running;
    const probesPort = manager.probesPort;
    let refused = false;
    await get(probesPort, '/healthz').catch(() => (refused = true));
    expect(refused, 'the probe server must be closed after shutdown').to.equal(true);
  });

  it('fails with one line after a bounded retry when the API server is unreachable', async () => {
    const closedPort = await freePort();
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'nowhere', server: `https://127.0.0.1:${closedPort}`, skipTLSVerify: true }],
      users: [{ name: 'nobody', token: 'x' }],
      contexts: [{ name: 'nowhere', cluster: 'nowhere', user: 'nobody' }],
      currentContext: 'nowhere',
    });
    const manager = new Manager({
      config: baseConfig,
      log: silent,
      metrics: createMetrics(),
      kubeConfig: () => kc,
      crds: () => loadCrds(),
      reachability: { attempts: 3, delayMs: 10 },
    });
    const error = await manager.run(new AbortController().signal).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).to.be.instanceOf(StartupError);
    expect((error as Error).message).to.include(
      `API server https://127.0.0.1:${closedPort} is unreachable after 3 attempts: `,
    );
    expect((error as Error).message).to.include('ECONNREFUSED');
    expect((error as Error).message).not.to.include('\n');
  });

  it('fails at once, without retrying, when the credentials are rejected', async () => {
    const { kubeConfig } = controlPlane();
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('no cluster');
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [cluster],
      users: [{ name: 'intruder', token: 'not-a-valid-token' }],
      contexts: [{ name: 'bad', cluster: cluster.name, user: 'intruder' }],
      currentContext: 'bad',
    });
    const metrics = createMetrics();
    const manager = new Manager({
      config: baseConfig,
      log: silent,
      metrics,
      kubeConfig: () => kc,
      crds: () => loadCrds(),
      reachability: { attempts: 5, delayMs: 1_000 },
    });
    const started = Date.now();
    const error = await manager.run(new AbortController().signal).catch((err: unknown) => err);
    expect(error).to.be.instanceOf(StartupError);
    expect((error as Error).message).to.include("rejected compositor's credentials");
    expect(Date.now() - started, 'a 401 must not be retried').to.be.below(1_000);
  });
});
