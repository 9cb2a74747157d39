import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import {
  NOP_API_VERSION,
  NOP_KIND,
  NopExternalSystem,
  PROVIDER_NOP_API_VERSION,
  type NopResource,
} from '../../src/managed/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  AUTO_READY_FUNCTION,
  condition,
  ensureNamespace,
  functions,
  get,
  PT_FUNCTION,
  remove,
  startEngine,
  testApi,
  xrd,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// The composition engine and the nop provider together (compositor start --enable-nop-provider): an XR composing
// two NopResources becomes Ready only when both are; a legacy cluster-scoped XR composing provider-nop's
// nop.crossplane.io NopResource, as Crossplane's e2e-legacy-composition scenario does, becomes Ready with it.

const NAMESPACE = 'managed-composition';

function nopComposition(api: ReturnType<typeof testApi>): KubeObject {
  const nop = (readyAfter: string): Record<string, unknown> => ({
    apiVersion: NOP_API_VERSION,
    kind: NOP_KIND,
    spec: { forProvider: { conditionAfter: [{ time: readyAfter, conditionType: 'Ready', conditionStatus: 'True' }] } },
  });
  const image = {
    type: 'FromCompositeFieldPath',
    fromFieldPath: 'spec.image',
    toFieldPath: 'spec.forProvider.fields.image',
  };
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: api.plural },
    spec: {
      compositeTypeRef: { apiVersion: api.apiVersion, kind: api.kind },
      mode: 'Pipeline',
      pipeline: [
        {
          step: 'patch-and-transform',
          functionRef: { name: PT_FUNCTION },
          input: {
            apiVersion: 'pt.fn.crossplane.io/v1beta1',
            kind: 'Resources',
            resources: [
              { name: 'first', base: nop('3s'), patches: [image] },
              { name: 'second', base: nop('6s'), patches: [image] },
            ],
          },
        },
        { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
      ],
    },
  };
}

/**
 * As upstream's composition-nested.yaml: one nop.crossplane.io NopResource, Ready False at once and Ready True after
 * 1s, then function-auto-ready.
 */
function providerNopComposition(api: ReturnType<typeof testApi>): KubeObject {
  const conditionAfter = [
    { conditionType: 'Ready', conditionStatus: 'False', time: '0s' },
    { conditionType: 'Ready', conditionStatus: 'True', time: '1s' },
  ];
  const base = { apiVersion: PROVIDER_NOP_API_VERSION, kind: NOP_KIND, spec: { forProvider: { conditionAfter } } };
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: api.plural },
    spec: {
      compositeTypeRef: { apiVersion: api.apiVersion, kind: api.kind },
      mode: 'Pipeline',
      pipeline: [
        {
          step: 'patch-and-transform',
          functionRef: { name: PT_FUNCTION },
          input: {
            apiVersion: 'pt.fn.crossplane.io/v1beta1',
            kind: 'Resources',
            resources: [{ name: 'nop-resource-1', base }],
          },
        },
        { step: 'detect-readiness', functionRef: { name: AUTO_READY_FUNCTION } },
      ],
    },
  };
}

type LegacyXr = XrObject & { spec?: { resourceRefs?: { apiVersion: string; kind: string; name: string }[] } };

/** What the test saw of the XR and its NopResources, polled together: when each first became Ready. */
class Seen {
  readonly readyAt = new Map<string, number>();
  readonly unreadyMessages = new Set<string>();
  composed: NopResource[] = [];

  /** One look; the time the XR was first seen Ready, or undefined. */
  async look(client: KubeClient, xr: XrObject): Promise<number | undefined> {
    // The XR first: if it is Ready, its composed resources must already be when they are read next.
    const stored = await get<XrObject>(client, xr);
    this.composed = await composedOf(client, stored);
    const now = Date.now();
    for (const mr of this.composed) {
      if (isReady(mr) && !this.readyAt.has(mr.metadata.name)) this.readyAt.set(mr.metadata.name, now);
    }
    const xrReady = condition(stored, 'Ready');
    if (xrReady?.status === 'False' && xrReady.message) this.unreadyMessages.add(xrReady.message);
    if (xrReady?.status !== 'True') return undefined;
    expect(this.readyAt.size, 'composed NopResources Ready when the XR is').to.equal(2);
    return now;
  }
}

async function composedOf(client: KubeClient, xr: XrObject | undefined): Promise<NopResource[]> {
  const refs = xr?.spec?.crossplane?.resourceRefs ?? [];
  const found = await Promise.all(
    refs.map((ref) => get<NopResource>(client, { ...ref, metadata: { name: ref.name, namespace: NAMESPACE } })),
  );
  return found.filter((mr): mr is NopResource => mr !== undefined);
}

function isReady(mr: NopResource): boolean {
  return mr.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
}

describe('managed resources in a composition (integration)', function () {
  this.timeout(180_000);
  const api = testApi('nopcomposition.compositor.test', 'XNopApp');
  const legacy = testApi('nopcomposition.compositor.test', 'XLegacyNop', 'LegacyCluster');
  let running: RunningEngine;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NAMESPACE);
    running = await startEngine({ enableNopProvider: true });
    for (const fn of functions()) await apply(client, fn);
    for (const [definition, comp] of [
      [api, nopComposition(api)],
      [legacy, providerNopComposition(legacy)],
    ] as const) {
      await apply(client, xrd(definition));
      await apply(client, comp);
      await eventually(`XRD ${definition.plural}.${definition.group} Established`, async () => {
        const stored = await get<XrObject>(client, xrd(definition));
        return condition(stored, 'Established')?.status === 'True' ? true : undefined;
      });
    }
  });

  after(async () => {
    await running.stop();
  });

  it('becomes Ready only once both composed NopResources are Ready', async () => {
    const xr: XrObject = {
      apiVersion: api.apiVersion,
      kind: api.kind,
      metadata: { name: 'two-nops', namespace: NAMESPACE },
      spec: { image: 'nginx:1.27' } as XrObject['spec'],
    };
    const createdAt = Date.now();
    await apply(client, xr);
    const seen = new Seen();
    const xrReadyAt = await eventually('the XR Ready', () => seen.look(client, xr), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    const { readyAt, composed, unreadyMessages } = seen;
    process.stderr.write(
      `      XR Ready after ${xrReadyAt - createdAt} ms; NopResources after ${[...readyAt.values()].map((t) => t - createdAt).join(', ')} ms\n`,
    );
    expect(composed).to.have.length(2);
    expect(xrReadyAt - createdAt).to.be.at.least(5_000);
    expect(xrReadyAt).to.be.at.least(Math.max(...readyAt.values()));
    expect([...unreadyMessages].some((m) => m.startsWith('Unready resources:'))).to.equal(true);
    const fields = composed.map((mr) => (mr.status?.atProvider as { fields?: { image?: string } }).fields?.image);
    expect(fields).to.deep.equal(['nginx:1.27', 'nginx:1.27']);
    const system = running.engine.nop?.system;
    for (const mr of composed) {
      expect(system?.get(NopExternalSystem.key(NAMESPACE, mr.metadata.name))).to.not.equal(undefined);
    }

    // Deleting the XR deletes the NopResources, whose external resources go with them.
    await remove(client, xr);
    await eventually(
      'the XR and its NopResources gone',
      async () => ((await get(client, xr)) === undefined ? true : undefined),
      {
        timeoutMs: 60_000,
      },
    );
    for (const mr of composed) {
      expect(await get(client, { ...mr, metadata: { name: mr.metadata.name, namespace: NAMESPACE } })).to.equal(
        undefined,
      );
      expect(system?.get(NopExternalSystem.key(NAMESPACE, mr.metadata.name))).to.equal(undefined);
    }
  });
  it("composes provider-nop's cluster-scoped NopResource from a legacy XR, which is Ready once it is", async () => {
    const xr: XrObject = {
      apiVersion: legacy.apiVersion,
      kind: legacy.kind,
      metadata: { name: 'legacy-nop' },
      spec: {},
    };
    await apply(client, xr);
    let last: unknown;
    let composed: NopResource;
    try {
      composed = await eventually(
        'the legacy XR Ready with its NopResource',
        async () => {
          const stored = await get<LegacyXr>(client, xr);
          // A legacy (v1, cluster-scoped) XR keeps its references at spec.resourceRefs, as upstream's.
          const ref = stored?.spec?.resourceRefs?.[0];
          const mr = ref && (await get<NopResource>(client, { ...ref, metadata: { name: ref.name } }));
          last = { xr: stored?.status?.conditions, mr: mr?.status?.conditions };
          return condition(stored, 'Ready')?.status === 'True' ? mr : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\n  last seen: ${JSON.stringify(last)}`, { cause: err });
    }
    expect(composed.apiVersion).to.equal(PROVIDER_NOP_API_VERSION);
    expect(composed.metadata.namespace, 'cluster-scoped').to.equal(undefined);
    expect(isReady(composed), 'the NopResource Ready when the XR is').to.equal(true);
    const name = composed.metadata.name;
    const system = running.engine.nop?.system;
    expect(system?.get(NopExternalSystem.key(undefined, name))).to.not.equal(undefined);

    await remove(client, xr);
    await eventually(
      'the legacy XR and its NopResource gone',
      async () => {
        const mrRef = { apiVersion: PROVIDER_NOP_API_VERSION, kind: NOP_KIND, metadata: { name } };
        const left = (await get(client, xr)) ?? (await get(client, mrRef));
        return left === undefined ? true : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(system?.get(NopExternalSystem.key(undefined, name))).to.equal(undefined);
  });
});
