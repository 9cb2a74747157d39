// Memory per cached object in the watch layer: N ConfigMaps of ~2 KiB on a real API server, one informer, heap
// measured after a forced GC before and after the cache is synced. Prints one JSON object.
// Usage: npm run bench:informer -- [--objects 10000] [--size 2048]
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ControlPlane } from '../e2e/controlplane/index.js';
import { Discovery, type KubeClient } from '../src/kube/index.js';
import { InformerRegistry } from '../src/watch/index.js';

const { values } = parseArgs({
  options: { objects: { type: 'string', default: '10000' }, size: { type: 'string', default: '2048' } },
});
const objects = Number(values.objects);
const size = Number(values.size);
const NAMESPACE = 'bench-informer';

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:informer does)');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function createAll(client: KubeClient): Promise<number> {
  await client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NAMESPACE } } });
  const payload = 'x'.repeat(size);
  const started = Date.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < objects) {
      const i = next++;
      await client.request('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
        body: { metadata: { name: `cm-${i}` }, data: { payload } },
      });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return (Date.now() - started) / 1000;
}

const plane = await ControlPlane.start({ controllerManager: false });
try {
  const client = plane.client();
  const createSeconds = await createAll(client);
  const registry = new InformerRegistry({
    client,
    kubeConfig: plane.kubeConfig,
    discovery: new Discovery(client),
    logger: pino({ level: 'silent' }),
    syncIntervalMs: 0,
  });
  const before = heapAfterGc();
  const started = Date.now();
  const lease = await registry.acquire('v1', 'ConfigMap');
  await lease.informer.waitForSync();
  const syncSeconds = (Date.now() - started) / 1000;
  const after = heapAfterGc();
  const cached = lease.informer.store.size;
  const sample = JSON.stringify(lease.informer.store.get(`${NAMESPACE}/cm-0`)).length;
  await registry.stop();
  const released = heapAfterGc();
  process.stdout.write(
    JSON.stringify({
      benchmark: 'informer',
      objects: cached,
      objectJsonBytes: sample,
      createSeconds,
      listAndSyncSeconds: syncSeconds,
      heapBytesPerObject: Math.round((after - before) / cached),
      heapOverJsonRatio: Number(((after - before) / cached / sample).toFixed(2)),
      heapFreedAfterReleaseMiB: Number(((after - released) / 2 ** 20).toFixed(1)),
      node: process.version,
    }) + '\n',
  );
} finally {
  await plane.stop();
}
