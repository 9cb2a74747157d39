import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import { apply, get, mergePatch, remove, startEngine, type RunningEngine } from './engine.js';

// The XRD controller's finalizers and CRD writes against the real API server, as Crossplane's definition and
// offered controllers behave: defined.apiextensions.crossplane.io on every XRD, offered.apiextensions.crossplane.io
// on one that offers claims, both gone once the XRD is deleted and cleaned up; and no CRD write at rest.

const GROUP = 'finalizers.compositor.test';
const XRD_API = 'apiextensions.crossplane.io/v1';
const CRD_API = 'apiextensions.k8s.io/v1';
const DEFINED = 'defined.apiextensions.crossplane.io';
const OFFERED = 'offered.apiextensions.crossplane.io';
const CONTROLLER = 'defined/compositeresourcedefinition.apiextensions.crossplane.io';

type Stored = KubeObject & {
  metadata: KubeObject['metadata'] & { finalizers?: string[]; resourceVersion?: string; managedFields?: unknown[] };
  status?: { conditions?: { type: string; status: string }[] };
};

function definition(claims: boolean): KubeObject {
  const kind = claims ? 'XBucket' : 'XQueue';
  return {
    apiVersion: claims ? XRD_API : 'apiextensions.crossplane.io/v2',
    kind: 'CompositeResourceDefinition',
    metadata: { name: `${kind.toLowerCase()}s.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind, plural: `${kind.toLowerCase()}s` },
      ...(claims ? { claimNames: { kind: 'Bucket', plural: 'buckets' } } : { scope: 'Namespaced' }),
      versions: [
        {
          name: 'v1',
          served: true,
          referenceable: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { size: { type: 'string' } } } },
            },
          },
        },
      ],
    },
  };
}

const ref = (name: string, apiVersion = XRD_API, kind = 'CompositeResourceDefinition'): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name },
});
const crd = (name: string): KubeObject => ref(name, CRD_API, 'CustomResourceDefinition');

function isTrue(stored: Stored | undefined, type: string): boolean {
  return stored?.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

describe('XRD controller: finalizers and CRD writes', function () {
  this.timeout(120_000);
  let running: RunningEngine;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    running = await startEngine();
  });

  after(async () => {
    await running.stop();
  });

  it('puts both finalizers on an XRD that offers claims, and removes them once it is deleted and cleaned up', async () => {
    const xrd = definition(true);
    await apply(client, xrd);
    const established = await eventually('Established and Offered', async () => {
      const stored = await get<Stored>(client, ref(xrd.metadata.name));
      return isTrue(stored, 'Established') && isTrue(stored, 'Offered') ? stored : undefined;
    });
    expect(established.metadata.finalizers).to.have.members([DEFINED, OFFERED]);

    await remove(client, ref(xrd.metadata.name));
    await eventually(
      'XRD, XR CRD and claim CRD gone',
      async () =>
        (await get(client, ref(xrd.metadata.name))) === undefined &&
        (await get(client, crd(xrd.metadata.name))) === undefined &&
        (await get(client, crd(`buckets.${GROUP}`))) === undefined
          ? true
          : undefined,
      { timeoutMs: 60_000 },
    );
  });

  it('puts only the defined finalizer on an XRD without claims', async () => {
    const xrd = definition(false);
    await apply(client, xrd);
    const established = await eventually('Established', async () => {
      const stored = await get<Stored>(client, ref(xrd.metadata.name));
      return isTrue(stored, 'Established') ? stored : undefined;
    });
    expect(established.metadata.finalizers).to.deep.equal([DEFINED]);
  });

  it('writes nothing when it reconciles an XRD whose CRDs are already as rendered', async () => {
    const xrd = definition(true);
    await apply(client, xrd);
    await eventually('Offered', async () =>
      isTrue(await get<Stored>(client, ref(xrd.metadata.name)), 'Offered') ? true : undefined,
    );
    // Events are written in the background: wait until the first reconciles' writes have all landed, so that only
    // what the next reconcile writes is counted.
    let seen = -1;
    await eventually(
      'the engine to stop writing',
      () => {
        const writes = running.writeLog().length;
        const settled = writes === seen;
        seen = writes;
        return Promise.resolve(settled ? true : undefined);
      },
      { intervalMs: 250 },
    );
    const before = {
      xr: await get<Stored>(client, crd(xrd.metadata.name)),
      claim: await get<Stored>(client, crd(`buckets.${GROUP}`)),
      writes: running.writeLog().length,
      reconciles: await running.reconciles(CONTROLLER),
    };
    // A label on the XRD is not rendered into anything spec-wise, but does change the CRD labels: use an
    // annotation instead, which triggers a reconcile and changes nothing the CRDs carry.
    await mergePatch(client, ref(xrd.metadata.name), { metadata: { annotations: { 'test/poke': 'yes' } } });
    await eventually('the XRD reconciled again', async () =>
      (await running.reconciles(CONTROLLER)) > before.reconciles ? true : undefined,
    );
    const after = {
      xr: await get<Stored>(client, crd(xrd.metadata.name)),
      claim: await get<Stored>(client, crd(`buckets.${GROUP}`)),
    };
    // Only writes about this XRD count: its own, its two CRDs' and Events about either (whose names start with the
    // object's). Anything else the engine wrote meanwhile is another controller's, and shown if this fails.
    const written = running.writeLog().slice(before.writes);
    const names = [xrd.metadata.name, `buckets.${GROUP}`];
    const aboutThisXrd = written.filter((w) => names.some((n) => w.includes(`/${n}`) || w.includes(`(${n}`)));
    expect(aboutThisXrd, `engine writes while reconciling an unchanged XRD; all its writes: ${written.join(', ')}`).to
      .be.empty;
    expect(after.xr?.metadata.resourceVersion).to.equal(before.xr?.metadata.resourceVersion);
    expect(after.claim?.metadata.resourceVersion).to.equal(before.claim?.metadata.resourceVersion);
    expect(after.xr?.metadata.managedFields).to.deep.equal(before.xr?.metadata.managedFields);
  });
});
