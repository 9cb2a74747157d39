import { expect } from 'chai';
import pino from 'pino';
import { ControlPlane } from '../../e2e/controlplane/index.js';
import { loadCrds } from '../../src/apis/index.js';
import { flagDefaults, type StartConfig } from '../../src/cli/flags.js';
import { createEngine, type Engine } from '../../src/engine/index.js';
import { ensureCrds, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { eventually } from './harness.js';
import { apply, condition, ensureNamespace, get, installApi, remove, testApi, type XrObject } from './engine.js';

// Regression: the soak benchmark's XRs that its workload deleted stayed Ready False Deleting for good (16 of 39 after
// its first fault). compositor deleted composed resources with propagationPolicy Foreground, which only marks an
// object (deletionTimestamp and the foregroundDeletion finalizer) and leaves its removal to kube-controller-manager's
// garbage collector; the benchmarks' control planes run none, so the ConfigMaps, and their XRs, stayed. An XR's
// deletion must finish on the API server alone. This control plane of its own has no controller manager.
const NAMESPACE = 'deletion-without-gc';

describe('XR deletion without a garbage collector (integration)', function () {
  this.timeout(180_000);
  const api = testApi('nogc.compositor.test', 'XNoGc');
  let plane: ControlPlane;
  let client: KubeClient;
  let engine: Engine | undefined;

  before(async () => {
    plane = await ControlPlane.start({ controllerManager: false });
    client = plane.client();
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    const defaults = flagDefaults();
    const config = {
      ...defaults,
      maxConcurrentReconciles: defaults.maxReconcileRate,
      kubeconfig: undefined,
      gracefulShutdownTimeoutMs: 5_000,
    } as StartConfig;
    engine = createEngine({
      client,
      config,
      metrics: createMetrics({ processMetrics: false }),
      log: pino({ level: process.env.ENGINE_LOG ?? 'silent' }),
    });
    await engine.start(new AbortController().signal);
    await ensureNamespace(client, NAMESPACE);
    await installApi(client, api);
  });

  after(async () => {
    await engine?.stop(AbortSignal.timeout(5_000));
    await plane.stop();
  });

  it('deletes the composed resources and removes the finalizer, so the XR is gone', async () => {
    const xr: XrObject = {
      apiVersion: api.apiVersion,
      kind: api.kind,
      metadata: { name: 'doomed', namespace: NAMESPACE },
      spec: { image: 'nginx:1.27', crossplane: { compositionRef: { name: api.plural } } } as XrObject['spec'],
    };
    await apply(client, xr);
    const ready = await eventually('the XR Ready', async () => {
      const stored = await get<XrObject>(client, xr);
      return condition(stored, 'Ready')?.status === 'True' ? stored : undefined;
    });
    const refs = ready.spec?.crossplane?.resourceRefs ?? [];
    expect(refs, 'composed resources').to.have.length.at.least(1);

    await remove(client, xr);
    await eventually(
      'the deleted XR to be gone',
      async () => {
        const stored = await get<XrObject>(client, xr);
        if (stored === undefined) return true;
        const composed = await Promise.all(
          refs.map((ref) =>
            get<KubeObject>(client, { ...ref, metadata: { name: ref.name, namespace: NAMESPACE } }).then((cm) =>
              cm === undefined
                ? `${ref.name} gone`
                : `${ref.name} finalizers ${JSON.stringify(cm.metadata.finalizers)}`,
            ),
          ),
        );
        const ready = condition(stored, 'Ready');
        throw new Error(`XR still there (Ready ${ready?.status} ${ready?.reason}); composed: ${composed.join(', ')}`);
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
  });
});
