// A restart of the managed controller with many settled NopResources: how often the restarted controller calls
// the external system in its first minute, and how soon it reconciles one that changed. Real control plane, the
// nop provider in-process; the second controller runs against the same in-memory external system (a restart
// that keeps the "cloud"), with the default --managed-poll-interval (10m) and --sync-interval (1h).
// Prints one JSON object. Usage: npm run bench:managed -- [--objects 1000] [--window 60s]
import { parseArgs } from 'node:util';
import { ControlPlane } from '../e2e/controlplane/index.js';
import { parseDuration } from '../src/apis/index.js';
import { CONTENT_TYPE, type KubeClient } from '../src/kube/index.js';
import { LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION, NopExternalSystem } from '../src/managed/index.js';
import { nopResource, READY_AT_ONCE, startNop } from '../test/integration/nop.js';

const { values } = parseArgs({
  options: { objects: { type: 'string', default: '1000' }, window: { type: 'string', default: '60s' } },
});
const objects = Number(values.objects);
const windowMs = parseDuration(values.window);
const NAMESPACE = 'bench-managed';
const PATH = `/apis/nop.compositor.crossplane.io/v1alpha1/namespaces/${NAMESPACE}/nopresources`;
const settings = { maxReconcileRate: 200, workers: 20 };

interface Listed {
  metadata: { annotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string }[] };
}

async function createAll(client: KubeClient): Promise<void> {
  await client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NAMESPACE } } });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < objects) {
      const i = next++;
      await client.request('POST', PATH, { body: nopResource(NAMESPACE, `nop-${i}`, READY_AT_ONCE) });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

async function waitSettled(client: KubeClient): Promise<void> {
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    const { items } = await client.request<{ items: Listed[] }>('GET', PATH);
    const settled = items.filter(
      (mr) =>
        mr.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true &&
        mr.metadata.annotations?.[LAST_EXTERNAL_RECONCILE_TIMESTAMP_ANNOTATION] !== undefined,
    ).length;
    if (settled >= objects) return;
    if (Date.now() > deadline) throw new Error(`only ${settled}/${objects} NopResources settled`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

const plane = await ControlPlane.start({ controllerManager: false });
try {
  const client = plane.client();
  const system = new NopExternalSystem();
  const first = await startNop(plane.kubeConfig, { settings, system });
  const createdAt = Date.now();
  await createAll(client);
  await waitSettled(client);
  const settleSeconds = (Date.now() - createdAt) / 1000;
  await first.stop();

  const startedAt = Date.now();
  const second = await startNop(plane.kubeConfig, { settings, system });
  const restartedAt = Date.now();
  await client.request('PATCH', `${PATH}/nop-7`, {
    body: { spec: { forProvider: { fields: { changed: true } } } },
    contentType: CONTENT_TYPE.mergePatch,
  });
  let changedMs: number | undefined;
  while (Date.now() < restartedAt + windowMs) {
    const held = system.get(NopExternalSystem.key(NAMESPACE, 'nop-7'))?.fields as { changed?: boolean } | undefined;
    if (changedMs === undefined && held?.changed === true) changedMs = Date.now() - restartedAt;
    await new Promise((resolve) => setTimeout(resolve, changedMs === undefined ? 10 : 1_000));
  }
  const calls = await second.externalCalls();
  const writes = (await second.metrics.registry.getMetricsAsJSON())
    .find((m) => m.name === 'rest_client_requests_total')
    ?.values.filter((v) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(String(v.labels.method)))
    .reduce((total, v) => total + v.value, 0);
  process.stdout.write(
    JSON.stringify({
      benchmark: 'managed-restart',
      objects,
      settleSeconds,
      restartSyncSeconds: (restartedAt - startedAt) / 1000,
      windowSeconds: windowMs / 1000,
      externalCallsInWindow: calls,
      externalCallsRatio: Number((calls / objects).toFixed(4)),
      target: 'externalCallsRatio < 0.05 and changedReconciledMs < 2000',
      changedReconciledMs: changedMs ?? null,
      reconcilesInWindow: await second.reconciles(),
      apiWritesInWindow: writes ?? 0,
      node: process.version,
    }) + '\n',
  );
  await second.stop();
} finally {
  await plane.stop();
}
