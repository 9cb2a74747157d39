// The function stand-ins of bench:scale --functions grpc (bench/functions/scale-fns) answer what compositor's
// built-in patch-and-transform and auto-ready answer, on bench:scale's own input: compared in proto3 JSON, the form
// both share on the wire, with the SDK's default TTL of 60 s.
import { expect } from 'chai';
import {
  RunFunctionRequest as SdkRequest,
  RunFunctionResponse as SdkResponse,
  to,
  type ComposeFunction,
  type ComposeResponse,
} from '@crossplane-org/function-sdk-typescript';
import { autoReady as builtinAutoReady, patchAndTransform as builtinPt } from '../../../src/functions/builtin/index.js';
import type { RunFunctionRequest, RunFunctionResponse } from '../../../src/functions/index.js';
import { autoReady } from '../../../bench/functions/scale-fns/autoReady.js';
import { patchAndTransform } from '../../../bench/functions/scale-fns/patchAndTransform.js';
import { patchAndTransformInput } from '../../../bench/harness/api.js';

const XR = {
  apiVersion: 'bench.compositor.crossplane.io/v1',
  kind: 'XScale',
  metadata: { name: 'xr-0', namespace: 'bench-scale', uid: 'u1' },
  spec: { value: 'v2' },
};

function configMap(i: number, data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `xr-0-cm${i}`, namespace: 'bench-scale' }, data };
}

const OBSERVED = {
  'cm-0': { resource: configMap(0, { index: '0', value: 'v1', probe: 't1' }) },
  'cm-1': { resource: configMap(1, { index: '1', value: 'v1' }) },
  'cm-2': { resource: configMap(2, { index: '2', value: 'v1' }) },
};

/** The stand-in's answer in proto3 JSON, the request given in that form too. */
async function standIn(compose: ComposeFunction, json: Record<string, unknown>): Promise<Record<string, unknown>> {
  const req = SdkRequest.fromJSON(json);
  const rsp = await compose(req, to(req) as ComposeResponse);
  return SdkResponse.toJSON(SdkResponse.fromPartial(rsp)) as Record<string, unknown>;
}

/** The built-in's answer as the stand-in's JSON reads: the TTL as a Duration, an empty tag left out. */
function builtin(run: (req: RunFunctionRequest) => RunFunctionResponse, json: object): Record<string, unknown> {
  const rsp = run(json);
  const { ttlMs, tag } = rsp.meta ?? {};
  const meta = { ...(tag ? { tag } : {}), ttl: { seconds: (ttlMs ?? 0) / 1000 } };
  return JSON.parse(JSON.stringify({ ...rsp, meta })) as Record<string, unknown>;
}

const PT_CASES: Record<string, { reason: string; req: Record<string, unknown> }> = {
  'new XR': {
    reason: 'nothing exists yet: three ConfigMaps from their bases, none Ready, status untouched',
    req: { meta: { tag: 'a' }, observed: { composite: { resource: XR } }, input: patchAndTransformInput(3) },
  },
  'settled XR': {
    reason: "existing ConfigMaps keep their names, are Ready (readinessChecks None), and cm-0's probe reaches status",
    req: {
      meta: { tag: 'b' },
      observed: { composite: { resource: XR }, resources: OBSERVED },
      input: patchAndTransformInput(3),
      context: { other: { kept: true } },
    },
  },
};

describe('bench: scale function stand-ins', () => {
  for (const [name, { reason, req }] of Object.entries(PT_CASES)) {
    it(`patch-and-transform answers as the built-in: ${name}`, async () => {
      expect(await standIn(patchAndTransform, req), reason).to.deep.equal(builtin(builtinPt, req));
    });
  }

  it('auto-ready answers as the built-in after patch-and-transform, for a new and a settled XR', async () => {
    for (const { reason, req } of Object.values(PT_CASES)) {
      const pt = builtin(builtinPt, req);
      const next = { ...req, input: undefined, desired: pt.desired, context: pt.context };
      expect(await standIn(autoReady, next), reason).to.deep.equal(builtin(builtinAutoReady(), next));
    }
  });

  it('auto-ready leaves a kind without a health check to its Ready condition', async () => {
    const managed = (status: string): Record<string, unknown> => ({
      apiVersion: 'example.org/v1',
      kind: 'Bucket',
      metadata: { name: 'b' },
      status: { conditions: [{ type: 'Ready', status }] },
    });
    for (const status of ['True', 'False']) {
      const req = {
        observed: { composite: { resource: XR }, resources: { b: { resource: managed(status) } } },
        desired: { resources: { b: { resource: { apiVersion: 'example.org/v1', kind: 'Bucket' } } } },
      };
      expect(await standIn(autoReady, req), status).to.deep.equal(builtin(builtinAutoReady(), req));
    }
  });

  it('both answer with the SDK default TTL of 60 s, as function-sdk-go response.DefaultTTL', async () => {
    const req = PT_CASES['settled XR']?.req ?? {};
    expect((await standIn(patchAndTransform, req)).meta).to.deep.equal({ tag: 'b', ttl: { seconds: 60 } });
    expect((await standIn(autoReady, req)).meta).to.deep.equal({ tag: 'b', ttl: { seconds: 60 } });
  });

  it('patch-and-transform refuses input it does not interpret with a FATAL result naming it', async () => {
    const input = patchAndTransformInput(1) as { resources: { patches: unknown[] }[] };
    input.resources[0]?.patches.push({
      type: 'FromCompositeFieldPath',
      fromFieldPath: 'spec.value',
      toFieldPath: 'data.upper',
      transforms: [{ type: 'string', string: { type: 'Convert', convert: 'ToUpper' } }],
    });
    const rsp = await standIn(patchAndTransform, { observed: { composite: { resource: XR } }, input });
    expect(rsp.results).to.have.lengthOf(1);
    expect(rsp.results).to.have.nested.property('[0].severity', 'SEVERITY_FATAL');
    expect(rsp.results).to.have.nested.property(
      '[0].message',
      'cannot compose: the patch-and-transform stand-in does not interpret resources[0].patches[2]: transforms',
    );
    expect(rsp.desired, 'the desired state is left as it came').to.deep.equal({});
  });
});
