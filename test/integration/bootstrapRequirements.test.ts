import { ENDPOINT_ANNOTATION } from '../../src/functions/index.js';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { startFunction, type FunctionProcess } from '../functions/process.js';
import { controlPlane, eventually } from './harness.js';
import { apply, get, remove, startEngine, testApi, xrd, type RunningEngine, type XrObject } from './engine.js';

// Bootstrap requirements (Crossplane v2.2): a Composition step's `requirements` are fetched and sent on the step's
// first call. The probe never asks for the ConfigMap itself, so the loop calls it once: what it reports arrived with
// the first request. A namespaced kind without a namespace is looked up in the XR's namespace, and it is watched.
describe('bootstrap requirements', function () {
  this.timeout(120_000);
  const api = testApi('bootstrap.compositor.test', 'XBootstrapped');
  let running: RunningEngine;
  let client: KubeClient;
  let fn: FunctionProcess;
  const settings = (value: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'bootstrap-settings', namespace: 'default' },
    data: { value },
  });
  const xr: XrObject = {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name: 'bootstrapped', namespace: 'default' },
    spec: {},
  };
  type Reported = XrObject & { status?: { calls?: number; required?: { data?: { value?: string } }[] } };

  before(async () => {
    client = controlPlane().client();
    fn = await startFunction();
    running = await startEngine({ functionInsecure: true });
    const definition = xrd(api) as KubeObject & { spec: { versions: { schema: unknown }[] } };
    const schema = {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          status: {
            type: 'object',
            properties: {
              calls: { type: 'integer' },
              required: {
                type: 'array',
                items: { type: 'object', nullable: true, 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      },
    };
    definition.spec.versions = definition.spec.versions.map((version) => ({ ...version, schema }));
    await apply(client, definition);
    await apply(client, {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: 'bootstrap-probe', annotations: { [ENDPOINT_ANNOTATION]: fn.endpoint } },
      spec: { package: 'example.org/probe:v0.1.0' },
    });
    await apply(client, {
      apiVersion: 'apiextensions.crossplane.io/v1',
      kind: 'Composition',
      metadata: { name: api.plural },
      spec: {
        compositeTypeRef: { apiVersion: api.apiVersion, kind: api.kind },
        mode: 'Pipeline',
        pipeline: [
          {
            step: 'read',
            functionRef: { name: 'bootstrap-probe' },
            requirements: {
              requiredResources: [
                { requirementName: 'settings', apiVersion: 'v1', kind: 'ConfigMap', name: 'bootstrap-settings' },
              ],
            },
            input: { apiVersion: 'probe.fn.compositor.test/v1', kind: 'Input', reportRequired: 'settings' },
          },
        ],
      },
    });
    await apply(client, settings('first'));
  });

  after(async () => {
    await remove(client, xr);
    await running.stop();
    await fn.stop();
    await remove(client, settings(''));
  });

  const seen = async (): Promise<string | undefined> =>
    (await get<Reported>(client, xr))?.status?.required?.[0]?.data?.value;

  it('sends the declared resources on the first call', async () => {
    await eventually('XRD Established and the XR created', () => apply(client, xr));
    await eventually('the XR sees value "first"', async () => ((await seen()) === 'first' ? true : undefined));
  });

  it('watches a bootstrapped resource: a change reaches the XR within seconds', async () => {
    await apply(client, settings('second'));
    await eventually('the XR sees value "second"', async () => ((await seen()) === 'second' ? true : undefined), {
      timeoutMs: 10_000,
    });
  });
});
