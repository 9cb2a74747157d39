import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { startFunction, type FunctionProcess } from '../functions/process.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  functions,
  installFunctionApi,
  PT_FUNCTION,
  remove,
  startEngine,
  testApi,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// EnvironmentConfigs end to end: compositor installs their CRD; a function in the role of function-environment-configs
// requires real EnvironmentConfigs (one by name, others by labels) and puts their merged data into the pipeline's
// environment; patch-and-transform's FromEnvironmentFieldPath patches copy it into a composed ConfigMap. Changing an
// EnvironmentConfig reaches the ConfigMap through the watch on required resources.
describe('EnvironmentConfigs as required resources', function () {
  this.timeout(120_000);
  const api = testApi('envcfg.compositor.test', 'XEnvReader');
  let running: RunningEngine;
  let client: KubeClient;
  let fn: FunctionProcess;
  const environmentConfig = (
    name: string,
    data: Record<string, unknown>,
    labels?: Record<string, string>,
  ): KubeObject => ({
    apiVersion: 'apiextensions.crossplane.io/v1beta1',
    kind: 'EnvironmentConfig',
    metadata: { name, ...(labels ? { labels } : {}) },
    data,
  });
  const reader: XrObject = {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name: 'env-reader', namespace: 'default' },
    spec: {},
  };

  before(async () => {
    client = controlPlane().client();
    fn = await startFunction();
    running = await startEngine({ functionInsecure: true });
    for (const f of functions()) await apply(client, f);
    await installFunctionApi(client, api, {
      fn: { name: 'environment-probe', endpoint: fn.endpoint },
      pipeline: [
        {
          step: 'environment-configs',
          functionRef: { name: 'environment-probe' },
          input: {
            apiVersion: 'probe.fn.compositor.test/v1',
            kind: 'Input',
            environment: { names: ['env-base'], matchLabels: { 'envcfg.compositor.test/selected': 'true' } },
            ttlSeconds: 600,
          },
        },
        {
          step: 'patch-and-transform',
          functionRef: { name: PT_FUNCTION },
          input: {
            apiVersion: 'pt.fn.crossplane.io/v1beta1',
            kind: 'Resources',
            resources: [
              {
                name: 'settings',
                base: { apiVersion: 'v1', kind: 'ConfigMap', data: {} },
                patches: [
                  { type: 'FromEnvironmentFieldPath', fromFieldPath: 'region', toFieldPath: 'data.region' },
                  { type: 'FromEnvironmentFieldPath', fromFieldPath: 'tier', toFieldPath: 'data.tier' },
                ],
              },
            ],
          },
        },
      ],
    });
    await apply(client, environmentConfig('env-base', { region: 'eu-north-1', tier: 'base' }));
    await apply(
      client,
      environmentConfig('env-override', { tier: 'selected' }, { 'envcfg.compositor.test/selected': 'true' }),
    );
  });

  after(async () => {
    await remove(client, reader);
    await running.stop();
    await fn.stop();
    for (const name of ['env-base', 'env-override']) await remove(client, environmentConfig(name, {}));
  });

  const composedData = async (): Promise<Record<string, string> | undefined> => {
    const list = await client.request<{ items: (KubeObject & { data?: Record<string, string> })[] }>(
      'GET',
      '/api/v1/namespaces/default/configmaps',
      { query: { labelSelector: `crossplane.io/composite=${reader.metadata.name}` } },
    );
    return list.items[0]?.data;
  };

  it('composes from the merged data of the EnvironmentConfigs a function selected', async () => {
    await eventually('XRD Established and the XR created', () => apply(client, reader));
    await eventually('the ConfigMap carries the environment', async () => {
      const data = await composedData();
      return data?.region === 'eu-north-1' && data.tier === 'selected' ? true : undefined;
    });
  });

  it('follows a change to a selected EnvironmentConfig within seconds', async () => {
    await apply(client, environmentConfig('env-base', { region: 'us-east-2', tier: 'base' }));
    await eventually(
      'the ConfigMap carries the new region',
      async () => ((await composedData())?.region === 'us-east-2' ? true : undefined),
      { timeoutMs: 10_000 },
    );
  });
});
