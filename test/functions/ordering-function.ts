// A composition function served with the official TypeScript SDK that declares dependencies between the ConfigMaps
// it composes (the alpha `dependencies` field of the function protocol, written by ./dependencies.ts).
// Tests start it as a separate process: `tsx test/functions/ordering-function.ts --insecure --address 127.0.0.1:<port>`.
import { Ready, serve, type ComposeFunction, type RunFunctionRequest } from '@crossplane-org/function-sdk-typescript';
import { declareDependencies, type Dependency } from './dependencies.js';

/** The annotation a test sets on a composed ConfigMap to make the function report it Ready. */
export const READY_ANNOTATION = 'ordering.compositor.test/ready';
/** The annotation a test sets on the XR, "a,b": the function stops composing those, and declaring their edges. */
export const DROP_ANNOTATION = 'ordering.compositor.test/drop';

interface OrderingInput {
  /** ConfigMaps to compose, by composition resource name, each with the names it depends on. */
  resources?: { name: string; dependsOn?: string[] }[];
}

function observedReady(req: RunFunctionRequest, name: string): boolean {
  const object = req.observed?.resources[name]?.resource as
    { metadata?: { annotations?: Record<string, string> } } | undefined;
  return object?.metadata?.annotations?.[READY_ANNOTATION] === 'true';
}

function dropped(req: RunFunctionRequest): Set<string> {
  const xr = req.observed?.composite?.resource as { metadata?: { annotations?: Record<string, string> } } | undefined;
  return new Set((xr?.metadata?.annotations?.[DROP_ANNOTATION] ?? '').split(',').filter((n) => n !== ''));
}

const compose: ComposeFunction = (req, rsp) => {
  const input = (req.input ?? {}) as OrderingInput;
  const drop = dropped(req);
  const pairs: Dependency[] = [];
  for (const { name, dependsOn = [] } of input.resources ?? []) {
    if (drop.has(name)) continue;
    rsp.desired.resources[name] = {
      resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { name } },
      connectionDetails: {},
      ready: observedReady(req, name) ? Ready.READY_TRUE : Ready.READY_FALSE,
    };
    for (const on of dependsOn) pairs.push({ resource: name, dependsOn: on });
  }
  declareDependencies(rsp, pairs);
  return Promise.resolve(rsp);
};

serve(compose, { name: 'ordering-function' });
