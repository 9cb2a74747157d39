import { expect } from 'chai';
import pino from 'pino';
import { loadCrds } from '../../src/apis/index.js';
import { OwnWrites, TokenBucketBreaker } from '../../src/circuitbreaker/index.js';
import { CompositeEventPipeline } from '../../src/composite/index.js';
import { Discovery, ensureCrds, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { InformerRegistry } from '../../src/watch/index.js';
import { controlPlane, eventually } from './harness.js';

const GROUP = 'pipeline.example.org';
const XR = { apiVersion: `${GROUP}/v1`, kind: 'XPipe', group: GROUP, namespaced: true };
const NAMESPACE = 'event-pipeline';

const xrCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `xpipes.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: 'XPipe', plural: 'xpipes', singular: 'xpipe', listKind: 'XPipeList' },
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
};

interface Harness {
  pipeline: CompositeEventPipeline;
  registry: InformerRegistry;
  breaker: TokenBucketBreaker;
  ownWrites: OwnWrites;
  enqueued: string[];
}

async function startPipeline(client: KubeClient, realtime: boolean, burst = 100): Promise<Harness> {
  const plane = controlPlane();
  const registry = new InformerRegistry({
    client,
    kubeConfig: plane.kubeConfig,
    discovery: new Discovery(client),
    logger: pino({ level: 'silent' }),
    syncIntervalMs: 0,
  });
  const breaker = new TokenBucketBreaker({
    controller: `composite/xpipes.${GROUP}`,
    metrics: createMetrics({ processMetrics: false }),
    burst,
  });
  const ownWrites = new OwnWrites();
  const enqueued: string[] = [];
  const pipeline = new CompositeEventPipeline({
    xr: XR,
    informers: registry,
    enqueue: (key) => enqueued.push(key),
    breaker,
    ownWrites,
    realtime,
    logger: pino({ level: 'silent' }),
  });
  await pipeline.start();
  return { pipeline, registry, breaker, ownWrites, enqueued };
}

async function create<T extends KubeObject>(client: KubeClient, path: string, body: KubeObject): Promise<T> {
  return client.request<T>('POST', path, { body });
}

function ownedConfigMap(name: string, owner: KubeObject): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: NAMESPACE,
      ownerReferences: [
        {
          apiVersion: owner.apiVersion,
          kind: owner.kind,
          name: owner.metadata.name,
          uid: owner.metadata.uid,
          controller: true,
        },
      ],
    },
    data: { n: '0' },
  };
}

const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const XPIPES = `/apis/${GROUP}/v1/namespaces/${NAMESPACE}/xpipes`;

async function touch(client: KubeClient, name: string, n: number): Promise<KubeObject> {
  return client.request<KubeObject>('PATCH', `${CONFIGMAPS}/${name}`, {
    body: { data: { n: String(n) } },
    contentType: 'application/merge-patch+json',
  });
}

const count = (list: string[], key: string): number => list.filter((k) => k === key).length;

describe('composite event pipeline (integration)', function () {
  this.timeout(60_000);
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    await ensureCrds(client, [...(await loadCrds()), xrCrd as never], { timeoutMs: 30_000 });
    await client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NAMESPACE } } });
  });

  it('realtime: an XR is enqueued for its own changes, its composed resources and its revisions', async () => {
    const h = await startPipeline(client, true);
    try {
      const xr = await create<KubeObject>(client, XPIPES, {
        apiVersion: XR.apiVersion,
        kind: XR.kind,
        metadata: { name: 'rt', namespace: NAMESPACE },
        spec: { crossplane: { compositionRef: { name: 'pipes' } } },
      });
      await eventually('the new XR to be enqueued', () =>
        Promise.resolve(count(h.enqueued, `${NAMESPACE}/rt`) >= 1 || undefined),
      );
      await create(client, CONFIGMAPS, ownedConfigMap('rt-owned', xr));
      await h.pipeline.watchComposed('v1', 'ConfigMap');
      expect(h.pipeline.composedKinds()).to.deep.equal(['v1/ConfigMap']);

      const before = count(h.enqueued, `${NAMESPACE}/rt`);
      await touch(client, 'rt-owned', 1);
      await eventually('a composed change to enqueue its XR', () =>
        Promise.resolve(count(h.enqueued, `${NAMESPACE}/rt`) > before || undefined),
      );

      // Our own write's echo is free and enqueues nothing.
      const afterComposed = count(h.enqueued, `${NAMESPACE}/rt`);
      // The echo of a write may arrive before the write's response: track() holds it until the response is in.
      await h.ownWrites.track({ kind: 'ConfigMap', metadata: { name: 'rt-owned', namespace: NAMESPACE } }, () =>
        touch(client, 'rt-owned', 2),
      );
      await touch(client, 'rt-owned', 3);
      const configMaps = await h.registry.acquire('v1', 'ConfigMap');
      await eventually('the cache to hold the foreign change', () =>
        Promise.resolve(
          (configMaps.informer.store.get(`${NAMESPACE}/rt-owned`)?.data as { n?: string } | undefined)?.n === '3' ||
            undefined,
        ),
      );
      await configMaps.release();
      // The cache is updated before its event goes out, so both changes have been through the pipeline by now.
      expect(count(h.enqueued, `${NAMESPACE}/rt`)).to.equal(afterComposed + 1);

      const afterEcho = count(h.enqueued, `${NAMESPACE}/rt`);
      await create(client, '/apis/apiextensions.crossplane.io/v1/compositionrevisions', {
        apiVersion: 'apiextensions.crossplane.io/v1',
        kind: 'CompositionRevision',
        metadata: { name: 'pipes-abc1234', labels: { 'crossplane.io/composition-name': 'pipes' } },
        spec: {
          revision: 1,
          mode: 'Pipeline',
          compositeTypeRef: { apiVersion: XR.apiVersion, kind: XR.kind },
          pipeline: [],
        },
      });
      await eventually('a new revision of its Composition to enqueue the XR', () =>
        Promise.resolve(count(h.enqueued, `${NAMESPACE}/rt`) > afterEcho || undefined),
      );
      await h.pipeline.unwatchComposed('v1', 'ConfigMap');
      expect(h.registry.watched()).to.not.include('v1/ConfigMap');
    } finally {
      await h.pipeline.stop();
      expect(h.registry.watched()).to.deep.equal([]);
    }
  });

  it('opens the circuit of an XR whose composed resource storms, and lets the storm through no further', async () => {
    const h = await startPipeline(client, true, 10);
    try {
      const xr = await create<KubeObject>(client, XPIPES, {
        apiVersion: XR.apiVersion,
        kind: XR.kind,
        metadata: { name: 'storm', namespace: NAMESPACE },
        spec: {},
      });
      await create(client, CONFIGMAPS, ownedConfigMap('storm-owned', xr));
      await h.pipeline.watchComposed('v1', 'ConfigMap');
      // Burst 10 at 2 tokens per update: the 5th update empties the bucket, the 6th opens the circuit.
      for (let i = 1; i <= 12; i++) await touch(client, 'storm-owned', i);
      await eventually('the circuit to open', () =>
        Promise.resolve(h.breaker.state(`${NAMESPACE}/storm`).open || undefined),
      );
      const enqueued = count(h.enqueued, `${NAMESPACE}/storm`);
      expect(enqueued, `enqueued ${enqueued} times`).to.be.at.most(1 + 5);
    } finally {
      await h.pipeline.stop();
    }
  });

  it('realtime off: composed kinds are not watched, XR changes still enqueue', async () => {
    const h = await startPipeline(client, false);
    try {
      await h.pipeline.watchComposed('v1', 'ConfigMap');
      expect(h.pipeline.composedKinds()).to.deep.equal([]);
      expect(h.registry.watched()).to.not.include('v1/ConfigMap');
      await create(client, XPIPES, {
        apiVersion: XR.apiVersion,
        kind: XR.kind,
        metadata: { name: 'polled', namespace: NAMESPACE },
      });
      await eventually('the XR to be enqueued', () =>
        Promise.resolve(count(h.enqueued, `${NAMESPACE}/polled`) >= 1 || undefined),
      );
    } finally {
      await h.pipeline.stop();
    }
  });
});
