/**
 * The little the breaker reads from a watched object. Structural, so client-node's KubernetesObject fits without
 * this pure module importing anything from Kubernetes.
 */
export interface WatchedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    deletionTimestamp?: unknown;
  };
}

/**
 * How the Responsive condition names an event source, as Crossplane does: `Kind/name` for cluster-scoped objects,
 * `Kind/name (namespace)` for namespaced ones.
 */
export function describeSource(kind: string, name: string, namespace: string | undefined): string {
  return namespace === undefined || namespace === '' ? `${kind}/${name}` : `${kind}/${name} (${namespace})`;
}

/** True for objects on their way out; their events always pass the breaker so a deletion is never lost. */
export function isDeleting(object: WatchedObject): boolean {
  const stamp = object.metadata?.deletionTimestamp;
  return stamp !== undefined && stamp !== null && stamp !== '';
}
