// The API the scale and fault benchmarks compose: a namespaced v2 XRD whose Composition composes M ConfigMaps with
// the built-in function-patch-and-transform (readinessChecks None, as the upstream figures were measured) followed
// by function-auto-ready, or with both called over gRPC at given endpoints (bench:scale --functions grpc); or, for the
// function fault, the probe function (a separate gRPC process) composing them.
import { COMPOSITE_LABEL } from '../../src/controller/index.js';
import { ENDPOINT_ANNOTATION } from '../../src/functions/index.js';
import { CONTENT_TYPE, isAlreadyExists, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { apply, AUTO_READY_FUNCTION, ensureNamespace, functions, PT_FUNCTION } from '../../test/integration/engine.js';
import { sleep, until } from './util.js';

export const GROUP = 'bench.compositor.crossplane.io';
export const PROBE_FUNCTION_NAME = 'function-probe';
const RESOURCE_NAME_ANNOTATION = 'crossplane.io/composition-resource-name';

export interface ScaleApi {
  kind: string;
  plural: string;
  apiVersion: string;
  /** compositor's controller label for this XR kind. */
  controller: string;
  composed: number;
  /** Composed by the probe function over gRPC rather than by the built-in P&T. */
  viaProbe: boolean;
}

export function scaleApi(kind: string, composed: number, viaProbe = false): ScaleApi {
  const plural = `${kind.toLowerCase()}s`;
  return {
    kind,
    plural,
    apiVersion: `${GROUP}/v1`,
    controller: `composite/${plural}.${GROUP}`,
    composed,
    viaProbe,
  };
}

/** The composition resource names of an API's composed ConfigMaps: cm-0 .. cm-(M-1). */
export function resourceNames(api: ScaleApi): string[] {
  return Array.from({ length: api.composed }, (_, i) => `cm-${i}`);
}

export interface ScaleXr extends KubeObject {
  metadata: KubeObject['metadata'] & { uid?: string; generation?: number; resourceVersion?: string };
  spec?: { value?: string };
  status?: {
    probe?: string;
    conditions?: { type: string; status: string; observedGeneration?: number }[];
  };
}

export interface ComposedConfigMap extends KubeObject {
  metadata: KubeObject['metadata'] & {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { uid: string; controller?: boolean }[];
  };
  data?: Record<string, string>;
}

/** A namespaced v2 XRD whose XRs have spec.value. */
export function definition(api: ScaleApi): KubeObject {
  const string = { type: 'string' };
  return {
    apiVersion: 'apiextensions.crossplane.io/v2',
    kind: 'CompositeResourceDefinition',
    metadata: { name: `${api.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: api.kind, plural: api.plural },
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
                spec: { type: 'object', properties: { value: string } },
                status: { type: 'object', properties: { probe: string, calls: { type: 'integer' } } },
              },
            },
          },
        },
      ],
    },
  };
}

/** cm-i: data.value follows spec.value; cm-0's data.probe (nobody composes it) is copied to status.probe. */
function ptResource(index: number): Record<string, unknown> {
  const patches: Record<string, unknown>[] = [
    { type: 'FromCompositeFieldPath', fromFieldPath: 'spec.value', toFieldPath: 'data.value' },
  ];
  if (index === 0)
    patches.push({ type: 'ToCompositeFieldPath', fromFieldPath: 'data.probe', toFieldPath: 'status.probe' });
  return {
    name: `cm-${index}`,
    base: { apiVersion: 'v1', kind: 'ConfigMap', data: { index: String(index) } },
    patches,
    readinessChecks: [{ type: 'None' }],
  };
}

function firstStep(api: ScaleApi): Record<string, unknown> {
  if (api.viaProbe) {
    return {
      step: 'probe',
      functionRef: { name: PROBE_FUNCTION_NAME },
      input: { apiVersion: 'probe.fn.compositor.io/v1', kind: 'Input', resources: resourceNames(api) },
    };
  }
  return {
    step: 'patch-and-transform',
    functionRef: { name: PT_FUNCTION },
    input: patchAndTransformInput(api.composed),
  };
}

/** The patch-and-transform step's input: `composed` ConfigMaps cm-0 .. cm-(composed-1). */
export function patchAndTransformInput(composed: number): Record<string, unknown> {
  return {
    apiVersion: 'pt.fn.crossplane.io/v1beta1',
    kind: 'Resources',
    resources: Array.from({ length: composed }, (_, i) => ptResource(i)),
  };
}

/** What a run adds to the Composition: Functions to install and steps between the first step and auto-ready. */
export interface ExtraSteps {
  functions: readonly KubeObject[];
  steps: readonly Record<string, unknown>[];
}

function composition(api: ScaleApi, extra?: ExtraSteps): KubeObject {
  return pipelineComposition(api, [
    firstStep(api),
    ...(extra?.steps ?? []),
    { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
  ]);
}

export const DEPENDENCY_FUNCTION_NAME = 'function-dependencies';

/**
 * The step declaring cm-1 -> cm-0, cm-2 -> cm-1, ... up to cm-(chain-1), for --chain: the built-in
 * patch-and-transform cannot declare dependencies, so a step of test/functions/dependency-function.ts does.
 */
export function chainStep(chain: number): Record<string, unknown> {
  const dependencies = Array.from({ length: Math.max(0, chain - 1) }, (_, i) => ({
    resource: `cm-${i + 1}`,
    dependsOn: `cm-${i}`,
  }));
  return {
    step: 'dependencies',
    functionRef: { name: DEPENDENCY_FUNCTION_NAME },
    input: { apiVersion: 'dependencies.fn.compositor.test/v1', kind: 'Input', dependencies },
  };
}

/** A Pipeline-mode Composition of `api`'s XRs, named as its plural (waitUntilServed looks for its revision so). */
export function pipelineComposition(api: ScaleApi, pipeline: readonly Record<string, unknown>[]): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: api.plural },
    spec: { compositeTypeRef: { apiVersion: api.apiVersion, kind: api.kind }, mode: 'Pipeline', pipeline },
  };
}

/** Where compositor keeps its Secrets and Lease: --leader-election-namespace's default, the chart's namespace. */
const COMPOSITOR_NAMESPACE = 'crossplane-system';

/** The probe function (test/functions/probe-function.ts) reached at `endpoint` over plaintext gRPC. */
export function probeFunction(endpoint: string): KubeObject {
  return endpointFunction(PROBE_FUNCTION_NAME, endpoint);
}

/** A Function compositor calls at `endpoint` (its endpoint annotation) rather than running its package. */
export function endpointFunction(name: string, endpoint: string): KubeObject {
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'Function',
    metadata: { name, annotations: { [ENDPOINT_ANNOTATION]: endpoint } },
    spec: { package: `xpkg.example.org/bench/${name}:v0.1.0` },
  };
}

export interface InstallOptions {
  extra?: ExtraSteps;
  /**
   * gRPC targets by Function name: those of patch-and-transform and auto-ready named here carry compositor's endpoint
   * annotation from their first apply, so compositor calls them there (bench:scale --functions grpc) and never runs
   * them in-process or as packages.
   */
  endpoints?: Readonly<Record<string, string>>;
}

/** The Function with compositor's endpoint annotation when `endpoints` names it; its package stays upstream's. */
function atEndpoint(fn: KubeObject, endpoints: Readonly<Record<string, string>>): KubeObject {
  const endpoint = endpoints[fn.metadata.name];
  if (endpoint === undefined) return fn;
  return { ...fn, metadata: { ...fn.metadata, annotations: { [ENDPOINT_ANNOTATION]: endpoint } } };
}

/**
 * Installs the Functions, the XRD and the Composition, and waits until the API is ready for XRs: the XRD Established,
 * the Composition's first revision stored and the API server's hold on creates of a new CRD over.
 */
export async function installApi(
  client: KubeClient,
  api: ScaleApi,
  namespace: string,
  { extra, endpoints = {} }: InstallOptions = {},
): Promise<void> {
  await ensureNamespace(client, namespace);
  // compositor's own namespace, as the chart's release namespace exists: the function runtime keeps its certificate
  // Secrets there, and without it compositor retries creating them about once a minute, which is no steady state.
  await ensureNamespace(client, COMPOSITOR_NAMESPACE);
  for (const fn of [...functions().map((f) => atEndpoint(f, endpoints)), ...(extra?.functions ?? [])]) {
    await apply(client, fn);
  }
  await apply(client, definition(api));
  await apply(client, composition(api, extra));
  await waitUntilServed(client, api);
}

/**
 * Waits until an API is ready for XRs: its XRD Established, the first revision of its Composition (named as the
 * plural) stored, and the API server's hold on creates of a new CRD over.
 */
export async function waitUntilServed(client: KubeClient, api: ScaleApi): Promise<void> {
  await until(
    `XRD ${api.plural}.${GROUP} Established`,
    async () => {
      const xrd = await client.request<ScaleXr>(
        'GET',
        `/apis/apiextensions.crossplane.io/v1/compositeresourcedefinitions/${api.plural}.${GROUP}`,
      );
      return xrd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
  // XRs created before their Composition's revision exists are reconciled once more when it appears, in any
  // controller: a platform's Compositions are in place before its users create XRs, and the figures are about those.
  await until(
    `a CompositionRevision of Composition ${api.plural}`,
    async () => {
      const revisions = await client.request<{ items: unknown[] }>(
        'GET',
        '/apis/apiextensions.crossplane.io/v1/compositionrevisions',
        { query: { labelSelector: `crossplane.io/composition-name=${api.plural}` } },
      );
      return revisions.items.length > 0 ? true : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 100 },
  );
  await waitOutCreateHold(client, `${api.plural}.${GROUP}`);
}

/**
 * kube-apiserver's custom resource handler holds every create for 2 s while the CRD has been Established for less
 * than 2 s (time for other API servers to catch up), judged on the condition's lastTransitionTime, which has second
 * precision. A benchmark creating XRs the moment the XRD is Established times that hold, with both cores idle, as
 * the controller's (2.0 s of a 1,000-XR run): wait until the hold is over, so the timed phase starts with creates the
 * API server serves at once. Users create XRs long after their XRD; the figures are about the controller.
 */
async function waitOutCreateHold(client: KubeClient, crdName: string): Promise<void> {
  const crd = await client.request<{
    status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
  }>('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`);
  const established = crd.status?.conditions?.find((c) => c.type === 'Established' && c.status === 'True');
  const since = Date.parse(established?.lastTransitionTime ?? '');
  if (Number.isNaN(since)) throw new Error(`CRD ${crdName} has no Established time: ${JSON.stringify(crd.status)}`);
  // A little over the 2 s, for the API server's and this process's clocks read at different moments.
  const remaining = since + CREATE_HOLD_MS + 100 - Date.now();
  if (remaining > 0) await sleep(remaining);
}

/** How long after its CRD is Established kube-apiserver holds a custom resource's create. */
const CREATE_HOLD_MS = 2_000;

export function xrPath(api: ScaleApi, namespace: string, name?: string): string {
  const base = `/apis/${api.apiVersion}/namespaces/${namespace}/${api.plural}`;
  return name === undefined ? base : `${base}/${name}`;
}

/** Runs `work` over `items` with at most `concurrency` in flight. */
export async function forEachBounded<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** Creates one XR per name with spec.value `value`, `concurrency` clients in parallel. */
export async function createXrs(
  client: KubeClient,
  target: { api: ScaleApi; namespace: string },
  names: readonly string[],
  options: { value: string; concurrency?: number },
): Promise<void> {
  await forEachBounded(names, options.concurrency ?? 16, (name) => createXr(client, target, name, options.value));
}

/** Creates one XR with spec.value `value`; one that already exists is left as it is. */
export async function createXr(
  client: KubeClient,
  target: { api: ScaleApi; namespace: string },
  name: string,
  value: string,
): Promise<void> {
  const { api, namespace } = target;
  await client
    .request('POST', xrPath(api, namespace), {
      body: { apiVersion: api.apiVersion, kind: api.kind, metadata: { name, namespace }, spec: { value } },
    })
    // A create sent again after its connection closed may have been served the first time.
    .catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
}

/** Sets spec.value of the named XRs (merge patch). */
export async function patchXrs(
  client: KubeClient,
  target: { api: ScaleApi; namespace: string },
  names: readonly string[],
  value: string,
): Promise<void> {
  await forEachBounded(names, 16, async (name) => {
    await client.request('PATCH', xrPath(target.api, target.namespace, name), {
      body: { spec: { value } },
      contentType: CONTENT_TYPE.mergePatch,
    });
  });
}

/**
 * Reads a collection in pages of 500, so a list of 10,000 XRs stays cheap for the API server, and hands each page to
 * `onPage` as it arrives: a caller that keeps only what it needs of each item never holds the whole collection.
 * Resolves with the list's resourceVersion, to watch on from.
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the kind it reads
export async function forEachPage<T>(
  client: KubeClient,
  path: string,
  onPage: (items: T[]) => void,
  query: Record<string, string> = {},
): Promise<string> {
  let cont: string | undefined;
  let resourceVersion = '';
  do {
    const page = await client.request<{ items: T[]; metadata: { continue?: string; resourceVersion?: string } }>(
      'GET',
      path,
      { query: { ...query, limit: 500, continue: cont } },
    );
    onPage(page.items);
    cont = page.metadata.continue === '' ? undefined : page.metadata.continue;
    resourceVersion = page.metadata.resourceVersion ?? resourceVersion;
  } while (cont !== undefined);
  return resourceVersion;
}

/** Every item of a collection, read in pages of 500 (forEachPage). */
export async function listAll<T>(client: KubeClient, path: string, query: Record<string, string> = {}): Promise<T[]> {
  const items: T[] = [];
  await forEachPage<T>(
    client,
    path,
    (page) => {
      for (const item of page) items.push(item);
    },
    query,
  );
  return items;
}

export function isReady(xr: ScaleXr): boolean {
  return xr.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** Where the composed ConfigMaps of `namespace` are: compositor and Crossplane label them with their XR. */
function composedCollection(namespace: string): { path: string; query: Record<string, string> } {
  return { path: `/api/v1/namespaces/${namespace}/configmaps`, query: { labelSelector: COMPOSITE_LABEL } };
}

/** Every composed ConfigMap in the namespace. */
export function listComposed(client: KubeClient, namespace: string): Promise<ComposedConfigMap[]> {
  const { path, query } = composedCollection(namespace);
  return listAll<ComposedConfigMap>(client, path, query);
}

/** The composed ConfigMaps of listComposed, a page at a time (forEachPage). */
export async function forEachComposed(
  client: KubeClient,
  namespace: string,
  onPage: (items: ComposedConfigMap[]) => void,
): Promise<void> {
  const { path, query } = composedCollection(namespace);
  await forEachPage<ComposedConfigMap>(client, path, onPage, query);
}

export function controllerUid(cm: ComposedConfigMap): string | undefined {
  return cm.metadata.ownerReferences?.find((o) => o.controller === true)?.uid;
}

export function resourceNameOf(cm: ComposedConfigMap): string | undefined {
  return cm.metadata.annotations?.[RESOURCE_NAME_ANNOTATION];
}
