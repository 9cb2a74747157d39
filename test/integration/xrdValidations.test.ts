import { expect } from 'chai';
import { ApiError, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import { apply, get, remove, startEngine, testApi, xrd, type RunningEngine, type XrObject } from './engine.js';

// An XRD's root-level x-kubernetes-validations (crossplane#7018) reach the XR CRD compositor renders, and the API
// server enforces them: rules across metadata and spec, which a rule on spec alone cannot express.
describe('XRD root-level x-kubernetes-validations', function () {
  this.timeout(120_000);
  const api = testApi('rootcel.compositor.test', 'XRooted');
  const rules = [
    { rule: "self.metadata.name.startsWith('team-')", message: 'name must start with team-' },
    { rule: '!has(self.spec.image) || self.spec.image != self.metadata.name', message: 'image must not be the name' },
  ];
  let running: RunningEngine;
  let client: KubeClient;
  const xr = (name: string, image: string): XrObject =>
    ({
      apiVersion: api.apiVersion,
      kind: api.kind,
      metadata: { name, namespace: 'default' },
      spec: { image },
    }) as XrObject;

  before(async () => {
    client = controlPlane().client();
    running = await startEngine();
    const definition = xrd(api) as KubeObject & {
      spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] };
    };
    for (const version of definition.spec.versions) version.schema.openAPIV3Schema['x-kubernetes-validations'] = rules;
    await apply(client, definition);
  });

  after(async () => {
    await remove(client, xr('team-a', 'nginx'));
    await remove(client, {
      apiVersion: 'apiextensions.crossplane.io/v2',
      kind: 'CompositeResourceDefinition',
      metadata: { name: `${api.plural}.${api.group}` },
    });
    await running.stop();
  });

  const refusal = async (object: XrObject): Promise<string | undefined> => {
    try {
      await apply(client, object);
      return undefined;
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) return err.message;
      throw err;
    }
  };

  it('copies the rules to the root of the XR CRD schema', async () => {
    const crd = await eventually('the XR CRD', () =>
      get<KubeObject & { spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] } }>(client, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `${api.plural}.${api.group}` },
      }),
    );
    expect(crd.spec.versions[0]?.schema.openAPIV3Schema['x-kubernetes-validations']).to.deep.equal(rules);
  });

  it('the API server refuses XRs that break a rule, with its message, and accepts one that keeps them', async () => {
    await eventually('the XR API to accept a valid XR', () => apply(client, xr('team-a', 'nginx')));
    expect(await refusal(xr('other', 'nginx'))).to.include('name must start with team-');
    expect(await refusal(xr('team-b', 'team-b'))).to.include('image must not be the name');
  });
});
