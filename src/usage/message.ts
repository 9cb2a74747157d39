import { groupOf } from '../apis/index.js';
import type { Usage, UsedObject } from './types.js';

/**
 * The message a refused deletion carries, as Crossplane's usage webhook words it (internal/webhook/protection/usage
 * handler.go, inUseMessage): the number of Usages naming the object and the first of them. Go's `%T` of the first
 * prints `*v1beta1.Usage` or `*v1beta1.ClusterUsage`, and so does this. Usages are taken in a stable order
 * (namespace, then name), so the message does not change while the set of Usages does not.
 *
 * @example
 * inUseMessage([usage]); // 'This resource is in-use by 1 usage(s), including the *v1beta1.Usage "u" (in namespace "default") by resource Consumer/c.'
 */
export function inUseMessage(usages: readonly Usage[]): string {
  const [first] = [...usages].sort(byNamespaceAndName);
  if (!first) return 'This resource is in-use.';
  const { name, namespace } = first.metadata;
  const id = namespace ? `${goQuote(name)} (in namespace ${goQuote(namespace)})` : goQuote(name);
  const head = `This resource is in-use by ${usages.length} usage(s), including the *v1beta1.${first.kind} ${id}`;
  const { by, reason } = first.spec;
  if (by) return `${head} by resource ${by.kind ?? ''}/${by.resourceRef?.name ?? ''}.`;
  if (reason) return `${head} with reason: ${goQuote(reason)}.`;
  return `${head}.`;
}

/** The `crossplane.io/usage-details` annotation, as Crossplane's usage controller writes it (detailsAnnotation). */
export function usageDetails(usage: Usage): string {
  const { of, by, reason } = usage.spec;
  if (reason) return reason;
  if (!by) return 'undefined';
  const uses = `${by.kind ?? ''}/${by.resourceRef?.name ?? ''} uses ${of.kind ?? ''}/${of.resourceRef?.name ?? ''}`;
  const namespace = of.resourceRef?.namespace;
  return namespace ? `${uses} in namespace ${namespace}` : uses;
}

/**
 * The object a Usage names once its selector is resolved; undefined before. A namespaced Usage names objects in
 * its own namespace unless `of.resourceRef.namespace` says otherwise; `namespaced` is the used kind's scope.
 */
export function usedObjectOf(usage: Usage, namespaced: boolean): UsedObject | undefined {
  const { apiVersion, kind, resourceRef } = usage.spec.of;
  if (!apiVersion || !kind || !resourceRef?.name) return undefined;
  const namespace = namespaced ? (resourceRef.namespace ?? usage.metadata.namespace) : undefined;
  return { apiVersion, kind, name: resourceRef.name, ...(namespace ? { namespace } : {}) };
}

/** The same object whatever version of its group names it: the group, kind, namespace and name agree. */
export function sameObject(a: UsedObject, b: UsedObject): boolean {
  return (
    groupOf(a.apiVersion) === groupOf(b.apiVersion) &&
    a.kind === b.kind &&
    a.name === b.name &&
    (a.namespace ?? '') === (b.namespace ?? '')
  );
}

function byNamespaceAndName(a: Usage, b: Usage): number {
  const left = `${a.metadata.namespace ?? ''}/${a.metadata.name}`;
  const right = `${b.metadata.namespace ?? ''}/${b.metadata.name}`;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Go's %q for the strings a message quotes: JSON's escaping, which agrees with Go's for printable text. */
function goQuote(text: string): string {
  return JSON.stringify(text);
}
