// An experiment, preloaded into compositor by `bench:scale -- --experiment reuse-connections` (node --import): each
// KubeConfig keeps the undici dispatcher client-node creates for its first request and hands it to every later one,
// so requests reuse keep-alive TLS connections instead of opening one (with a handshake) per request. It measures
// the effect of the same change made in src/kube/client.ts without editing src.
import { KubeConfig, type RequestContext } from '@kubernetes/client-node';

type Dispatcher = ReturnType<RequestContext['getDispatcher']>;
const dispatchers = new WeakMap<KubeConfig, Dispatcher>();
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with the instance below.
const original = KubeConfig.prototype.applySecurityAuthentication;

KubeConfig.prototype.applySecurityAuthentication = async function (
  this: KubeConfig,
  context: RequestContext,
): Promise<void> {
  await original.call(this, context);
  const kept = dispatchers.get(this);
  if (kept !== undefined) {
    context.setDispatcher(kept);
    return;
  }
  dispatchers.set(this, context.getDispatcher());
};
