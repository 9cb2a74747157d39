import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  condition,
  ensureNamespace,
  eventsFor,
  get,
  installApi,
  mergePatch,
  remove,
  startEngine,
  testApi,
  xrd,
  type EventObject,
  type RunningEngine,
  type TestApi,
  type XrObject,
} from './engine.js';

// XRDs whose rendered CRD the real API server refuses: reported as Crossplane reports them (a Warning event in its
// words), plus the condition compositor sets, while the stored CRD and the running controllers keep serving the last
// good generation until the XRD is fixed.

const NAMESPACE = 'xrd-refused';
const CRDS = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
const XRD_TYPE = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'CompositeResourceDefinition' };

type Schema = { type?: string; default?: unknown; properties?: Record<string, Schema> };
type XrdObject = XrObject & { spec: { versions: { schema: { openAPIV3Schema: Schema } }[] } };
type CrdObject = KubeObject & { spec: { versions: { schema: { openAPIV3Schema: Schema } }[] } };
type ConditionSeen = { status: string; reason: string; message?: string; observedGeneration?: number };

function xrdRef(name: string): { apiVersion: string; kind: string; metadata: { name: string } } {
  return { ...XRD_TYPE, metadata: { name } };
}

/** The XRD of `api` with extra properties under the spec of its schema. */
function xrdWithSpec(api: TestApi, extra: Record<string, Schema>): KubeObject {
  const definition = xrd(api) as XrdObject;
  for (const version of definition.spec.versions) {
    const spec = version.schema.openAPIV3Schema.properties?.spec;
    if (spec) spec.properties = { ...spec.properties, ...extra };
  }
  return definition;
}

/** The spec properties of the stored CRD's first version. */
async function crdSpecProps(client: KubeClient, name: string): Promise<Record<string, Schema> | undefined> {
  const crd = await get<CrdObject>(client, { ...CRDS, metadata: { name } });
  return crd?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.properties;
}

/** Polls until the XRD's condition of `type` matches, then returns it with the XRD's generation. */
async function conditionOf(
  client: KubeClient,
  name: string,
  type: string,
  want: (c: ConditionSeen, generation: number | undefined) => boolean,
): Promise<{ condition: ConditionSeen; generation: number | undefined }> {
  let seen: unknown;
  return eventually(
    `${type} on XRD ${name}`,
    async () => {
      const stored = await get<XrObject>(client, xrdRef(name));
      const found = condition(stored, type) as ConditionSeen | undefined;
      seen = { generation: stored?.metadata.generation, conditions: stored?.status?.conditions };
      return found && want(found, stored?.metadata.generation)
        ? { condition: found, generation: stored?.metadata.generation }
        : undefined;
    },
    { timeoutMs: 30_000 },
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}; XRD seen: ${JSON.stringify(seen)}`);
  });
}

/** The Warning events of `reason` about the XRD (Events about cluster-scoped objects live in default). */
async function warnings(client: KubeClient, name: string, reason: string): Promise<EventObject[]> {
  const stored = await get<XrObject>(client, xrdRef(name));
  if (!stored?.metadata.uid) return [];
  const events = await eventsFor(client, 'default', stored.metadata.uid, reason);
  return events.filter((e) => e.type === 'Warning');
}

describe('XRDs whose CRD the API server refuses', function () {
  this.timeout(180_000);
  let running: RunningEngine;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NAMESPACE);
    running = await startEngine();
  });

  after(async () => {
    await running.stop();
  });

  it('reports a new XRD with `type: integr` as Established False with the API server message, and a Warning', async () => {
    const api = testApi('integr.refused.compositor.test', 'XInteger');
    const name = `${api.plural}.${api.group}`;
    await apply(client, xrdWithSpec(api, { size: { type: 'integr' } }));
    const { condition: established, generation } = await conditionOf(
      client,
      name,
      'Established',
      (c) => c.status === 'False',
    );
    expect(established.reason).to.equal('CRDNotApplied');
    expect(established.observedGeneration).to.equal(generation);
    expect(established.message).to.match(
      /^cannot apply rendered composite resource CustomResourceDefinition: cannot create object: CustomResourceDefinition\.apiextensions\.k8s\.io ".+" is invalid: .*Unsupported value: "integr"/,
    );
    const events = await eventually('a Warning EstablishComposite event', async () => {
      const found = await warnings(client, name, 'EstablishComposite');
      return found.length > 0 ? found : undefined;
    });
    expect(events.map((e) => e.note)).to.deep.equal([established.message]);
    expect(await get(client, { ...CRDS, metadata: { name } })).to.equal(undefined);
    expect(running.engine.definitions.controllers()).to.not.include(api.controller);
    await remove(client, xrdRef(name));
    await eventually('the XRD gone', async () => ((await get(client, xrdRef(name))) === undefined ? true : undefined));
  });

  it('keeps an Established XRD serving its last good schema when an edit is refused, and recovers when fixed', async () => {
    const api = testApi('edit.refused.compositor.test', 'XEdited');
    const name = `${api.plural}.${api.group}`;
    await installApi(client, api);
    const instance: XrObject = {
      apiVersion: api.apiVersion,
      kind: api.kind,
      metadata: { name: 'kept', namespace: NAMESPACE },
      spec: { image: 'nginx:1.27', crossplane: { compositionRef: { name: api.plural } } } as XrObject['spec'],
    };
    await apply(client, instance);
    await eventually('the XR Ready', async () =>
      condition(await get<XrObject>(client, instance), 'Ready')?.status === 'True' ? true : undefined,
    );
    const goodProps = Object.keys((await crdSpecProps(client, name)) ?? {}).sort();

    // A string field with an integer default: the API server refuses the CRD rendered from it.
    await apply(client, xrdWithSpec(api, { size: { type: 'string', default: 5 } }));
    const broken = await conditionOf(
      client,
      name,
      'Established',
      (c, generation) => c.status === 'False' && c.observedGeneration === generation,
    );
    expect(broken.condition.reason).to.equal('CRDNotApplied');
    expect(broken.condition.message).to.match(
      /^cannot apply rendered composite resource CustomResourceDefinition: cannot update object: CustomResourceDefinition\.apiextensions\.k8s\.io ".+" is invalid: .*default/,
    );
    await eventually('a Warning EstablishComposite event for the edit', async () => {
      const found = await warnings(client, name, 'EstablishComposite');
      return found.some((e) => e.note === broken.condition.message) ? true : undefined;
    });
    expect(Object.keys((await crdSpecProps(client, name)) ?? {}).sort(), 'the CRD keeps its schema').to.deep.equal(
      goodProps,
    );
    expect(running.engine.definitions.controllers()).to.include(api.controller);

    // The composite controller keeps reconciling on the last good generation: a change to the XR is composed.
    await mergePatch(client, instance, { spec: { image: 'nginx:1.28' } });
    let seenImage: string | undefined;
    await eventually(
      'the XR change composed while the XRD is refused',
      async () => {
        seenImage = (await get<XrObject>(client, instance))?.status?.image;
        return seenImage === 'nginx:1.28' ? true : undefined;
      },
      { timeoutMs: 30_000 },
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; status.image seen: ${String(seenImage)}`);
    });

    // Fixed: Established again for the new generation, and the CRD carries the new field.
    await apply(client, xrdWithSpec(api, { size: { type: 'string', default: 'small' } }));
    const fixed = await conditionOf(
      client,
      name,
      'Established',
      (c, generation) => c.status === 'True' && c.observedGeneration === generation,
    );
    expect(fixed.condition.reason).to.equal('WatchingCompositeResource');
    expect(fixed.generation).to.be.greaterThan(broken.generation ?? 0);
    expect((await crdSpecProps(client, name))?.size).to.deep.include({ type: 'string', default: 'small' });
    await mergePatch(client, instance, { spec: { image: 'nginx:1.29' } });
    await eventually('the XR composed after the fix', async () =>
      (await get<XrObject>(client, instance))?.status?.image === 'nginx:1.29' ? true : undefined,
    );
    await remove(client, xrdRef(name));
    await eventually('the XRD gone', async () => ((await get(client, xrdRef(name))) === undefined ? true : undefined), {
      timeoutMs: 60_000,
    });
  });

  it('reports a claim CRD the API server refuses as Offered False with a Warning OfferClaim, and recovers', async () => {
    const group = 'claim.refused.compositor.test';
    const name = `xqueues.${group}`;
    const legacy = (spec: Record<string, Schema>): KubeObject => ({
      ...XRD_TYPE,
      metadata: { name },
      spec: {
        group,
        names: { kind: 'XQueue', plural: 'xqueues' },
        claimNames: { kind: 'Queue', plural: 'queues' },
        versions: [
          {
            name: 'v1',
            served: true,
            referenceable: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } },
          },
        ],
      },
    });
    // The XR CRD replaces a user's spec.resourceRefs with its own, as Crossplane's does; the claim CRD has no such
    // field and keeps the user's, so only the claim CRD is refused.
    await apply(client, legacy({ resourceRefs: { type: 'integr' } }));
    const refused = await conditionOf(
      client,
      name,
      'Offered',
      (c) => c.status === 'False' && c.reason === 'CRDNotApplied',
    );
    expect(refused.condition.message).to.match(
      /^cannot apply rendered composite resource claim CustomResourceDefinition: cannot create object: CustomResourceDefinition\.apiextensions\.k8s\.io "queues\.claim\.refused\.compositor\.test" is invalid: .*Unsupported value: "integr"/,
    );
    expect(refused.condition.observedGeneration).to.equal(refused.generation);
    const { condition: established } = await conditionOf(client, name, 'Established', (c) => c.status === 'True');
    expect(established.observedGeneration).to.equal(refused.generation);
    await eventually('a Warning OfferClaim event', async () => {
      const found = await warnings(client, name, 'OfferClaim');
      return found.some((e) => e.note === refused.condition.message) ? true : undefined;
    });
    expect(await get(client, { ...CRDS, metadata: { name: `queues.${group}` } })).to.equal(undefined);

    await apply(client, legacy({ size: { type: 'string' } }));
    const offered = await conditionOf(
      client,
      name,
      'Offered',
      (c, generation) => c.status === 'True' && c.observedGeneration === generation,
    );
    expect(offered.condition.reason).to.equal('WatchingCompositeResourceClaim');
    expect(await get(client, { ...CRDS, metadata: { name: `queues.${group}` } })).to.not.equal(undefined);
    await remove(client, xrdRef(name));
    await eventually('the XRD gone', async () => ((await get(client, xrdRef(name))) === undefined ? true : undefined), {
      timeoutMs: 60_000,
    });
  });
});
