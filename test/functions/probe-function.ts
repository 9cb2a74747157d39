// A real composition function, served with the official TypeScript SDK, whose behaviour is driven by its input.
// Tests start it as a separate process: `tsx test/functions/probe-function.ts --insecure --address 127.0.0.1:<port>`.
import {
  fatal,
  normal,
  Ready,
  requireResource,
  serve,
  Status,
  Target,
  warning,
  type ComposeFunction,
  type ComposeResponse,
  type RunFunctionRequest,
} from '@crossplane-org/function-sdk-typescript';

interface ProbeInput {
  ttlSeconds?: number;
  /** Keys merged into the response context. */
  setContext?: Record<string, unknown>;
  /** Copy the request's context into the desired XR's status.seenContext. */
  recordContext?: boolean;
  /** Ask for a ConfigMap by name until it is served; records the items into status.required. */
  requireConfigMap?: string;
  /** Ask for a different requirement on every call, so the loop never stabilises. */
  requireForever?: boolean;
  results?: { severity: 'FATAL' | 'WARNING' | 'NORMAL'; message: string }[];
  conditions?: { type: string; status: 'True' | 'False'; reason: string }[];
  sleepMs?: number;
  /** Names of ConfigMaps to add to the desired composed resources. */
  resources?: string[];
}

let calls = 0;

/** What the probe reports in the desired XR's status, so tests can see what it was sent. */
function statusFor(req: RunFunctionRequest, rsp: ComposeResponse, input: ProbeInput): Record<string, unknown> {
  const status: Record<string, unknown> = { calls };
  if (input.recordContext === true) status.seenContext = req.context ?? null;
  if (input.requireConfigMap !== undefined) {
    requireResource(rsp, 'cm', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      matchName: input.requireConfigMap,
      namespace: 'default',
    });
    status.required = (req.requiredResources.cm?.items ?? []).map((i) => i.resource ?? null);
  }
  if (input.requireForever === true) {
    requireResource(rsp, `r${calls}`, { apiVersion: 'v1', kind: 'ConfigMap', matchName: `n${calls}` });
  }
  return status;
}

function report(rsp: ComposeResponse, input: ProbeInput): void {
  for (const r of input.results ?? []) {
    if (r.severity === 'FATAL') fatal(rsp, r.message);
    else if (r.severity === 'WARNING') warning(rsp, r.message);
    else normal(rsp, r.message);
  }
  for (const c of input.conditions ?? []) {
    rsp.conditions.push({
      type: c.type,
      status: c.status === 'True' ? Status.STATUS_CONDITION_TRUE : Status.STATUS_CONDITION_FALSE,
      reason: c.reason,
      target: Target.TARGET_COMPOSITE,
    });
  }
}

const compose: ComposeFunction = async (req, rsp) => {
  calls++;
  const input = (req.input ?? {}) as ProbeInput;
  if (input.sleepMs !== undefined) await new Promise((resolve) => setTimeout(resolve, input.sleepMs));
  if (input.ttlSeconds !== undefined)
    rsp.meta = { tag: req.meta?.tag ?? '', ttl: { seconds: input.ttlSeconds, nanos: 0 } };
  rsp.context = { ...(req.context ?? {}), ...(input.setContext ?? {}) };
  const composite = rsp.desired.composite?.resource ?? {};
  const status = statusFor(req, rsp, input);
  rsp.desired.composite = { resource: { ...composite, status }, connectionDetails: {}, ready: Ready.READY_UNSPECIFIED };
  for (const name of input.resources ?? []) {
    rsp.desired.resources[name] = {
      resource: { apiVersion: 'v1', kind: 'ConfigMap', data: { name } },
      connectionDetails: {},
      ready: Ready.READY_UNSPECIFIED,
    };
  }
  report(rsp, input);
  return rsp;
};

serve(compose, { name: 'probe-function' });
