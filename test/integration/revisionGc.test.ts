import { expect } from 'chai';
import pino from 'pino';
import { loadCrds } from '../../src/apis/index.js';
import { CompositionRevisionController } from '../../src/definition/index.js';
import { COMPOSITION_NAME_LABEL } from '../../src/definition/revisions.js';
import { CONTENT_TYPE, Discovery, ensureCrds, isNotFound, type KubeClient } from '../../src/kube/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { InformerRegistry } from '../../src/watch/index.js';
import { apply, ensureNamespace } from './engine.js';
import { controlPlane, eventually } from './harness.js';
import { reconcileLimits } from '../../src/base/index.js';
import { ReconcileLimiter } from '../../src/queue/index.js';

const GROUP_PATH = '/apis/apiextensions.crossplane.io/v1';
const COMPOSITION = 'rev-gc';
const XR_GROUP = 'revgc.example.org';

// --max-composition-revisions: the newest N revisions stay, with every one an XR still references.
describe('CompositionRevision garbage collection (integration)', function () {
  this.timeout(90_000);
  let client: KubeClient;
  let registry: InformerRegistry;
  let controller: CompositionRevisionController;

  async function revisionNumbers(): Promise<Record<string, number>> {
    const list = await client.request<{ items: { metadata: { name: string }; spec: { revision: number } }[] }>(
      'GET',
      `${GROUP_PATH}/compositionrevisions`,
      { query: { labelSelector: `${COMPOSITION_NAME_LABEL}=${COMPOSITION}` } },
    );
    return Object.fromEntries(list.items.map((r) => [r.metadata.name, r.spec.revision]));
  }

  /** Applies the Composition with one step of this name and waits for its revision numbered `number`. */
  async function compose(step: string, number: number): Promise<string> {
    await apply(client, {
      apiVersion: 'apiextensions.crossplane.io/v1',
      kind: 'Composition',
      metadata: { name: COMPOSITION },
      spec: {
        compositeTypeRef: { apiVersion: `${XR_GROUP}/v1`, kind: 'XGc' },
        mode: 'Pipeline',
        pipeline: [{ step, functionRef: { name: 'function-patch-and-transform' } }],
      },
    });
    return eventually(`revision ${number} of ${COMPOSITION}`, async () => {
      const numbers = await revisionNumbers();
      const found = Object.entries(numbers).find(([, n]) => n === number)?.[0];
      if (found === undefined) throw new Error(JSON.stringify(numbers));
      return found;
    });
  }

  before(async () => {
    client = controlPlane().client();
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    await ensureCrds(
      client,
      [
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `xgcs.${XR_GROUP}` },
          spec: {
            group: XR_GROUP,
            names: { kind: 'XGc', plural: 'xgcs' },
            scope: 'Namespaced',
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
              },
            ],
          },
        },
      ],
      { timeoutMs: 30_000 },
    );
    await ensureNamespace(client, 'revgc');
    registry = new InformerRegistry({
      client,
      kubeConfig: controlPlane().kubeConfig,
      discovery: new Discovery(client),
      logger: pino({ level: 'silent' }),
      syncIntervalMs: 0,
    });
    controller = new CompositionRevisionController({
      client,
      informers: registry,
      metrics: createMetrics({ processMetrics: false }),
      logger: pino({ level: 'silent' }),
      reconcileLimiter: new ReconcileLimiter(reconcileLimits(10).reconciles),
      maxRevisions: 2,
    });
    await controller.start(new AbortController().signal);
  });

  after(async () => {
    await controller.stop(AbortSignal.timeout(10_000));
    await client.request('DELETE', `${GROUP_PATH}/compositions/${COMPOSITION}`).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
    await client.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/xgcs.${XR_GROUP}`);
  });

  it('keeps the newest two and the revision an XR is pinned to, and deletes the rest', async () => {
    const first = await compose('one', 1);
    await client.request('POST', `/apis/${XR_GROUP}/v1/namespaces/revgc/xgcs`, {
      body: {
        apiVersion: `${XR_GROUP}/v1`,
        kind: 'XGc',
        metadata: { name: 'pinned' },
        spec: { crossplane: { compositionUpdatePolicy: 'Manual', compositionRevisionRef: { name: first } } },
      },
      contentType: CONTENT_TYPE.json,
    });
    const second = await compose('two', 2);
    const third = await compose('three', 3);
    const fourth = await compose('four', 4);
    const kept = await eventually('revision 2 deleted, the pinned revision 1 kept', async () => {
      const numbers = await revisionNumbers();
      if (second in numbers) throw new Error(JSON.stringify(numbers));
      return numbers;
    });
    expect(kept).to.deep.equal({ [first]: 1, [third]: 3, [fourth]: 4 });
  });
});
