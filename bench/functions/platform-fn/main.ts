// The platform benchmark's gRPC function, served with the official TypeScript SDK: like a platform's own function
// (function-environment-configs plus a templating step), it requires an EnvironmentConfig by name and the ConfigMap
// labelled as the platform's settings in the XR's namespace, and until both are served returns only those
// requirements; then it composes what its input lists (ConfigMaps and Secrets, Ready at once; managed resources and
// child XRs, whose readiness is left to function-auto-ready), their values drawn from the two required objects.
// Started by bench/platform.ts: `node --import tsx main.ts --insecure --address <host:port> --counter-address <host:port>`;
// the counter address serves the RunFunction calls served so far (harness/callCounter.ts), so the benchmark counts
// gRPC calls where they land.
import {
  Ready,
  requireResource,
  serve,
  type ComposeFunction,
  type ComposeResponse,
  type RunFunctionRequest,
} from '@crossplane-org/function-sdk-typescript';
import { countingCalls } from '../../harness/callCounter.js';

/** What one Composition's step asks for (its `input`). */
export interface PlatformInput {
  apiVersion: string;
  kind: string;
  environmentConfig: string;
  requiredLabels: Record<string, string>;
  configMaps: number;
  secrets: number;
  managed: { apiVersion: string; kind: string }[];
  children?: { apiVersion: string; kind: string; count: number };
}

const ENVIRONMENT_CONFIG = { apiVersion: 'apiextensions.crossplane.io/v1beta1', kind: 'EnvironmentConfig' };

interface Settings {
  region: string;
  tier: string;
}

interface Composite {
  metadata?: { name?: string; namespace?: string };
  spec?: { value?: string };
}

/** The `data` of the first item served under `name`, or undefined while none is. */
function requiredData(req: RunFunctionRequest, name: string): Record<string, string> | undefined {
  const item = req.requiredResources[name]?.items[0]?.resource as { data?: Record<string, string> } | undefined;
  return item === undefined ? undefined : (item.data ?? {});
}

/** Requires the EnvironmentConfig and the settings ConfigMap; their values once both were served, else undefined. */
function settingsOf(req: RunFunctionRequest, rsp: ComposeResponse, input: PlatformInput): Settings | undefined {
  const xr = req.observed?.composite?.resource as Composite | undefined;
  requireResource(rsp, 'environment', { ...ENVIRONMENT_CONFIG, matchName: input.environmentConfig });
  requireResource(rsp, 'settings', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    matchLabels: { labels: input.requiredLabels },
    namespace: xr?.metadata?.namespace,
  });
  const environment = requiredData(req, 'environment');
  const settings = requiredData(req, 'settings');
  if (environment === undefined || settings === undefined) return undefined;
  return { region: environment.region ?? '', tier: settings.tier ?? '' };
}

function add(rsp: ComposeResponse, name: string, resource: Record<string, unknown>, ready: Ready): void {
  rsp.desired.resources[name] = { resource, connectionDetails: {}, ready };
}

/** The ConfigMaps and Secrets, Ready as soon as they exist. */
function addPlain(rsp: ComposeResponse, input: PlatformInput, data: Record<string, string>): void {
  for (let i = 0; i < input.configMaps; i++) {
    add(rsp, `config-${i}`, { apiVersion: 'v1', kind: 'ConfigMap', data }, Ready.READY_TRUE);
  }
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  for (let i = 0; i < input.secrets; i++) {
    add(rsp, `secret-${i}`, { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', data: encoded }, Ready.READY_TRUE);
  }
}

/** The managed resources and child XRs, whose readiness function-auto-ready reports from their Ready condition. */
function addReportingReady(rsp: ComposeResponse, input: PlatformInput, settings: Settings, value: string): void {
  for (const managed of input.managed) {
    const resource = { ...managed, spec: { forProvider: { region: settings.region, tier: settings.tier, value } } };
    add(rsp, `managed-${managed.kind.toLowerCase()}`, resource, Ready.READY_UNSPECIFIED);
  }
  const children = input.children;
  if (children === undefined) return;
  for (let i = 0; i < children.count; i++) {
    const child = { apiVersion: children.apiVersion, kind: children.kind, spec: { value } };
    add(rsp, `child-${i}`, child, Ready.READY_UNSPECIFIED);
  }
}

const compose: ComposeFunction = (req, rsp) => {
  const input = req.input as unknown as PlatformInput;
  const settings = settingsOf(req, rsp, input);
  if (settings === undefined) return rsp;
  const xr = req.observed?.composite?.resource as Composite | undefined;
  const value = xr?.spec?.value ?? '';
  addPlain(rsp, input, { xr: xr?.metadata?.name ?? '', value, region: settings.region, tier: settings.tier });
  addReportingReady(rsp, input, settings, value);
  return rsp;
};

const { compose: counted, rest } = countingCalls(compose, process.argv.slice(2));
serve(counted, { name: 'platform-fn', argv: rest });
