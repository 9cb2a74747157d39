import { expect } from 'chai';
import {
  requestFromWire,
  requestToWire,
  resolveEndpoint,
  responseFromWire,
  responseToWire,
  runFunctionMethod,
  type FunctionObject,
  type FunctionRevisionObject,
  type JsonObject,
} from '../../../src/functions/index.js';

describe('functions/codec: google.protobuf.Struct both ways through the real serialisers', () => {
  const cases: Record<string, { reason: string; value: JsonObject }> = {
    scalars: { reason: 'zero, empty string, false and null are set values', value: { a: 0, b: '', c: false, d: null } },
    nested: { reason: 'objects and lists nest', value: { l: [1, 'x', [true], { o: {} }], e: [] } },
    numbers: { reason: 'doubles survive exactly', value: { f: 0.1, big: 2 ** 53, neg: -1.5e-300 } },
    unicode: { reason: 'keys and strings are UTF-8', value: { 'ключ/ü': '日本 ✓', 'a.b[c]': 'x' } },
  };
  const method = runFunctionMethod();
  for (const [name, c] of Object.entries(cases)) {
    it(`round-trips ${name}`, () => {
      const req = { input: c.value, observed: { composite: { resource: c.value } } };
      const back = requestFromWire(method.deserializeRequest(method.serializeRequest(requestToWire(req))));
      expect(back, c.reason).to.deep.equal(req);
    });
  }

  it('round-trips bytes, TTL, enums and requirements of a response', () => {
    const rsp = {
      meta: { tag: 't', ttlMs: 1500 },
      desired: {
        resources: {
          a: { resource: { x: 1 }, ready: 'READY_TRUE' as const, connectionDetails: { k: new Uint8Array([0, 255]) } },
        },
      },
      results: [
        { severity: 'SEVERITY_WARNING' as const, message: 'm', reason: 'R', target: 'TARGET_COMPOSITE' as const },
      ],
      requirements: {
        resources: {
          cm: { apiVersion: 'v1', kind: 'ConfigMap', matchLabels: { labels: { a: 'b' } }, namespace: 'ns' },
        },
      },
      conditions: [{ type: 'T', status: 'STATUS_CONDITION_TRUE' as const, reason: 'R' }],
      context: { k: { v: [1] } },
    };
    const back = responseFromWire(method.deserializeResponse(method.serializeResponse(responseToWire(rsp))));
    expect(back).to.deep.equal(rsp);
  });
});

describe('functions/resolveEndpoint', () => {
  const fn = (annotations?: Record<string, string>): FunctionObject => ({
    metadata: { name: 'function-x', annotations },
  });
  const rev = (state: string, endpoint: string): FunctionRevisionObject => ({
    metadata: { labels: { 'pkg.crossplane.io/package': 'function-x' } },
    spec: { desiredState: state },
    status: { endpoint },
  });
  const cases: Record<
    string,
    { reason: string; fn: FunctionObject; revisions: FunctionRevisionObject[]; want: string }
  > = {
    annotation: {
      reason: 'the annotation wins over everything',
      fn: fn({ 'compositor.crossplane.io/endpoint': '127.0.0.1:9443' }),
      revisions: [rev('Active', 'dns:///rev:9443')],
      want: '127.0.0.1:9443',
    },
    revision: {
      reason: 'then the active revision',
      fn: fn(),
      revisions: [rev('Inactive', 'dns:///old:9443'), rev('Active', 'dns:///rev:9443')],
      want: 'dns:///rev:9443',
    },
    fallback: {
      reason: 'then the package runtime Service',
      fn: fn(),
      revisions: [rev('Inactive', 'dns:///old:9443')],
      want: 'dns:///function-x.crossplane-system:9443',
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`resolves ${name}`, () => {
      expect(resolveEndpoint(c.fn, c.revisions, 'crossplane-system'), c.reason).to.equal(c.want);
    });
  }
});
