// function-auto-ready's per-kind health checks (healthchecks/*.go, ArgoCD style), keyed by apiVersion/kind.
// A kind without a check here falls back to the Ready condition.
import type { JsonObject } from '../../types.js';

type Obj = Record<string, unknown>;
export type HealthCheck = (object: JsonObject) => boolean;

function get(o: unknown, ...path: string[]): unknown {
  let v: unknown = o;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Obj)[p] : undefined;
  return v;
}

/** registry.go getInt64Field: an int64 or a float64 truncated toward zero; undefined when absent or not a number. */
function num(o: unknown, ...path: string[]): number | undefined {
  const v = get(o, ...path);
  return typeof v === 'number' ? Math.trunc(v) : undefined;
}

function conditions(o: unknown): { type?: string; status?: string }[] {
  const c = get(o, 'status', 'conditions');
  const list: unknown[] = Array.isArray(c) ? c : [];
  return list.filter((e): e is { type?: string; status?: string } => e !== null && typeof e === 'object');
}

function conditionTrue(o: unknown, type: string): boolean {
  return conditions(o).some((c) => c.type === type && c.status === 'True');
}

function lbIngress(o: unknown): boolean {
  const ingress = get(o, 'status', 'loadBalancer', 'ingress');
  return Array.isArray(ingress) && ingress.length > 0;
}

const always: HealthCheck = () => true;

// deployment.go: updatedReplicas and availableReplicas must be present, then an Available=True condition.
const deployment: HealthCheck = (o) => {
  const replicas = num(o, 'spec', 'replicas') ?? 1;
  return (
    replicas === num(o, 'status', 'updatedReplicas') &&
    replicas === num(o, 'status', 'availableReplicas') &&
    conditionTrue(o, 'Available')
  );
};

// statefulset.go: readyReplicas and currentReplicas must be present, and both revisions present and equal.
const statefulSet: HealthCheck = (o) => {
  const replicas = num(o, 'spec', 'replicas') ?? 1;
  const current = get(o, 'status', 'currentRevision');
  return (
    replicas === num(o, 'status', 'readyReplicas') &&
    replicas === num(o, 'status', 'currentReplicas') &&
    typeof current === 'string' &&
    current === get(o, 'status', 'updateRevision')
  );
};

// daemonset.go: all four counters present and equal.
const daemonSet: HealthCheck = (o) => {
  const fields = ['desiredNumberScheduled', 'numberReady', 'updatedNumberScheduled', 'numberAvailable'];
  const values = fields.map((f) => num(o, 'status', f));
  return values.every((v) => v !== undefined && v === values[0]);
};

const replicaSet: HealthCheck = (o) => {
  if ((num(o, 'status', 'observedGeneration') ?? 0) < (num(o, 'metadata', 'generation') ?? 0)) return false;
  if (conditionTrue(o, 'ReplicaFailure')) return false;
  return (num(o, 'status', 'availableReplicas') ?? 0) >= (num(o, 'spec', 'replicas') ?? 1);
};

const pod: HealthCheck = (o) => {
  const phase = get(o, 'status', 'phase');
  if (phase === 'Succeeded') return true;
  // pod.go reads the typed Pod: a missing restartPolicy is "", not the API server's default Always.
  return phase === 'Running' && get(o, 'spec', 'restartPolicy') === 'Always' && conditionTrue(o, 'Ready');
};

const job: HealthCheck = (o) => {
  for (const c of conditions(o)) {
    if (c.status !== 'True') continue;
    if (c.type === 'Complete') return true;
    if (c.type === 'Failed' || c.type === 'Suspended') return false;
  }
  return false;
};

const cronJob: HealthCheck = (o) => {
  if (get(o, 'spec', 'suspend') === true) return true;
  const lastSchedule = get(o, 'status', 'lastScheduleTime');
  if (typeof lastSchedule !== 'string') return false;
  const active = get(o, 'status', 'active');
  if (Array.isArray(active) && active.length > 0) return true;
  const lastSuccess = get(o, 'status', 'lastSuccessfulTime');
  return typeof lastSuccess === 'string' && Date.parse(lastSuccess) >= Date.parse(lastSchedule);
};

const HPA_FAILURES = new Set(['FailedGetScale', 'FailedUpdateScale', 'FailedGetResourceMetric', 'InvalidSelector']);

const hpa: HealthCheck = (o) => {
  for (const c of conditions(o)) {
    if (c.status !== 'True') continue;
    if (HPA_FAILURES.has(c.type ?? '')) return false;
    if (c.type === 'ScalingActive' || c.type === 'ScalingLimited') return true;
  }
  return false;
};

export const HEALTH_CHECKS: ReadonlyMap<string, HealthCheck> = new Map([
  ['v1/ConfigMap', always],
  ['v1/Secret', always],
  ['v1/ServiceAccount', always],
  ['v1/Namespace', always],
  ['v1/Service', (o) => get(o, 'spec', 'type') !== 'LoadBalancer' || lbIngress(o)],
  ['networking.k8s.io/v1/Ingress', lbIngress],
  ['apps/v1/Deployment', deployment],
  ['apps/v1/StatefulSet', statefulSet],
  ['apps/v1/DaemonSet', daemonSet],
  ['apps/v1/ReplicaSet', replicaSet],
  ['v1/Pod', pod],
  ['v1/PersistentVolumeClaim', (o) => get(o, 'status', 'phase') === 'Bound'],
  ['batch/v1/Job', job],
  ['batch/v1/CronJob', cronJob],
  ['autoscaling/v2/HorizontalPodAutoscaler', hpa],
]);

/** The health check of an object's kind, if it has one. */
export function healthCheckFor(object: JsonObject): HealthCheck | undefined {
  const { apiVersion, kind } = object;
  return typeof apiVersion === 'string' && typeof kind === 'string'
    ? HEALTH_CHECKS.get(`${apiVersion}/${kind}`)
    : undefined;
}

/**
 * The last pass for every kind still undecided: the first condition of type Ready is True (crossplane-runtime
 * Conditioned.GetCondition returns the first of a type).
 */
export function readyConditionTrue(object: JsonObject): boolean {
  return conditions(object).find((c) => c.type === 'Ready')?.status === 'True';
}
