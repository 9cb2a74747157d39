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

// A function's required resources are watched: changing one reconciles the XRs that read it at once, long before
// the function's TTL (10 minutes here) would.
describe('required resources', function () {
  this.timeout(120_000);
  const api = testApi('required.compositor.test', 'XReader');
  let running: RunningEngine;
  let client: KubeClient;
  let fn: FunctionProcess;
  const settings = (value: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'reader-settings', namespace: 'default' },
    data: { value },
  });
  const reader: XrObject = {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name: 'reader', namespace: 'default' },
    spec: {},
  };

  before(async () => {
    client = controlPlane().client();
    fn = await startFunction();
    running = await startEngine({ functionInsecure: true });
    await installFunctionApi(client, api, {
      status: PROBE_STATUS,
      fn: { name: 'required-probe', endpoint: fn.endpoint },
      pipeline: [
        {
          step: 'read',
          functionRef: { name: 'required-probe' },
          input: {
            apiVersion: 'probe.fn.compositor.test/v1',
            kind: 'Input',
            requireConfigMap: 'reader-settings',
            ttlSeconds: 600,
          },
        },
      ],
    });
    await apply(client, settings('first'));
  });

  after(async () => {
    await remove(client, reader);
    await running.stop();
    await fn.stop();
  });

  const seen = async (): Promise<unknown> => {
    const stored = await get<XrObject & { status?: { required?: { data?: { value?: string } }[] } }>(client, reader);
    return stored?.status?.required?.[0]?.data?.value;
  };

  it('reconciles an XR within seconds when a resource its pipeline required changes', async () => {
    await eventually('XRD Established and the XR created', () => apply(client, reader));
    await eventually('the XR sees value "first"', async () => ((await seen()) === 'first' ? true : undefined));
    await apply(client, settings('second'));
    await eventually('the XR sees value "second"', async () => ((await seen()) === 'second' ? true : undefined), {
      timeoutMs: 10_000,
    });
  });

  it('reads the required ConfigMap from the informer cache: no GET or LIST of ConfigMaps after its first list', async () => {
    const configMapReads = (): string[] =>
      running.readLog().filter((line) => /^GET \/api\/v1\/(namespaces\/[^/]+\/)?configmaps([/?]|$)/.test(line));
    // The XR was reconciled for "first" and again for "second"; once more, through the function's requirements.
    await apply(client, settings('third'));
    await eventually('the XR sees value "third"', async () => ((await seen()) === 'third' ? true : undefined), {
      timeoutMs: 10_000,
    });
    // The metric counts a reconcile once it returns, which may be just after its status write was seen.
    await eventually('three reconciles of the XR kind counted', async () => {
      const reconciles = await running.reconciles(api.controller);
      if (reconciles < 3) throw new Error(`${reconciles} reconciles counted`);
      return true;
    });
    // One paged LIST of every ConfigMap, the informer's (a relist after a broken watch would add one more).
    const reads = configMapReads();
    const seenReads = `ConfigMap reads: ${reads.join(', ')}`;
    expect(reads, seenReads).to.have.length.within(1, 2);
    for (const line of reads) expect(line, seenReads).to.match(/^GET \/api\/v1\/configmaps\?limit=/);
  });
});
