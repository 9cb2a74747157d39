import pino from 'pino';
import { loadCrds } from '../../src/apis/index.js';
import { createEngine, type Engine } from '../../src/engine/index.js';
import { flagDefaults, type StartConfig } from '../../src/cli/flags.js';
import { CONTENT_TYPE, Discovery, ensureCrds, isNotFound, KubeClient, type KubeObject } from '../../src/kube/index.js';
import { ENDPOINT_ANNOTATION } from '../../src/functions/index.js';
import { createMetrics, type Metrics } from '../../src/metrics/index.js';
import { controlPlane, eventually } from './harness.js';

// Runs the composition engine in-process against the shared control plane, and the objects the engine tests use:
// an XRD per test group, built-in patch-and-transform and auto-ready Functions, a Composition of ConfigMaps.

export interface RunningEngine {
  engine: Engine;
  metrics: Metrics;
  client: KubeClient;
  stop(): Promise<void>;
  /** API write requests (POST, PUT, PATCH, DELETE) compositor has made so far. */
  writes(): Promise<number>;
  /** Each write request compositor has sent so far, as "METHOD path", for a test's failure message. */
  writeLog(): readonly string[];
  /** Each read request (GET: a get or a list, not a watch) compositor has sent so far, as "GET path?query". */
  readLog(): readonly string[];
  /** Reconciles of one controller so far. */
  reconciles(controller: string): Promise<number>;
}

export async function startEngine(
  overrides: Partial<StartConfig> = {},
  wiring: { functionDialOverrides?: Readonly<Record<string, string>> } = {},
): Promise<RunningEngine> {
  const plane = controlPlane();
  const defaults = flagDefaults();
  const config = {
    ...defaults,
    // As finishConfig derives it: the concurrency follows the reconcile rate unless set.
    maxConcurrentReconciles: overrides.maxReconcileRate ?? defaults.maxReconcileRate,
    kubeconfig: undefined,
    gracefulShutdownTimeoutMs: 5_000,
    ...overrides,
  } as StartConfig;
  const metrics = createMetrics({ processMetrics: false });
  const client = new KubeClient(plane.kubeConfig, (method, code) => {
    metrics.restClientRequests.inc({ method, code });
  });
  const { writes: sentWrites, reads: sentReads } = logRequests(client);
  await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
  // compositor's namespace, as the chart's release namespace: the package runtime keeps its Secrets there.
  await ensureNamespace(client, config.leaderElectionNamespace);
  const log = pino({ level: process.env.ENGINE_LOG ?? 'silent' });
  const engine = createEngine({ client, config, metrics, log, ...wiring });
  await engine.start(new AbortController().signal);
  const sum = async (
    name: string,
    match: (labels: Partial<Record<string, string | number>>) => boolean,
  ): Promise<number> => {
    const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
    return (metric?.values ?? []).filter((v) => match(v.labels)).reduce((total, v) => total + v.value, 0);
  };
  return {
    engine,
    metrics,
    client,
    stop: () => engine.stop(AbortSignal.timeout(5_000)),
    writes: () => sum('rest_client_requests_total', (l) => WRITE_VERBS.has(String(l.method))),
    writeLog: () => sentWrites,
    readLog: () => sentReads,
    reconciles: (controller) => sum('controller_runtime_reconcile_total', (l) => l.controller === controller),
  };
}

const WRITE_VERBS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Notes every write request the client sends, as "METHOD path", followed by the name of the object in the body when
 * the path does not end with it (a POST, an Event's name starts with the name of the object it is about). The metrics
 * only count writes; a test that expects none says which were made. Reads (watches go through their own connection)
 * are noted as "GET path?query", the query's set values only.
 */
function logRequests(client: KubeClient): { writes: readonly string[]; reads: readonly string[] } {
  const writes: string[] = [];
  const reads: string[] = [];
  const request = client.request.bind(client);
  client.request = (method, path, options) => {
    if (WRITE_VERBS.has(method)) {
      const body = options?.body as { metadata?: { name?: string } } | undefined;
      const name = body?.metadata?.name;
      writes.push(writeLine(method, path, name, options?.query?.dryRun !== undefined));
    } else if (method === 'GET') {
      reads.push(readLine(path, options?.query));
    }
    return request(method, path, options);
  };
  return { writes, reads };
}

/** "METHOD path (name)"; a dry run persists nothing, so it is marked for counts of writes to tell it apart. */
function writeLine(method: string, path: string, name: string | undefined, dryRun: boolean): string {
  const line = name === undefined || path.endsWith(`/${name}`) ? `${method} ${path}` : `${method} ${path} (${name})`;
  return dryRun ? `${line} (dry run)` : line;
}

/** "GET path?query", with the query's set values only. */
function readLine(path: string, query: Record<string, unknown> | undefined): string {
  const set = Object.entries(query ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join('&');
  return set === '' ? `GET ${path}` : `GET ${path}?${set}`;
}

export const PT_FUNCTION = 'function-patch-and-transform';
export const AUTO_READY_FUNCTION = 'function-auto-ready';

/** Creates or replaces an object (apply as the test's own field manager). */
export async function apply<T extends KubeObject>(client: KubeClient, object: T): Promise<T> {
  const path = await pathOf(client, object);
  return client.request<T>('PATCH', path, {
    body: object,
    contentType: CONTENT_TYPE.apply,
    query: { fieldManager: 'integration-test', force: true },
  });
}

export async function get<T extends KubeObject>(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } },
): Promise<T | undefined> {
  try {
    return await client.request<T>('GET', await pathOf(client, ref));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function remove(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } },
): Promise<void> {
  await client.request('DELETE', await pathOf(client, ref)).catch((err: unknown) => {
    if (!isNotFound(err)) throw err;
  });
}

export async function mergePatch(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } },
  patch: unknown,
): Promise<KubeObject> {
  return client.request<KubeObject>('PATCH', await pathOf(client, ref), {
    body: patch,
    contentType: CONTENT_TYPE.mergePatch,
  });
}

/** A fresh Discovery per call: tests install and delete CRDs, so nothing is cached between calls. */
function pathOf(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } },
): Promise<string> {
  return new Discovery(client).path(ref.apiVersion, ref.kind, ref.metadata.name, ref.metadata.namespace);
}

export async function ensureNamespace(client: KubeClient, name: string): Promise<void> {
  await apply(client, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

export function functions(): KubeObject[] {
  return [
    {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: PT_FUNCTION },
      spec: { package: 'xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8' },
    },
    {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: AUTO_READY_FUNCTION },
      spec: { package: 'xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0' },
    },
  ];
}

export interface TestApi {
  group: string;
  kind: string;
  plural: string;
  apiVersion: string;
  controller: string;
  scope: 'Namespaced' | 'Cluster' | 'LegacyCluster';
}

export function testApi(group: string, kind: string, scope: TestApi['scope'] = 'Namespaced'): TestApi {
  const plural = `${kind.toLowerCase()}s`;
  return { group, kind, plural, apiVersion: `${group}/v1`, controller: `composite/${plural}.${group}`, scope };
}

export function xrd(api: TestApi): KubeObject {
  return {
    apiVersion: api.scope === 'LegacyCluster' ? 'apiextensions.crossplane.io/v1' : 'apiextensions.crossplane.io/v2',
    kind: 'CompositeResourceDefinition',
    metadata: { name: `${api.plural}.${api.group}` },
    spec: {
      group: api.group,
      names: { kind: api.kind, plural: api.plural },
      scope: api.scope,
      versions: [
        {
          name: 'v1',
          served: true,
          referenceable: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { image: { type: 'string' } } },
                status: { type: 'object', properties: { image: { type: 'string' } } },
              },
            },
          },
        },
      ],
    },
  };
}

/** The status the probe function reports (its call count and the required resources it was sent), declared so the
 * XR CRD, which keeps no unknown status fields as Crossplane's, does not refuse it. */
export const PROBE_STATUS = {
  type: 'object',
  properties: {
    calls: { type: 'integer' },
    required: {
      type: 'array',
      items: { type: 'object', nullable: true, 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
};

/** A Function reached at `endpoint` (plaintext gRPC) through compositor's endpoint annotation. */
export interface EndpointFunction {
  name: string;
  endpoint: string;
  package?: string;
}

/**
 * The API of a test that runs its own function processes: the XRD (with `status` as its status schema, when given),
 * each Function reached through the endpoint annotation, and a Pipeline Composition of `pipeline`.
 */
export async function installFunctionApi(
  client: KubeClient,
  api: TestApi,
  options: { status?: object; fn: EndpointFunction | readonly EndpointFunction[]; pipeline: unknown[] },
): Promise<void> {
  const definition = xrd(api) as KubeObject & { spec: { versions: { schema: unknown }[] } };
  if (options.status) {
    const schema = { openAPIV3Schema: { type: 'object', properties: { status: options.status } } };
    definition.spec.versions = definition.spec.versions.map((version) => ({ ...version, schema }));
  }
  await apply(client, definition);
  const fns: readonly EndpointFunction[] = 'name' in options.fn ? [options.fn] : options.fn;
  for (const fn of fns) {
    await apply(client, {
      apiVersion: 'pkg.crossplane.io/v1',
      kind: 'Function',
      metadata: { name: fn.name, annotations: { [ENDPOINT_ANNOTATION]: fn.endpoint } },
      spec: { package: fn.package ?? 'example.org/probe:v0.1.0' },
    });
  }
  await apply(client, {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: api.plural },
    spec: {
      compositeTypeRef: { apiVersion: api.apiVersion, kind: api.kind },
      mode: 'Pipeline',
      pipeline: options.pipeline,
    },
  });
}

/** A Composition of one ConfigMap whose data.image follows the XR's spec.image, then auto-ready. */
export function composition(api: TestApi, name = api.plural, options: { functionName?: string } = {}): KubeObject {
  const settings = {
    name: 'settings',
    base: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      ...(api.scope === 'Namespaced' ? {} : { metadata: { namespace: 'default' } }),
      data: { image: '' },
    },
    patches: [
      { type: 'FromCompositeFieldPath', fromFieldPath: 'spec.image', toFieldPath: 'data.image' },
      { type: 'ToCompositeFieldPath', fromFieldPath: 'data.image', toFieldPath: 'status.image' },
    ],
  };
  return ptComposition(api, [settings], { name, functionName: options.functionName });
}

/** A Composition whose pipeline is patch-and-transform over `resources` (its Resources input), then auto-ready. */
export function ptComposition(
  api: Pick<TestApi, 'apiVersion' | 'kind' | 'plural'>,
  resources: unknown[],
  options: { name?: string; functionName?: string } = {},
): KubeObject {
  return {
    apiVersion: 'apiextensions.crossplane.io/v1',
    kind: 'Composition',
    metadata: { name: options.name ?? api.plural },
    spec: {
      compositeTypeRef: { apiVersion: api.apiVersion, kind: api.kind },
      mode: 'Pipeline',
      pipeline: [
        {
          step: 'patch-and-transform',
          functionRef: { name: options.functionName ?? PT_FUNCTION },
          input: { apiVersion: 'pt.fn.crossplane.io/v1beta1', kind: 'Resources', resources },
        },
        { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
      ],
    },
  };
}

export async function installApi(client: KubeClient, api: TestApi): Promise<void> {
  for (const fn of functions()) await apply(client, fn);
  await apply(client, xrd(api));
  await apply(client, composition(api));
  await eventually(`XRD ${api.plural}.${api.group} Established`, async () => {
    const stored = await get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(client, {
      apiVersion: 'apiextensions.crossplane.io/v1',
      kind: 'CompositeResourceDefinition',
      metadata: { name: `${api.plural}.${api.group}` },
    });
    return stored?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  });
}

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message?: string;
}

export type XrObject = KubeObject & {
  metadata: KubeObject['metadata'] & { uid?: string; annotations?: Record<string, string>; generation?: number };
  status?: {
    conditions?: Condition[];
    image?: string;
    effectivePollInterval?: string;
    lastHandledReconcileAt?: string;
  };
  spec?: { crossplane?: { resourceRefs?: { apiVersion: string; kind: string; name: string }[] } };
};

export function condition(object: XrObject | undefined, type: string): Condition | undefined {
  return object?.status?.conditions?.find((c) => c.type === type);
}

export interface EventObject {
  reason: string;
  type: string;
  note?: string;
  series?: { count: number };
  regarding: { name: string; kind: string; uid?: string };
}

/** events.k8s.io/v1 Events about one object (by uid), optionally of one reason. */
export async function eventsFor(
  client: KubeClient,
  namespace: string,
  uid: string,
  reason?: string,
): Promise<EventObject[]> {
  const list = await client.request<{ items: EventObject[] }>(
    'GET',
    `/apis/events.k8s.io/v1/namespaces/${namespace}/events`,
  );
  return list.items.filter((e) => e.regarding.uid === uid && (reason === undefined || e.reason === reason));
}

/** Occurrences of events (series counts summed) about one object. */
export function occurrences(events: readonly EventObject[]): number {
  return events.reduce((total, e) => total + (e.series?.count ?? 1), 0);
}
