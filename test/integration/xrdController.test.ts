import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  composition,
  condition,
  ensureNamespace,
  get,
  installApi,
  mergePatch,
  remove,
  startEngine,
  testApi,
  xrd,
  type RunningEngine,
  type TestApi,
  type XrObject,
} from './engine.js';

const XRD_TYPE = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'CompositeResourceDefinition' };
const NAMESPACE = 'xrd-controller';

function xrdRef(api: TestApi): { apiVersion: string; kind: string; metadata: { name: string } } {
  return { ...XRD_TYPE, metadata: { name: `${api.plural}.${api.group}` } };
}

describe('XRD controller', function () {
  this.timeout(120_000);
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

  it('reports an invalid XRD as Established False with the reason, and an event', async () => {
    const api = testApi('invalid.compositor.test', 'XBroken');
    const broken = xrd(api) as KubeObject & { spec: { versions: { referenceable: boolean }[] } };
    broken.spec.versions = broken.spec.versions.map((v) => ({ ...v, referenceable: false }));
    await apply(client, broken);
    const established = await eventually('Established False', async () => {
      const stored = await get<XrObject>(client, xrdRef(api));
      const found = condition(stored, 'Established');
      return found?.status === 'False' ? found : undefined;
    });
    expect(established.message).to.include('exactly one version must be referenceable, found 0');
    const list = await client.request<{ items: { reason: string; regarding: { name: string } }[] }>(
      'GET',
      '/apis/events.k8s.io/v1/namespaces/default/events',
    );
    expect(list.items.some((e) => e.reason === 'RenderCRD' && e.regarding.name === xrdRef(api).metadata.name)).to.equal(
      true,
    );
    expect(running.engine.definitions.controllers()).to.not.include(api.controller);
    await remove(client, xrdRef(api));
  });

  for (const scope of ['Namespaced', 'Cluster', 'LegacyCluster'] as const) {
    it(`runs a ${scope} XRD: CRD with the status fields, composes, then stops and cleans up on deletion`, async () => {
      const api = testApi(`${scope.toLowerCase()}.compositor.test`, `X${scope}`, scope);
      await installApi(client, api);
      const crd = await get<
        KubeObject & {
          spec: {
            scope: string;
            versions: {
              schema: { openAPIV3Schema: { properties: { status: { properties: Record<string, unknown> } } } };
            }[];
          };
        }
      >(client, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `${api.plural}.${api.group}` },
      });
      expect(crd?.spec.scope).to.equal(scope === 'Namespaced' ? 'Namespaced' : 'Cluster');
      const statusFields = Object.keys(
        crd?.spec.versions[0]?.schema.openAPIV3Schema.properties.status.properties ?? {},
      );
      expect(statusFields).to.include.members(['lastHandledReconcileAt', 'effectivePollInterval', 'conditions']);
      expect(running.engine.definitions.controllers()).to.include(api.controller);

      const machinery =
        scope === 'LegacyCluster'
          ? { compositionRef: { name: api.plural } }
          : { crossplane: { compositionRef: { name: api.plural } } };
      const instance: XrObject = {
        apiVersion: api.apiVersion,
        kind: api.kind,
        metadata: { name: `one-${scope.toLowerCase()}`, ...(scope === 'Namespaced' ? { namespace: NAMESPACE } : {}) },
        spec: { image: 'nginx:1.27', ...machinery } as unknown as XrObject['spec'],
      };
      await apply(client, instance);
      await eventually(`${scope} XR Ready`, async () =>
        condition(await get<XrObject>(client, instance), 'Ready')?.status === 'True' ? true : undefined,
      );

      // Deleting the XRD deletes its XRs (their composed resources go with them), stops the controller and its
      // informers, and deletes the CRD.
      await remove(client, xrdRef(api));
      await eventually(
        'XRD, CRD and controller gone',
        async () => {
          const gone =
            (await get(client, xrdRef(api))) === undefined &&
            (await get(client, {
              apiVersion: 'apiextensions.k8s.io/v1',
              kind: 'CustomResourceDefinition',
              metadata: { name: `${api.plural}.${api.group}` },
            })) === undefined &&
            !running.engine.definitions.controllers().includes(api.controller);
          return gone ? true : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(running.engine.informers.watched()).to.not.include(`${api.apiVersion}/${api.kind}`);
    });
  }

  it('restarts the composite controller when the XRD changes, keeping the XRs composed', async () => {
    const api = testApi('changing.compositor.test', 'XChanging');
    await installApi(client, api);
    const instance: XrObject = {
      apiVersion: api.apiVersion,
      kind: api.kind,
      metadata: { name: 'survivor', namespace: NAMESPACE },
      spec: { image: 'nginx:1.27', crossplane: { compositionRef: { name: api.plural } } } as XrObject['spec'],
    };
    await apply(client, instance);
    await eventually('Ready', async () =>
      condition(await get<XrObject>(client, instance), 'Ready')?.status === 'True' ? true : undefined,
    );
    // A second Composition becomes the XRD's enforced one: the restarted controller must pick it up.
    await apply(client, composition(api, 'enforced'));
    await mergePatch(client, xrdRef(api), { spec: { defaultCompositionRef: { name: 'enforced' } } });
    await eventually('XRD Established at the new generation', async () => {
      const stored = await get<XrObject>(client, xrdRef(api));
      const established = condition(stored, 'Established') as
        { status: string; observedGeneration?: number } | undefined;
      return established?.status === 'True' && established.observedGeneration === stored?.metadata.generation
        ? true
        : undefined;
    });
    await mergePatch(client, instance, { spec: { image: 'nginx:1.28' } });
    await eventually('the XR still composes after the restart', async () => {
      const stored = await get<XrObject>(client, instance);
      return stored?.status?.image === 'nginx:1.28' ? true : undefined;
    });
  });
});
