// The platform benchmark's API: N namespaced XRDs, each with a Composition whose pipeline calls the platform
// function over gRPC (bench/functions/platform-fn), then function-patch-and-transform and function-auto-ready; CRDs
// standing in for managed resources, whose Ready condition the simulated provider (provider.ts) sets; the
// EnvironmentConfig and, in each namespace, the labelled ConfigMap the function requires. The first XRD's XRs compose
// two XRs of the second (nesting depth 3: XR, child XRs, their resources); every other XRD's XRs compose a ConfigMap
// and a Secret and two managed resources through the function, and a ConfigMap through patch-and-transform.
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { apply, AUTO_READY_FUNCTION, ensureNamespace, functions, PT_FUNCTION } from '../../test/integration/engine.js';
import type { PlatformInput } from '../functions/platform-fn/main.js';
import { definition, endpointFunction, pipelineComposition, scaleApi, waitUntilServed, type ScaleApi } from './api.js';
import { until } from './util.js';

export const PLATFORM_FUNCTION = 'function-platform';
export const MANAGED_GROUP = 'sim.bench.compositor.crossplane.io';
export const ENVIRONMENT_CONFIG = 'platform-environment';
export const SETTINGS_CONFIGMAP = 'platform-settings';
export const SETTINGS_LABELS: Readonly<Record<string, string>> = { 'bench.compositor.io/platform-settings': 'true' };
/** compositor's namespace (the chart's), where its package runtime keeps its Secrets. */
const COMPOSITOR_NAMESPACE = 'crossplane-system';

export interface ManagedKind {
  kind: string;
  plural: string;
  apiVersion: string;
}

export interface Platform {
  /** XR kinds, the first composing two XRs of the second. */
  xrs: ScaleApi[];
  managed: ManagedKind[];
  namespaces: string[];
}

export function platform(shape: { xrds: number; managedKinds: number; namespaces: number }): Platform {
  if (shape.xrds < 2) throw new Error(`cannot build the platform: --xrds must be at least 2, got ${shape.xrds}`);
  return {
    xrs: Array.from({ length: shape.xrds }, (_, i) => scaleApi(`XPlatform${i}`, 0)),
    managed: Array.from({ length: shape.managedKinds }, (_, i) => ({
      kind: `Managed${i}`,
      plural: `managed${i}s`,
      apiVersion: `${MANAGED_GROUP}/v1`,
    })),
    namespaces: Array.from({ length: shape.namespaces }, (_, i) => `platform-${i}`),
  };
}

/** Resource names a Composition's steps give what they compose, as the figures refer to them. */
export const FUNCTION_CONFIGMAP = 'config-0';
export const PT_CONFIGMAP = 'pt';

function managedCrd(managed: ManagedKind): KubeObject {
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${managed.plural}.${MANAGED_GROUP}` },
    spec: {
      group: MANAGED_GROUP,
      names: { kind: managed.kind, plural: managed.plural, listKind: `${managed.kind}List` },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
        },
      ],
    },
  };
}

function inputOf(p: Platform, index: number): PlatformInput {
  const base = {
    apiVersion: 'platform.fn.bench.compositor.io/v1',
    kind: 'Input',
    environmentConfig: ENVIRONMENT_CONFIG,
    requiredLabels: { ...SETTINGS_LABELS },
  };
  const child = p.xrs[1];
  if (index === 0 && child !== undefined) {
    return {
      ...base,
      configMaps: 1,
      secrets: 0,
      managed: [],
      children: { apiVersion: child.apiVersion, kind: child.kind, count: 2 },
    };
  }
  const managed = [p.managed[index % p.managed.length], p.managed[(index + 1) % p.managed.length]].flatMap((m) =>
    m === undefined ? [] : [{ apiVersion: m.apiVersion, kind: m.kind }],
  );
  return { ...base, configMaps: 1, secrets: 1, managed: [...new Map(managed.map((m) => [m.kind, m])).values()] };
}

function composition(p: Platform, index: number): KubeObject {
  const api = p.xrs[index] as ScaleApi;
  const pt = {
    name: PT_CONFIGMAP,
    base: { apiVersion: 'v1', kind: 'ConfigMap', data: { step: 'patch-and-transform' } },
    patches: [{ type: 'FromCompositeFieldPath', fromFieldPath: 'spec.value', toFieldPath: 'data.value' }],
    readinessChecks: [{ type: 'None' }],
  };
  return pipelineComposition(api, [
    { step: 'platform', functionRef: { name: PLATFORM_FUNCTION }, input: inputOf(p, index) },
    {
      step: 'patch-and-transform',
      functionRef: { name: PT_FUNCTION },
      input: { apiVersion: 'pt.fn.crossplane.io/v1beta1', kind: 'Resources', resources: [pt] },
    },
    { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
  ]);
}

export function settingsConfigMap(namespace: string, tier: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: SETTINGS_CONFIGMAP, namespace, labels: { ...SETTINGS_LABELS } },
    data: { tier },
  };
}

/** Installs everything the XRs need and waits until every XR kind is served. */
export async function installPlatform(client: KubeClient, p: Platform, functionEndpoint: string): Promise<void> {
  await ensureNamespace(client, COMPOSITOR_NAMESPACE);
  for (const namespace of p.namespaces) {
    await ensureNamespace(client, namespace);
    await apply(client, settingsConfigMap(namespace, 'gold'));
  }
  for (const managed of p.managed) await apply(client, managedCrd(managed));
  for (const managed of p.managed) {
    await until(
      `CRD ${managed.plural}.${MANAGED_GROUP} Established`,
      async () => {
        const crd = await client.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
          'GET',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${managed.plural}.${MANAGED_GROUP}`,
        );
        return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  }
  for (const fn of [...functions(), endpointFunction(PLATFORM_FUNCTION, functionEndpoint)]) await apply(client, fn);
  await apply(client, {
    apiVersion: 'apiextensions.crossplane.io/v1beta1',
    kind: 'EnvironmentConfig',
    metadata: { name: ENVIRONMENT_CONFIG },
    data: { region: 'eu-west-1' },
  });
  for (const [index, api] of p.xrs.entries()) {
    await apply(client, definition(api));
    await apply(client, composition(p, index));
  }
  for (const api of p.xrs) await waitUntilServed(client, api);
}
