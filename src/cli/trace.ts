// `compositor trace <type> <name> [-n ns] [-o default|wide|json|dot]`: reads a claim, XR, composed resource or
// Operation (CronOperation, WatchOperation) and everything it references from the cluster and prints the tree like `crossplane beta trace`. The walk is in
// traceTree.ts, the output formats in tracePrinters.ts; this file is the cluster side.
import type { KubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '../base/index.js';
import { ApiError, Discovery, isNotFound, KindNotServedError, KubeClient, loadKubeConfig } from '../kube/index.js';
import { apiVersionOf, resolveResourceArg, type ServedResource } from './resourceArg.js';
import { kubeconfigSource } from './environment.js';
import type { Output } from './start.js';
import { printTrace, type TraceFormat } from './tracePrinters.js';
import type { ListQuery } from './traceOperations.js';
import {
  buildTree,
  type ObjectRef,
  type TraceError,
  type TraceGetter,
  type TraceLister,
  type TracedObject,
} from './traceTree.js';

export interface TraceOptions {
  /** `TYPE[.VERSION][.GROUP]`: plural, singular, short name or kind. */
  resource: string;
  name: string;
  /** Of a namespaced resource; default: the kubeconfig context's namespace, else "default". */
  namespace?: string;
  output: TraceFormat;
  /** Also show the connection Secrets of claims and legacy XRs. */
  showConnectionSecrets?: boolean;
  kubeconfig?: string;
}

/** What a failed read says: the API server's Status message, or the client's own words for an unserved kind. */
export function describeError(err: unknown): TraceError {
  if (err instanceof ApiError && typeof err.body === 'object' && err.body !== null) {
    const status = err.body as Record<string, unknown>;
    if (typeof status.message === 'string') return { message: status.message, status };
  }
  if (err instanceof KindNotServedError) {
    return { message: `no matches for kind "${err.kind}" in version "${err.apiVersion}"` };
  }
  return { message: errorMessage(err) };
}

/** GETs each reference at the REST path discovery gives its kind. */
function getter(client: KubeClient, discovery: Discovery): TraceGetter {
  return async (ref: ObjectRef) =>
    client.request<TracedObject>('GET', await discovery.path(ref.apiVersion, ref.kind, ref.name, ref.namespace));
}

/** Lists a cluster-scoped kind by labels (the Operations of a CronOperation or WatchOperation). */
function lister(client: KubeClient, discovery: Discovery): TraceLister {
  return async (query: ListQuery) => {
    const path = await discovery.path(query.apiVersion, query.kind, undefined);
    const list = await client.request<{ items: TracedObject[] }>('GET', path, {
      query: { labelSelector: query.labelSelector },
    });
    // A list's items carry no apiVersion and kind of their own.
    return list.items.map((item) => ({ ...item, apiVersion: query.apiVersion, kind: query.kind }));
  };
}

function contextNamespace(kubeConfig: KubeConfig): string | undefined {
  const namespace = kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace;
  return namespace === undefined || namespace === '' ? undefined : namespace;
}

function rootRef(type: ServedResource, options: TraceOptions, kubeConfig: KubeConfig): ObjectRef {
  const ref: ObjectRef = { apiVersion: apiVersionOf(type), kind: type.kind, name: options.name };
  if (type.namespaced) ref.namespace = options.namespace ?? contextNamespace(kubeConfig) ?? 'default';
  return ref;
}

async function getRoot(get: TraceGetter, ref: ObjectRef): Promise<TracedObject> {
  try {
    return await get(ref);
  } catch (err) {
    const where = isNotFound(err) && ref.namespace !== undefined ? ` in namespace "${ref.namespace}"` : '';
    throw new Error(`cannot get requested resource: ${describeError(err).message}${where}`, { cause: err });
  }
}

/** Prints the tree; 1 with one line on stderr when the type, the resource or the cluster cannot be read. */
export async function runTrace(options: TraceOptions, output: Output): Promise<number> {
  try {
    const kubeConfig = loadKubeConfig(kubeconfigSource(options.kubeconfig));
    const client = new KubeClient(kubeConfig);
    const type = await resolveResourceArg(client, options.resource);
    const discovery = new Discovery(client);
    const get = getter(client, discovery);
    const root = await getRoot(get, rootRef(type, options, kubeConfig));
    const tree = await buildTree(root, get, {
      connectionSecrets: options.showConnectionSecrets === true,
      describeError,
      list: lister(client, discovery),
    });
    output.stdout(printTrace(tree, options.output));
    return 0;
  } catch (err) {
    output.stderr(`compositor trace: ${errorMessage(err)}\n`);
    return 1;
  }
}
