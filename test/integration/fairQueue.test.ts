import { expect } from 'chai';
import { QUEUE_WEIGHT_LABEL } from '../../src/composite/queueWeights.js';
import type { KubeClient } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import { apply, condition, installApi, startEngine, testApi, type RunningEngine, type XrObject } from './engine.js';

// --fair-queue against a real API server: XRs are served round-robin by namespace, weights come from a Namespace
// label through a Namespace informer that only runs when the flag is on.

const NOISY = 'fair-noisy';
const QUIET = 'fair-quiet';
const NOISY_XRS = 60;
const api = testApi('fair.compositor.test', 'XFair');

function xr(namespace: string, name: string): XrObject {
  return {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name, namespace },
    spec: { image: 'nginx:1.27' } as XrObject['spec'],
  };
}

async function synced(client: KubeClient, namespace: string): Promise<string[]> {
  const list = await client.request<{ items: XrObject[] }>(
    'GET',
    `/apis/${api.apiVersion}/namespaces/${namespace}/${api.plural}`,
  );
  return list.items.filter((x) => condition(x, 'Synced')?.status === 'True').map((x) => x.metadata.name);
}

describe('fair work queue (--fair-queue)', function () {
  this.timeout(180_000);
  let client: KubeClient;
  let running: RunningEngine | undefined;

  before(async () => {
    client = controlPlane().client();
    await apply(client, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NOISY } });
    // An invalid weight counts as 1 (and is logged): it must not keep the namespace's XRs from being served.
    await apply(client, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: QUIET, labels: { [QUEUE_WEIGHT_LABEL]: 'lots' } },
    });
  });

  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('reconciles a quiet namespace XR created behind a backlog of another namespace long before that backlog', async () => {
    // One worker and one reconcile per second after a burst of ten: 60 XRs make a backlog of ~50 s.
    running = await startEngine({ maxReconcileRate: 1 });
    await installApi(client, api);
    await Promise.all(Array.from({ length: NOISY_XRS }, (_, i) => apply(client, xr(NOISY, `noisy-${i}`))));
    await apply(client, xr(QUIET, 'quiet'));
    const noisyDone = await eventually(
      'the quiet XR Synced',
      async () => {
        const noisy = (await synced(client, NOISY)).length;
        if ((await synced(client, QUIET)).length === 0) throw new Error(`quiet not Synced, ${noisy} noisy Synced`);
        return noisy;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    // A FIFO queue (upstream) reconciles it behind the whole backlog (~40 noisy XRs Synced by then: some need a second
    // pass); round-robin right after the noisy XR in progress (those the burst let through while they were created).
    process.stderr.write(`      ${noisyDone} of ${NOISY_XRS} noisy XRs were Synced when the quiet one was\n`);
    expect(noisyDone, 'noisy XRs already Synced when the quiet one was').to.be.below(NOISY_XRS / 2);
    expect(running.engine.informers.watched()).to.include('v1/Namespace');
  });

  it('watches no Namespaces with --fair-queue=false', async () => {
    running = await startEngine({ fairQueue: false });
    await installApi(client, api);
    await apply(client, xr(QUIET, 'quiet-fifo'));
    await eventually('quiet-fifo Synced', async () =>
      (await synced(client, QUIET)).includes('quiet-fifo') ? true : undefined,
    );
    expect(running.engine.informers.watched()).to.not.include('v1/Namespace');
  });
});
