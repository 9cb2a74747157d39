// A stand-in for function-auto-ready, for bench:scale --functions grpc. As the real function (v0.7): a desired
// composed resource whose readiness no earlier step decided becomes Ready once it exists (it is in the observed
// state) and is healthy: a ConfigMap, Secret, ServiceAccount or Namespace always is; any other kind when its first
// Ready condition is True. It does not interpret the real function's other per-kind health checks (Deployment,
// Service, Job, ...: here they are judged by their Ready condition), its CEL health checks or its `ttl` input. Like
// the real function it never touches the XR: the controller marks the XR Ready once all its composed resources are.
import { Ready, type ComposeFunction, type Resource } from '@crossplane-org/function-sdk-typescript';

/** Kinds function-auto-ready counts healthy as soon as they exist, by apiVersion/kind. */
const ALWAYS_HEALTHY = new Set(['v1/ConfigMap', 'v1/Secret', 'v1/ServiceAccount', 'v1/Namespace']);

function healthy(observed: Record<string, unknown>): boolean {
  if (ALWAYS_HEALTHY.has(`${String(observed.apiVersion)}/${String(observed.kind)}`)) return true;
  const status = observed.status as { conditions?: unknown } | undefined;
  const conditions: unknown[] = Array.isArray(status?.conditions) ? status.conditions : [];
  const ready = conditions.find((c) => (c as { type?: unknown } | null)?.type === 'Ready') as
    { status?: unknown } | undefined;
  return ready?.status === 'True';
}

/** The stand-in's RunFunction: the desired state passes through, with the readiness it decides. */
export const autoReady: ComposeFunction = (req, rsp) => {
  const resources: Record<string, Resource> = {};
  for (const [name, desired] of Object.entries(rsp.desired.resources)) {
    const observed = req.observed?.resources[name]?.resource;
    let ready = desired.ready;
    if (observed !== undefined && ready === Ready.READY_UNSPECIFIED && healthy(observed)) ready = Ready.READY_TRUE;
    // The SDK's round trip of the desired composed resources keeps only each one's resource and readiness.
    resources[name] = { resource: desired.resource, connectionDetails: {}, ready };
  }
  rsp.desired = { ...rsp.desired, resources };
  return rsp;
};
