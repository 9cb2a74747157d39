import { expect } from 'chai';
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

// How many times a new XR calls its gRPC function, counted where compositor calls it (function_run_seconds, below the
// response cache) against a real API server: the probe requires a ConfigMap and composes one. A new XR takes three
// calls in its one reconcile (one to learn the requirement, one with it, the settling pass over what was applied,
// seeded), and nothing more: the echoes of its own writes reconcile nothing. A changed required ConfigMap takes one
// call, seeded. A second XR in the namespace is seeded from the first's requirements: two calls. Each phase is the
// barrier of the one before: a call that one still had coming would be counted.
describe('gRPC calls per new XR', function () {
  this.timeout(120_000);
  const api = testApi('calls.compositor.test', 'XCounted');
  const FUNCTION = 'calls-probe';
  let running: RunningEngine;
  let client: KubeClient;
  let fn: FunctionProcess;
  const settings = (value: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'calls-settings', namespace: 'default' },
    data: { value },
  });
  const xrNamed = (name: string): XrObject => ({
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name, namespace: 'default' },
    spec: {},
  });
  const xr = xrNamed('counted');
  const second = xrNamed('counted-second');
  type Reported = XrObject & { status?: { required?: { data?: { value?: string } }[] } };

  /** Calls compositor made to the probe: function_run_seconds_count{function}. */
  const calls = async (): Promise<number> => {
    const metric = (await running.metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'function_run_seconds');
    const values = (metric?.values ?? []) as {
      labels: Record<string, string | number>;
      value: number;
      metricName?: string;
    }[];
    return values
      .filter((v) => v.labels.function === FUNCTION && String(v.metricName).endsWith('_count'))
      .reduce((total, v) => total + v.value, 0);
  };
  const seen = async (of = xr): Promise<string | undefined> =>
    (await get<Reported>(client, of))?.status?.required?.[0]?.data?.value;

  before(async () => {
    client = controlPlane().client();
    fn = await startFunction();
    running = await startEngine({ functionInsecure: true });
    await installFunctionApi(client, api, {
      status: PROBE_STATUS,
      fn: { name: FUNCTION, endpoint: fn.endpoint },
      pipeline: [
        {
          step: 'probe',
          functionRef: { name: FUNCTION },
          input: {
            apiVersion: 'probe.fn.compositor.test/v1',
            kind: 'Input',
            requireConfigMap: 'calls-settings',
            resources: ['counted-config'],
          },
        },
      ],
    });
    await apply(client, settings('first'));
    // The Composition's first revision, before any XR: an XR created while it is still missing selects the
    // Composition again once it appears, which changes what the function is sent and costs a call this file does not
    // count.
    await eventually('the Composition has a revision', async () => {
      const selector = encodeURIComponent(`crossplane.io/composition-name=${api.plural}`);
      const revisions = await client.request<{ items: unknown[] }>(
        'GET',
        `/apis/apiextensions.crossplane.io/v1/compositionrevisions?labelSelector=${selector}`,
      );
      return revisions.items.length > 0 ? true : undefined;
    });
  });

  after(async () => {
    await remove(client, xr);
    await remove(client, second);
    await running.stop();
    await fn.stop();
    await remove(client, settings(''));
  });

  it('calls three times in the reconcile that creates the XR, once when a required resource changes', async () => {
    await eventually('XRD Established and the XR created', () => apply(client, xr));
    await eventually('the XR sees value "first"', async () => ((await seen()) === 'first' ? true : undefined));
    await eventually('three calls', async () => ((await calls()) >= 3 ? true : undefined));
    await apply(client, settings('second'));
    await eventually('the XR sees value "second"', async () => ((await seen()) === 'second' ? true : undefined));
    const reconciles = await running.reconciles(api.controller);
    expect(await calls(), `calls (reconciles ${reconciles}; writes ${running.writeLog().join(', ')})`).to.equal(4);
  });

  it('calls twice for a new XR of a namespace where the step ran: seeded, then the settling pass', async () => {
    const before = await calls();
    await apply(client, second);
    await eventually('the second XR sees value "second"', async () =>
      (await seen(second)) === 'second' ? true : undefined,
    );
    await eventually('two more calls', async () => ((await calls()) >= before + 2 ? true : undefined));
    // The barrier: the first XR's required ConfigMap changes once more, one call.
    await apply(client, settings('third'));
    await eventually('the XR sees value "third"', async () => ((await seen()) === 'third' ? true : undefined));
    await eventually('the second XR sees value "third"', async () =>
      (await seen(second)) === 'third' ? true : undefined,
    );
    expect(await calls(), `calls (writes ${running.writeLog().join(', ')})`).to.equal(before + 4);
  });
});
