import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { startFunction, type FunctionProcess } from '../functions/process.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  get,
  installFunctionApi,
  PROBE_STATUS,
  remove,
  startEngine,
  testApi,
  type RunningEngine,
  type XrObject,
} from './engine.js';

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
    await installFunctionApi(client, api, {
      status: PROBE_STATUS,
      fn: { name: 'bootstrap-probe', endpoint: fn.endpoint },
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
