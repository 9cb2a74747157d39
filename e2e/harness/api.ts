// The platform API the e2e scenarios use, as a user would write it: a v2 namespaced XRD, a Pipeline Composition
// whose one step is the e2e function running as its own process, and the Function pointing at it.
import { COMPOSITE_LABEL } from '../../src/controller/index.js';
import { ENDPOINT_ANNOTATION } from '../../src/functions/index.js';
import { CONTENT_TYPE, type KubeObject } from '../../src/kube/index.js';
import { apply, get, type XrObject } from '../../test/integration/engine.js';
import { eventually } from '../../test/integration/harness.js';
import { target } from './setup.js';

export const GROUP = 'e2e.compositor.crossplane.io';
export const API_VERSION = `${GROUP}/v1`;
export const KIND = 'XConfigSet';
const PLURAL = 'xconfigsets';
const FUNCTION_NAME = 'function-configmaps';

export type ConfigSet = XrObject & {
  spec?: { count?: number; data?: Record<string, string> };
  status?: XrObject['status'] & { observedData?: Record<string, string> };
};

export interface ComposedConfigMap extends KubeObject {
  metadata: KubeObject['metadata'] & {
    ownerReferences?: { uid: string; controller?: boolean }[];
    annotations?: Record<string, string>;
  };
  data?: Record<string, string>;
}

function definition(): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v2',
    kind: 'CompositeResourceDefinition',
    metadata: { name: `${PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: KIND, plural: PLURAL },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          referenceable: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    count: { type: 'integer', minimum: 0, maximum: 20 },
                    data: { type: 'object', additionalProperties: { type: 'string' } },
                  },
                },
                status: {
                  type: 'object',
                  properties: { observedData: { type: 'object', additionalProperties: { type: 'string' } } },
                },
              },
            },
          },
        },
      ],
    },
  };
}

function composition(): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: PLURAL },
    spec: {
      compositeTypeRef: { apiVersion: API_VERSION, kind: KIND },
      mode: 'Pipeline',
      pipeline: [{ step: 'configmaps', functionRef: { name: FUNCTION_NAME } }],
    },
  };
}

function fn(): KubeObject {
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'Function',
    metadata: { name: FUNCTION_NAME, annotations: { [ENDPOINT_ANNOTATION]: target().functionEndpoint } },
    spec: { package: 'xpkg.example.org/e2e/function-configmaps:v0.1.0' },
  };
}

/** Installs the API and waits until compositor serves it (its XRD Established). */
export async function installApi(): Promise<void> {
  const { client } = target();
  await apply(client, fn());
  await apply(client, definition());
  await apply(client, composition());
  await eventually(
    `XRD ${PLURAL}.${GROUP} Established`,
    async () => {
      const xrd = await get<XrObject>(client, {
        apiVersion: 'apiextensions.crossplane.io/v1',
        kind: 'CompositeResourceDefinition',
        metadata: { name: `${PLURAL}.${GROUP}` },
      });
      const established = xrd?.status?.conditions?.find((c) => c.type === 'Established');
      if (established?.status === 'True') return true;
      throw new Error(`Established is ${JSON.stringify(established)}`);
    },
    { timeoutMs: 60_000 },
  );
}

export function configSet(namespace: string, name: string, spec: ConfigSet['spec']): ConfigSet {
  return { apiVersion: API_VERSION, kind: KIND, metadata: { name, namespace }, spec };
}

export function ref(namespace: string, name: string): ConfigSet {
  return { apiVersion: API_VERSION, kind: KIND, metadata: { name, namespace } };
}

/** The ConfigMaps composed for one XR, found by compositor's label. */
export async function composedOf(namespace: string, xr: string): Promise<ComposedConfigMap[]> {
  const list = await target().client.request<{ items: ComposedConfigMap[] }>(
    'GET',
    `/api/v1/namespaces/${namespace}/configmaps`,
    { query: { labelSelector: `${COMPOSITE_LABEL}=${xr}` } },
  );
  return list.items;
}

/** The XR once `check` holds for it; on timeout the error shows the XR's last status and compositor's log. */
export async function xrWhen(
  { namespace, name }: At,
  what: string,
  check: (xr: ConfigSet) => boolean,
  timeoutMs = 30_000,
): Promise<ConfigSet> {
  return withLogs(() =>
    eventually(
      `${namespace}/${name}: ${what}`,
      async () => {
        const xr = await get<ConfigSet>(target().client, ref(namespace, name));
        if (xr && check(xr)) return xr;
        throw new Error(
          `XR ${xr ? JSON.stringify({ metadata: xr.metadata.annotations, status: xr.status }) : 'absent'}`,
        );
      },
      { timeoutMs, intervalMs: 200 },
    ),
  );
}

/** Where an XR is: the e2e scenarios name XRs by namespace and name. */
export interface At {
  namespace: string;
  name: string;
}

export function at(namespace: string, name: string): At {
  return { namespace, name };
}

/** The XR's only composed ConfigMap, once there is exactly one. */
export async function oneComposed(xr: At): Promise<ComposedConfigMap> {
  const [only] = await composedWhen(xr, 'exactly one ConfigMap', (c) => c.length === 1);
  if (!only) throw new Error('unreachable: composedWhen checked the length');
  return only;
}

/** Resolves once the XR no longer exists (finalized and deleted). */
export async function xrGone({ namespace, name }: At, timeoutMs = 30_000): Promise<void> {
  await withLogs(() =>
    eventually(
      `${namespace}/${name} deleted`,
      async () => {
        const xr = await get<ConfigSet>(target().client, ref(namespace, name));
        if (!xr) return true;
        throw new Error(`XR still there: ${JSON.stringify({ metadata: xr.metadata, status: xr.status })}`);
      },
      { timeoutMs, intervalMs: 200 },
    ),
  );
}

/** The XR's composed ConfigMaps once `check` holds for them. */
export async function composedWhen(
  { namespace, name: xr }: At,
  what: string,
  check: (composed: ComposedConfigMap[]) => boolean,
  timeoutMs = 30_000,
): Promise<ComposedConfigMap[]> {
  return withLogs(() =>
    eventually(
      `${namespace}/${xr} composed: ${what}`,
      async () => {
        const composed = await composedOf(namespace, xr);
        if (check(composed)) return composed;
        throw new Error(
          `composed ${JSON.stringify(composed.map((c) => ({ name: c.metadata.name, data: c.data, deleting: c.metadata.deletionTimestamp })))}`,
        );
      },
      { timeoutMs, intervalMs: 200 },
    ),
  );
}

/** Adds compositor's recent log to a failure, since most e2e failures are explained there. */
export async function withLogs<T>(wait: () => Promise<T>): Promise<T> {
  try {
    return await wait();
  } catch (err) {
    const logs = await target().logs(30);
    throw new Error(`${(err as Error).message}\n--- compositor log (last lines):\n${logs}`, { cause: err });
  }
}

export function hasCondition(xr: ConfigSet, type: string, status: string, reason?: string): boolean {
  return (
    xr.status?.conditions?.some((c) => c.type === type && c.status === status && (!reason || c.reason === reason)) ??
    false
  );
}

export function isReady(xr: ConfigSet): boolean {
  return hasCondition(xr, 'Ready', 'True') && hasCondition(xr, 'Synced', 'True');
}

/** Another field manager overwrites data.color, as a person with kubectl or another controller would. */
export async function driftConfigMap(cm: ComposedConfigMap, color: string): Promise<void> {
  await target().client.request('PATCH', `/api/v1/namespaces/${cm.metadata.namespace}/configmaps/${cm.metadata.name}`, {
    body: { data: { color } },
    contentType: CONTENT_TYPE.mergePatch,
    query: { fieldManager: 'kubectl-edit' },
  });
}
