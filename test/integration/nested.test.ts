import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  AUTO_READY_FUNCTION,
  condition,
  functions,
  get,
  PT_FUNCTION,
  startEngine,
  testApi,
  xrd,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// An XR that composes another XR of its own kind (upstream crossplane#4715): the nested XR is reconciled although
// its creation was the parent's own write, and the parent is Ready once the nested XR is.

const api = testApi('nested.compositor.test', 'XNest', 'LegacyCluster');

function pipeline(name: string, base: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name },
    spec: {
      compositeTypeRef: { apiVersion: api.apiVersion, kind: api.kind },
      mode: 'Pipeline',
      pipeline: [
        {
          step: 'patch-and-transform',
          functionRef: { name: PT_FUNCTION },
          input: { apiVersion: 'pt.fn.crossplane.io/v1beta1', kind: 'Resources', resources: [{ name: 'inner', base }] },
        },
        { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
      ],
    },
  };
}

describe('nested XRs of one kind (integration)', function () {
  this.timeout(120_000);
  let running: RunningEngine;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    running = await startEngine();
    for (const fn of functions()) await apply(client, fn);
    await apply(client, xrd(api));
    await apply(
      client,
      pipeline('outer', { apiVersion: api.apiVersion, kind: api.kind, spec: { compositionRef: { name: 'inner' } } }),
    );
    await apply(
      client,
      pipeline('inner', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default' }, data: { a: 'b' } }),
    );
  });

  after(async () => {
    await running.stop();
  });

  it('reconciles the nested XR, and the outer XR is Ready once the nested one is', async () => {
    await eventually('XRD Established', async () => {
      const stored = await get<XrObject>(client, xrd(api));
      return condition(stored, 'Established')?.status === 'True' ? true : undefined;
    });
    const outer = {
      apiVersion: api.apiVersion,
      kind: api.kind,
      metadata: { name: 'outer' },
      spec: { compositionRef: { name: 'outer' } },
    };
    await apply(client, outer);
    const ready = await eventually('the outer XR Ready', async () => {
      const stored = await get<XrObject & { spec: { resourceRefs?: { name: string }[] } }>(client, outer);
      if (condition(stored, 'Ready')?.status === 'True') return stored;
      const nestedRef = stored?.spec.resourceRefs?.[0]?.name;
      const inner = nestedRef ? await get<XrObject>(client, { ...outer, metadata: { name: nestedRef } }) : undefined;
      throw new Error(`outer ${JSON.stringify(stored?.status?.conditions)}; nested ${JSON.stringify(inner)}`);
    });
    const nestedName = ready.spec.resourceRefs?.[0]?.name ?? '';
    const nested = await get<XrObject>(client, { ...outer, metadata: { name: nestedName } });
    expect(condition(nested, 'Ready')?.status).to.equal('True');
  });
});
