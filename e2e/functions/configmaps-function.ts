// The composition function of the e2e suite, served with the official TypeScript SDK as a separate process, as
// users run functions. For an XR with spec.count and spec.data it composes ConfigMaps cm-0 .. cm-<count-1> holding
// spec.data, reports each Ready once it is observed, and mirrors cm-0's observed data into status.observedData.
// Start: `node --import tsx configmaps-function.ts --insecure --address <host>:<port>`.
import { Ready, serve, type ComposeFunction, type Resource } from '@crossplane-org/function-sdk-typescript';

interface XrSpec {
  count?: number;
  data?: Record<string, string>;
}

function configMaps(spec: XrSpec, observed: Record<string, Resource>): Record<string, Resource> {
  const desired: Record<string, Resource> = {};
  for (let i = 0; i < (spec.count ?? 1); i++) {
    const name = `cm-${i}`;
    desired[name] = {
      resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { ...spec.data } },
      connectionDetails: {},
      ready: name in observed ? Ready.READY_TRUE : Ready.READY_FALSE,
    };
  }
  return desired;
}

const compose: ComposeFunction = (req, rsp) => {
  const spec = (req.observed?.composite?.resource as { spec?: XrSpec } | undefined)?.spec ?? {};
  const observed = req.observed?.resources ?? {};
  Object.assign(rsp.desired.resources, configMaps(spec, observed));
  const first = observed['cm-0']?.resource as { data?: Record<string, string> } | undefined;
  rsp.desired.composite = {
    resource: { ...rsp.desired.composite?.resource, status: { observedData: first?.data ?? {} } },
    connectionDetails: {},
    ready: Ready.READY_UNSPECIFIED,
  };
  return Promise.resolve(rsp);
};

serve(compose, { name: 'configmaps-function' });
