// `compositor diagnose <resource> <name> [-n ns] [-o json]` (or `--stuck`, see stuckXrs.ts, or no arguments for an
// overview, see diagnoseOverview.ts): reads the cluster and says why a resource is or is not reconciling. What it
// reads is gathered here; what it concludes is in diagnosis.ts.
import { groupOf } from '../apis/index.js';
import { dateOf, errorMessage, systemClock, type Clock } from '../base/index.js';
import type { Condition } from '../controller/index.js';
import { Discovery, getIfExists, KubeClient, loadKubeConfig } from '../kube/index.js';
import { LEASE_NAME } from '../manager/index.js';
import {
  diagnose,
  isOperation,
  type ComposedFacts,
  type EventFacts,
  type Facts,
  type LeaseFacts,
} from './diagnosis.js';
import { formatOverview, type Overview } from './diagnoseOverview.js';
import { kubeconfigSource } from './environment.js';
import type { Output } from './start.js';
import { problemOperations } from './problemOperations.js';
import { apiVersionOf, resolveResourceArg, type ServedResource } from './resourceArg.js';
import { formatStuck, stuckXrs } from './stuckXrs.js';

export interface DiagnoseOptions {
  /** The resource type to diagnose; empty (with `name`) for the overview: stuck XRs of every kind and the leader. */
  resource: string;
  name: string;
  /** List the longest-stuck XRs instead of diagnosing one resource. */
  stuck?: boolean;
  /** How many stuck XRs --stuck and the overview list; 10 by default. */
  limit?: number;
  namespace?: string;
  output: 'text' | 'json';
  kubeconfig?: string;
  leaderElectionNamespace: string;
  circuitBreakerCooldownMs: number;
}

type Object = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; generation?: number; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: {
    conditions?: Condition[];
    effectivePollInterval?: string;
    lastHandledReconcileAt?: string;
    appliedResourceRefs?: ComposedFacts[];
  };
};

async function leaseFacts(client: KubeClient, namespace: string): Promise<LeaseFacts | undefined> {
  const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${LEASE_NAME}`;
  const lease = await getIfExists<{
    spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
  }>(client, path).catch((err: unknown) => {
    throw new Error(`cannot read lease ${namespace}/${LEASE_NAME}: ${errorMessage(err)}`, { cause: err });
  });
  if (!lease) return undefined;
  const spec = lease.spec ?? {};
  return {
    namespace,
    name: LEASE_NAME,
    holder: spec.holderIdentity ?? '',
    renewTime: spec.renewTime,
    leaseDurationSeconds: spec.leaseDurationSeconds,
  };
}

async function xrdFacts(client: KubeClient, r: ServedResource): Promise<Facts['xrd']> {
  const list = await client.request<{ items: (Object & { spec: { group?: string; names?: { kind?: string } } })[] }>(
    'GET',
    '/apis/apiextensions.crossplane.io/v1/compositeresourcedefinitions',
  );
  const xrd = list.items.find((x) => x.spec.group === r.group && x.spec.names?.kind === r.kind);
  if (!xrd) return undefined;
  return { name: xrd.metadata.name, established: xrd.status?.conditions?.find((c) => c.type === 'Established') };
}

/** An XR's composed resources, or what an Operation applied. */
function referenced(object: Object): ComposedFacts[] {
  if (isOperation(groupOf(object.apiVersion), object.kind)) return object.status?.appliedResourceRefs ?? [];
  const spec = object.spec ?? {};
  const crossplane = (spec.crossplane ?? {}) as { resourceRefs?: unknown };
  return (crossplane.resourceRefs ?? spec.resourceRefs ?? []) as ComposedFacts[];
}

/** Each resource the object references, found through discovery at the version it was composed (or applied) at. */
async function composedFacts(client: KubeClient, discovery: Discovery, object: Object): Promise<ComposedFacts[]> {
  const refs = referenced(object);
  return Promise.all(
    refs.map(async (ref) => {
      const info = await discovery.resolve(ref.apiVersion, ref.kind).catch(() => undefined);
      const namespace = info?.namespaced ? (ref.namespace ?? object.metadata.namespace) : undefined;
      const path = info && (await discovery.path(ref.apiVersion, ref.kind, ref.name, namespace));
      const found = path === undefined ? undefined : await getIfExists<Object>(client, path);
      const ready = found ? found.status?.conditions?.find((c) => c.type === 'Ready')?.status : 'missing';
      return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace, ready };
    }),
  );
}

async function warningFacts(client: KubeClient, object: Object): Promise<EventFacts[]> {
  const scope = object.metadata.namespace ? `/namespaces/${object.metadata.namespace}` : '';
  const list = await client.request<{
    items: {
      type?: string;
      reason?: string;
      note?: string;
      eventTime?: string;
      series?: { lastObservedTime?: string };
      regarding?: { kind?: string; name?: string };
    }[];
  }>('GET', `/apis/events.k8s.io/v1${scope}/events`, {
    // The API server picks the object's Warnings, rather than sending every Event of the namespace.
    query: { fieldSelector: `regarding.kind=${object.kind},regarding.name=${object.metadata.name},type=Warning` },
  });
  return list.items
    .filter(
      (e) => e.type === 'Warning' && e.regarding?.kind === object.kind && e.regarding.name === object.metadata.name,
    )
    .map((e) => ({
      type: 'Warning',
      reason: e.reason ?? '',
      message: e.note ?? '',
      time: e.series?.lastObservedTime ?? e.eventTime,
    }))
    .sort((a, b) => (b.time ?? '').localeCompare(a.time ?? ''));
}

async function gather(client: KubeClient, options: DiagnoseOptions): Promise<Facts> {
  const r = await resolveResourceArg(client, options.resource);
  const namespace = r.namespaced ? (options.namespace ?? 'default') : undefined;
  const facts: Facts = {
    resource: { group: r.group, kind: r.kind, name: options.name, namespace },
    xrd: await xrdFacts(client, r),
    composed: [],
    warnings: [],
    circuitBreakerCooldownMs: options.circuitBreakerCooldownMs,
  };
  // The lease and the Events only inform the diagnosis: one that cannot be read is said, not fatal.
  await leaseFacts(client, options.leaderElectionNamespace).then(
    (lease) => {
      if (lease) facts.lease = lease;
    },
    (err: unknown) => {
      facts.leaseError = errorMessage(err);
    },
  );
  const discovery = new Discovery(client);
  const object = await getIfExists<Object>(
    client,
    await discovery.path(apiVersionOf(r), r.kind, options.name, namespace),
  );
  if (!object) return facts;
  facts.object = {
    generation: object.metadata.generation,
    annotations: object.metadata.annotations ?? {},
    conditions: object.status?.conditions ?? [],
    effectivePollInterval: object.status?.effectivePollInterval,
    lastHandledReconcileAt: object.status?.lastHandledReconcileAt,
  };
  facts.composed = await composedFacts(client, discovery, object);
  facts.warnings = await warningFacts(client, object).catch((err: unknown) => {
    facts.warningsError = `cannot list Events: ${errorMessage(err)}`;
    return [];
  });
  return facts;
}

function asJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * The overview's three sections, each read on its own: a section that cannot be read says why in its place. Only
 * when none can be read is it a failure (the cluster is unreachable, or the credentials are wrong).
 */
export async function readOverview(
  client: KubeClient,
  leaseNamespace: string,
  nowMs: number,
  limit: number,
): Promise<Overview> {
  const [xrs, operations, lease] = await Promise.allSettled([
    stuckXrs(client, nowMs, limit),
    problemOperations(client, nowMs, limit),
    leaseFacts(client, leaseNamespace),
  ]);
  if (xrs.status === 'rejected' && operations.status === 'rejected' && lease.status === 'rejected') throw xrs.reason;
  const overview: Overview = xrs.status === 'fulfilled' ? xrs.value : { stuck: [], total: 0 };
  const failed: NonNullable<Overview['failed']> = {};
  if (xrs.status === 'rejected') failed.xrs = `cannot list the XRDs: ${errorMessage(xrs.reason)}`;
  if (operations.status === 'rejected') failed.operations = errorMessage(operations.reason);
  else if (operations.value) overview.operations = operations.value;
  if (lease.status === 'rejected') failed.lease = errorMessage(lease.reason);
  else if (lease.value) overview.lease = lease.value;
  if (Object.keys(failed).length > 0) overview.failed = failed;
  return overview;
}

/** What diagnose prints: the stuck listing, the overview (no resource given), or one resource's diagnosis. */
async function report(client: KubeClient, options: DiagnoseOptions, now: Date): Promise<string> {
  const json = options.output === 'json';
  const limit = options.limit ?? 10;
  if (options.stuck === true) {
    const listing = await stuckXrs(client, now.getTime(), limit);
    return json ? asJson(listing) : formatStuck(listing);
  }
  if (options.resource === '') {
    const overview = await readOverview(client, options.leaderElectionNamespace, now.getTime(), limit);
    return json ? asJson(overview) : formatOverview(overview, now);
  }
  const facts = await gather(client, options);
  const diagnosis = diagnose(facts, now);
  if (json) return asJson({ ...diagnosis, facts });
  return `${diagnosis.cause}\n${diagnosis.details.map((d) => `  ${d}`).join('\n')}\n`;
}

/** Prints the diagnosis; 0 when it could read the cluster, 1 (one line) when it could not. */
export async function runDiagnose(
  options: DiagnoseOptions,
  output: Output,
  clock: Pick<Clock, 'now'> = systemClock,
): Promise<number> {
  try {
    const client = new KubeClient(loadKubeConfig(kubeconfigSource(options.kubeconfig)));
    output.stdout(await report(client, options, dateOf(clock)));
    return 0;
  } catch (err) {
    output.stderr(`compositor diagnose: ${errorMessage(err)}\n`);
    return 1;
  }
}
