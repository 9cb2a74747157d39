import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { KubeClient } from '../../src/kube/index.js';
import { startFunction, type FunctionProcess } from '../functions/process.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  get,
  installFunctionApi,
  remove,
  startEngine,
  testApi,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// Required schemas (Crossplane v2.2) end to end: a function-python script, run by the stand-in SDK, asks for the
// ConfigMap schema with response.require_schema and reads it with request.get_required_schema. compositor serves it
// from the API server's /openapi/v3 with references flattened: metadata carries ObjectMeta's properties, no $ref.
const SCRIPT = `
from crossplane.function import request, response

def compose(req, rsp):
    response.require_schema(rsp, "cm", "v1", "ConfigMap")
    response.require_schema(rsp, "missing", "example.org/v1", "Nothing")
    schema = request.get_required_schema(req, "cm") or {}
    props = schema.get("properties", {})
    metadata = props.get("metadata", {})
    rsp.desired.composite.resource.update({"status": {
        "received": "cm" in req.required_schemas,
        "hasData": "data" in props,
        "flattened": "name" in metadata.get("properties", {}) and "$ref" not in str(schema),
        "unknownIsNone": request.get_required_schema(req, "missing") is None,
    }})
`;

// The conformance scenarios' function: it runs python.fn.crossplane.io Scripts with the stand-in SDK.
const SCENARIO_FUNCTION = fileURLToPath(new URL('../conformance/functions/scenario-function.ts', import.meta.url));

describe('required schemas', function () {
  this.timeout(120_000);
  const api = testApi('schemas.compositor.test', 'XSchemaReader');
  let running: RunningEngine;
  let client: KubeClient;
  let fn: FunctionProcess;
  const xr: XrObject = {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name: 'schema-reader', namespace: 'default' },
    spec: {},
  };
  type Reported = XrObject & { status?: Record<string, boolean | undefined> };

  before(async () => {
    client = controlPlane().client();
    fn = await startFunction(SCENARIO_FUNCTION);
    running = await startEngine({ functionInsecure: true });
    const flags = ['received', 'hasData', 'flattened', 'unknownIsNone'];
    const status = { type: 'object', properties: Object.fromEntries(flags.map((f) => [f, { type: 'boolean' }])) };
    await installFunctionApi(client, api, {
      status,
      fn: {
        name: 'function-python-schemas',
        endpoint: fn.endpoint,
        package: 'xpkg.crossplane.io/crossplane-contrib/function-python:v0.6.0',
      },
      pipeline: [
        {
          step: 'read-schema',
          functionRef: { name: 'function-python-schemas' },
          input: { apiVersion: 'python.fn.crossplane.io/v1beta1', kind: 'Script', script: SCRIPT },
        },
      ],
    });
  });

  after(async () => {
    await remove(client, xr);
    await running.stop();
    await fn.stop();
  });

  it('serves the real ConfigMap schema, references flattened, and an empty one for an unknown kind', async () => {
    await eventually('XRD Established and the XR created', () => apply(client, xr));
    const status = await eventually('the function reports the schema', async () => {
      const stored = await get<Reported>(client, xr);
      return stored?.status?.received === true ? stored.status : undefined;
    });
    expect(status).to.deep.include({ received: true, hasData: true, flattened: true, unknownIsNone: true });
  });
});
