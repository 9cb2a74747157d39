// The scenario function as the engine meets it: a separate process called over gRPC by the real runner.
import { expect } from 'chai';
import { stringify } from 'yaml';
import {
  GrpcFunctionRunner,
  insecureCredentials,
  staticEndpointResolver,
  type JsonObject,
  type RunFunctionRequest,
  type RunFunctionResponse,
} from '../../../src/functions/index.js';
import { startFunction, type FunctionProcess } from '../../functions/process.js';
import { SCENARIO_FUNCTION } from './scenario-function.js';

const XR = { apiVersion: 'example.org/v1', kind: 'XApp', metadata: { name: 'app', namespace: 'default' } };

const REQUIRE_CONFIGMAP = `
from crossplane.function import response, request
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
def compose(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse):
    response.require_resources(rsp, name="test-configmap", api_version="v1", kind="ConfigMap", match_name="test-configmap", namespace="default")
    resource_received = "test-configmap" in req.required_resources
    resource_has_expected_data = False
    received_value = ""
    if resource_received:
        cm = request.get_required_resource(req, "test-configmap")
        if cm:
            data = cm.get("data", {})
            received_value = data.get("test-key", "")
            resource_has_expected_data = received_value == "test-value"
    rsp.desired.composite.resource.update({"status": {"resourceReceived": resource_received, "resourceHasExpectedData": resource_has_expected_data, "receivedValue": received_value}})
    result = fnv1.Result()
    result.severity = fnv1.SEVERITY_NORMAL
    result.message = "Waiting for ConfigMap"
    rsp.results.append(result)
`;

const CONFIGMAP = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'test-configmap', namespace: 'default' },
  data: { 'test-key': 'test-value' },
};

function dummyInput(response: unknown): JsonObject {
  return { apiVersion: 'dummy.fn.crossplane.io/v1beta1', kind: 'Response', response } as JsonObject;
}

function scriptInput(script: string): JsonObject {
  return { apiVersion: 'python.fn.crossplane.io/v1beta1', kind: 'Script', script };
}

function results(rsp: RunFunctionResponse): [string | undefined, string | undefined][] {
  return (rsp.results ?? []).map((r) => [r.severity, r.message]);
}

describe('conformance: scenario function', function () {
  this.timeout(30_000);
  let fn: FunctionProcess;
  let grpc: GrpcFunctionRunner;

  const run = (request: RunFunctionRequest): Promise<RunFunctionResponse> =>
    grpc.run({ functionName: 'scenario', request: { observed: { composite: { resource: XR } }, ...request } });

  before(async () => {
    fn = await startFunction(SCENARIO_FUNCTION);
    grpc = new GrpcFunctionRunner({
      resolveEndpoint: staticEndpointResolver({ scenario: fn.endpoint }),
      credentials: insecureCredentials(),
      timeoutMs: 20_000,
    });
  });
  after(async () => {
    grpc.close();
    await fn.stop();
  });

  describe('function-dummy input', () => {
    it('merges the YAML response onto the desired state and appends its results', async () => {
      const response = stringify({
        desired: {
          composite: { resource: { status: { widgets: 200 } } },
          resources: {
            cm: { resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } }, ready: 'READY_TRUE' },
            kept: { resource: { data: { extra: 'yes' } } },
          },
        },
        results: [{ severity: 'SEVERITY_NORMAL', message: 'I am doing a compose!' }],
        meta: { ttl: '30s' },
      });
      const rsp = await run({
        input: dummyInput(response),
        desired: {
          composite: { resource: { ...XR, status: { existing: true } } },
          resources: {
            kept: { resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } }, ready: 'READY_FALSE' },
          },
        },
      });
      expect(rsp.desired).to.deep.equal({
        composite: { resource: { ...XR, status: { existing: true, widgets: 200 } } },
        resources: {
          cm: { resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } }, ready: 'READY_TRUE' },
          kept: {
            resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b', extra: 'yes' } },
            ready: 'READY_FALSE',
          },
        },
      });
      expect(results(rsp)).to.deep.equal([['SEVERITY_NORMAL', 'I am doing a compose!']]);
      expect(rsp.meta?.ttlMs).to.equal(30_000);
    });

    it('takes the response as an object too, merges context and keeps the default TTL', async () => {
      const rsp = await run({
        input: dummyInput({ context: { 'example.org/b': 2 }, requirements: { resources: { r: { kind: 'Secret' } } } }),
        context: { 'example.org/a': 1 },
      });
      expect(rsp.context).to.deep.equal({ 'example.org/a': 1, 'example.org/b': 2 });
      expect(rsp.requirements?.resources?.r?.kind).to.equal('Secret');
      expect(rsp.meta?.ttlMs).to.equal(60_000);
    });

    it('answers an unparsable response with a FATAL result', async () => {
      const rsp = await run({ input: dummyInput('{meta: {ttl: soon}}') });
      expect(results(rsp)).to.have.length(1);
      expect(rsp.results?.[0]?.severity).to.equal('SEVERITY_FATAL');
    });
  });

  describe('function-python input', () => {
    it('asks for the ConfigMap on the first call, before the engine has resolved it', async () => {
      const rsp = await run({ input: scriptInput(REQUIRE_CONFIGMAP) });
      expect(rsp.requirements?.resources).to.deep.equal({
        'test-configmap': { apiVersion: 'v1', kind: 'ConfigMap', matchName: 'test-configmap', namespace: 'default' },
      });
      expect(rsp.desired?.composite?.resource?.status).to.deep.equal({
        resourceReceived: false,
        resourceHasExpectedData: false,
        receivedValue: '',
      });
      expect(results(rsp)).to.deep.equal([['SEVERITY_NORMAL', 'Waiting for ConfigMap']]);
      expect(rsp.meta?.ttlMs).to.equal(60_000);
    });

    it('reads the ConfigMap once the engine supplies it', async () => {
      const rsp = await run({
        input: scriptInput(REQUIRE_CONFIGMAP),
        requiredResources: { 'test-configmap': { items: [{ resource: CONFIGMAP }] } },
      });
      expect(rsp.desired?.composite?.resource?.status).to.deep.equal({
        resourceReceived: true,
        resourceHasExpectedData: true,
        receivedValue: 'test-value',
      });
    });

    it('sees a resolved requirement that matched nothing as received but empty', async () => {
      const rsp = await run({ input: scriptInput(REQUIRE_CONFIGMAP), requiredResources: { 'test-configmap': {} } });
      expect(rsp.desired?.composite?.resource?.status).to.deep.equal({
        resourceReceived: true,
        resourceHasExpectedData: false,
        receivedValue: '',
      });
    });

    it('starts rsp from the request: desired state, context and tag survive, prints stay off the response', async () => {
      const script = [
        'from crossplane.function import response',
        'from crossplane.function.proto.v1 import run_function_pb2 as fnv1',
        'def compose(req, rsp):',
        '    print("hello from the script")',
        '    rsp.desired.resources["b"].resource.update({"apiVersion": "v1", "kind": "Secret"})',
        '    rsp.desired.resources["b"].ready = fnv1.READY_TRUE',
        '    rsp.meta.ttl.seconds = 5',
        '    response.warning(rsp, "careful")',
      ].join('\n');
      const rsp = await run({
        input: scriptInput(script),
        meta: { tag: 't1' },
        context: { k: 'v' },
        desired: { resources: { a: { resource: { apiVersion: 'v1', kind: 'ConfigMap' } } } },
      });
      expect(Object.keys(rsp.desired?.resources ?? {})).to.deep.equal(['a', 'b']);
      expect(rsp.desired?.resources?.b).to.deep.include({
        resource: { apiVersion: 'v1', kind: 'Secret' },
        ready: 'READY_TRUE',
      });
      expect(rsp.context).to.deep.equal({ k: 'v' });
      expect(rsp.meta).to.deep.equal({ tag: 't1', ttlMs: 5000 });
      expect(results(rsp)).to.deep.equal([['SEVERITY_WARNING', 'careful']]);
    });

    it('turns an exception in the script into a FATAL result with the Python error', async () => {
      const rsp = await run({ input: scriptInput('def compose(req, rsp):\n    raise ValueError("boom")\n') });
      expect(results(rsp)).to.deep.equal([['SEVERITY_FATAL', 'script failed: ValueError: boom']]);
    });

    it('turns a script without compose into a FATAL result', async () => {
      const rsp = await run({ input: scriptInput('x = 1\n') });
      expect(results(rsp)).to.deep.equal([['SEVERITY_FATAL', 'script must define a compose function']]);
    });
  });

  it('answers any other input kind with a FATAL result', async () => {
    const rsp = await run({ input: { apiVersion: 'example.org/v1', kind: 'Other' } });
    expect(results(rsp)).to.deep.equal([['SEVERITY_FATAL', 'unsupported input example.org/v1/Other']]);
  });
});
