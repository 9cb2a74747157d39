// The benchmarks' own API client: KubeClient over a copy of the plane's kubeconfig whose connections are reused.
// KubeClient asks client-node for the request's authentication on every call, and client-node builds a new undici
// Agent (so a new TCP connection and TLS handshake) each time; a benchmark that polls every 5 ms would measure its
// own handshakes. Headers (tokens) are still applied per request; only the dispatcher is kept, until it is closed.
import { KubeConfig, type RequestContext } from '@kubernetes/client-node';
import { KubeClient } from '../../src/kube/index.js';

export function reusingKubeConfig(source: KubeConfig): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(source.exportConfig());
  const apply = kc.applySecurityAuthentication.bind(kc);
  let dispatcher: ReturnType<RequestContext['getDispatcher']>;
  kc.applySecurityAuthentication = async (context: RequestContext): Promise<void> => {
    await apply(context);
    // KubeClient closes a pool a request timed out on and asks for a new one: a closed pool is replaced, once.
    if (dispatcher === undefined || isClosed(dispatcher)) dispatcher = context.getDispatcher();
    if (dispatcher !== undefined) context.setDispatcher(dispatcher);
  };
  return kc;
}

/** Whether an undici dispatcher was closed or destroyed (both are getters of every dispatcher undici makes). */
function isClosed(dispatcher: object): boolean {
  const state = dispatcher as { closed?: boolean; destroyed?: boolean };
  return state.closed === true || state.destroyed === true;
}

/** A KubeClient for `kubeConfig` that keeps its connections open between requests. */
export function benchClient(kubeConfig: KubeConfig): KubeClient {
  return new KubeClient(reusingKubeConfig(kubeConfig));
}
