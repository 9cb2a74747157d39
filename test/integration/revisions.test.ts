import { expect } from 'chai';
import pino from 'pino';
import { loadCrds } from '../../src/apis/index.js';
import { CONTENT_TYPE, Discovery, ensureCrds, isNotFound, type KubeClient } from '../../src/kube/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import { InformerRegistry } from '../../src/watch/index.js';
// Imported from the files themselves until src/definition/index.ts exports them (owned by another change in flight).
import { compositionHash } from '../../src/definition/revisionHash.js';
import {
  COMPOSITION_HASH_LABEL,
  COMPOSITION_NAME_LABEL,
  CompositionRevisionController,
  type Composition,
  type CompositionRevision,
} from '../../src/definition/revisions.js';
import { controlPlane, eventually } from './harness.js';
import { reconcileLimits } from '../../src/base/index.js';
import { ReconcileLimiter } from '../../src/queue/index.js';

const GROUP_PATH = '/apis/apiextensions.crossplane.io/v1';
const COMPOSITIONS = `${GROUP_PATH}/compositions`;
const REVISIONS = `${GROUP_PATH}/compositionrevisions`;

function compositionBody(name: string, step: string): Composition {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name, labels: { channel: 'dev' }, annotations: { owner: 'platform' } },
    spec: {
      compositeTypeRef: { apiVersion: 'revisions.example.org/v1', kind: 'XThing' },
      mode: 'Pipeline',
      pipeline: [{ step, functionRef: { name: 'function-patch-and-transform' } }],
    },
  };
}

describe('CompositionRevision controller (integration)', function () {
  this.timeout(60_000);
  let client: KubeClient;
  let registry: InformerRegistry;
  let controller: CompositionRevisionController;

  before(async () => {
    client = controlPlane().client();
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    registry = new InformerRegistry({
      client,
      kubeConfig: controlPlane().kubeConfig,
      discovery: new Discovery(client),
      logger: pino({ level: process.env.REV_LOG ?? 'silent' }),
      syncIntervalMs: 0,
    });
    controller = new CompositionRevisionController({
      client,
      informers: registry,
      metrics: createMetrics({ processMetrics: false }),
      logger: pino({ level: process.env.REV_LOG ?? 'silent' }),
      reconcileLimiter: new ReconcileLimiter(reconcileLimits(10).reconciles),
    });
    await controller.start(new AbortController().signal);
  });

  after(async () => {
    await controller.stop(AbortSignal.timeout(10_000));
    expect(registry.watched()).to.deep.equal([]);
    // The control plane is shared: leave no Compositions behind (the garbage collector removes their revisions).
    for (const name of ['rev-cycle', 'rev-heal', 'rev-taken']) {
      await client.request('DELETE', `${COMPOSITIONS}/${name}`).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  });

  async function revisionsOf(composition: string): Promise<CompositionRevision[]> {
    const list = await client.request<{ items: CompositionRevision[] }>('GET', REVISIONS, {
      query: { labelSelector: `${COMPOSITION_NAME_LABEL}=${composition}` },
    });
    return list.items;
  }

  /** Waits until the Composition has exactly the revisions named, with these numbers. */
  function revisionsSettle(composition: string, want: Record<string, number>): Promise<CompositionRevision[]> {
    return eventually(`revisions of ${composition} to be ${JSON.stringify(want)}`, async () => {
      const revisions = await revisionsOf(composition);
      const got = Object.fromEntries(revisions.map((r) => [r.metadata.name, r.spec.revision]));
      if (JSON.stringify(got, Object.keys(got).sort()) !== JSON.stringify(want, Object.keys(want).sort())) {
        throw new Error(JSON.stringify(got));
      }
      return revisions;
    });
  }

  async function editSpec(composition: Composition, step: string): Promise<Composition> {
    return client.request<Composition>('PATCH', `${COMPOSITIONS}/${composition.metadata.name}`, {
      body: { spec: { pipeline: [{ step, functionRef: { name: 'function-patch-and-transform' } }] } },
      contentType: CONTENT_TYPE.mergePatch,
    });
  }

  it('creates revision 1, then 2 for a new spec, and renumbers the first as 3 when the spec returns', async () => {
    const created = await client.request<Composition>('POST', COMPOSITIONS, {
      body: compositionBody('rev-cycle', 'a'),
    });
    const firstHash = compositionHash(created);
    const first = `rev-cycle-${firstHash.slice(0, 7)}`;
    const [revision] = await revisionsSettle('rev-cycle', { [first]: 1 });
    expect(revision?.metadata.labels).to.deep.equal({
      channel: 'dev',
      [COMPOSITION_NAME_LABEL]: 'rev-cycle',
      [COMPOSITION_HASH_LABEL]: firstHash.slice(0, 63),
    });
    expect(revision?.metadata.annotations).to.deep.equal({ owner: 'platform' });
    expect(revision?.metadata.ownerReferences).to.deep.equal([
      {
        apiVersion: 'apiextensions.crossplane.io/v1',
        kind: 'Composition',
        name: 'rev-cycle',
        uid: created.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(revision?.spec).to.deep.equal({ ...created.spec, revision: 1 });
    await eventually('ValidPipeline on the first revision', async () => {
      const got = await client.request<CompositionRevision>('GET', `${REVISIONS}/${first}`);
      const valid = got.status?.conditions?.find((c) => c.type === 'ValidPipeline');
      return valid?.status === 'True' && valid.reason === 'ValidPipeline' ? valid : undefined;
    });

    const edited = await editSpec(created, 'b');
    const second = `rev-cycle-${compositionHash(edited).slice(0, 7)}`;
    expect(second).to.not.equal(first);
    await revisionsSettle('rev-cycle', { [first]: 1, [second]: 2 });

    await editSpec(edited, 'a');
    await revisionsSettle('rev-cycle', { [first]: 3, [second]: 2 });
  });

  it('recreates a deleted revision and restores a stripped controller reference', async () => {
    const created = await client.request<Composition>('POST', COMPOSITIONS, { body: compositionBody('rev-heal', 'a') });
    const name = `rev-heal-${compositionHash(created).slice(0, 7)}`;
    const [original] = await revisionsSettle('rev-heal', { [name]: 1 });

    await client.request('DELETE', `${REVISIONS}/${name}`);
    const [recreated] = await eventually('the deleted revision to be recreated', async () => {
      const revisions = await revisionsOf('rev-heal');
      const uid = revisions[0]?.metadata.uid;
      return uid !== undefined && uid !== original?.metadata.uid ? revisions : undefined;
    });
    expect(recreated?.metadata.name).to.equal(name);
    expect(recreated?.spec.revision).to.equal(1);

    // A backup restore loses owner references, since the owner's UID changes.
    await client.request('PATCH', `${REVISIONS}/${name}`, {
      body: { metadata: { ownerReferences: null } },
      contentType: CONTENT_TYPE.mergePatch,
    });
    await eventually('the controller reference to be restored', async () => {
      const got = await client.request<CompositionRevision>('GET', `${REVISIONS}/${name}`);
      return got.metadata.ownerReferences?.some((o) => o.controller === true && o.uid === created.metadata.uid)
        ? got
        : undefined;
    });
    await revisionsSettle('rev-heal', { [name]: 1 });
  });

  it('adopts a revision that already holds its name instead of failing on AlreadyExists', async () => {
    const body = compositionBody('rev-taken', 'a');
    const hash = compositionHash(body);
    const name = `rev-taken-${hash.slice(0, 7)}`;
    // Unlabelled by Composition name, so the controller's cache lookup misses it and its create collides.
    await client.request('POST', REVISIONS, {
      body: {
        apiVersion: 'apiextensions.crossplane.io/v1',
        kind: 'CompositionRevision',
        metadata: { name, labels: { [COMPOSITION_HASH_LABEL]: hash.slice(0, 63) } },
        spec: { ...body.spec, revision: 1 },
      },
    });
    const created = await client.request<Composition>('POST', COMPOSITIONS, { body });
    expect(compositionHash(created), 'the API server changed the Composition').to.equal(hash);
    const [adopted] = await revisionsSettle('rev-taken', { [name]: 1 });
    expect(adopted?.metadata.ownerReferences?.[0]?.uid).to.equal(created.metadata.uid);
    await eventually('ValidPipeline on the adopted revision', async () => {
      const got = await client.request<CompositionRevision>('GET', `${REVISIONS}/${name}`);
      return got.status?.conditions?.some((c) => c.type === 'ValidPipeline' && c.status === 'True') ? got : undefined;
    });
  });
});
