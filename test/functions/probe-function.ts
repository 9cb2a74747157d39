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
  /**
   * Act as function-environment-configs: require EnvironmentConfigs by name and by labels, and merge their data in
   * that order into the context key apiextensions.crossplane.io/environment.
   */
  environment?: { names?: string[]; matchLabels?: Record<string, string> };
  /** Record the items sent under this requirement name into status.required, without asking for it. */
  reportRequired?: string;
}

const ENVIRONMENT_KEY = 'apiextensions.crossplane.io/environment';
const ENVIRONMENT_CONFIG = { apiVersion: 'apiextensions.crossplane.io/v1beta1', kind: 'EnvironmentConfig' };

/** The merged data of the EnvironmentConfigs required so far (an empty environment until they are served). */
function environmentFor(req: RunFunctionRequest, rsp: ComposeResponse, input: ProbeInput): Record<string, unknown> {
  const names = input.environment?.names ?? [];
  names.forEach((name, i) => requireResource(rsp, `env-${i}`, { ...ENVIRONMENT_CONFIG, matchName: name }));
  const labels = input.environment?.matchLabels;
  if (labels !== undefined) requireResource(rsp, 'env-selected', { ...ENVIRONMENT_CONFIG, matchLabels: { labels } });
  const keys = [...names.map((_, i) => `env-${i}`), ...(labels === undefined ? [] : ['env-selected'])];
  const merged: Record<string, unknown> = {};
  for (const key of keys) {
    for (const item of req.requiredResources[key]?.items ?? []) {
      Object.assign(merged, (item.resource as { data?: Record<string, unknown> } | undefined)?.data ?? {});
    }
  }
  return merged;
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
  if (input.reportRequired !== undefined) {
    status.required = (req.requiredResources[input.reportRequired]?.items ?? []).map((i) => i.resource ?? null);
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

function contextFor(req: RunFunctionRequest, rsp: ComposeResponse, input: ProbeInput): Record<string, unknown> {
  const context: Record<string, unknown> = { ...(req.context ?? {}), ...(input.setContext ?? {}) };
  if (input.environment !== undefined) context[ENVIRONMENT_KEY] = environmentFor(req, rsp, input);
  return context;
}

const compose: ComposeFunction = async (req, rsp) => {
  calls++;
  const input = (req.input ?? {}) as ProbeInput;
  if (input.sleepMs !== undefined) await new Promise((resolve) => setTimeout(resolve, input.sleepMs));
  if (input.ttlSeconds !== undefined)
    rsp.meta = { tag: req.meta?.tag ?? '', ttl: { seconds: input.ttlSeconds, nanos: 0 } };
  rsp.context = contextFor(req, rsp, input);
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
