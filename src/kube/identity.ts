import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig, RequestContext } from '@kubernetes/client-node';
import { packageRoot } from '../apis/index.js';

// How compositor names itself to the API server, in one place.
//
// A server-side apply records every field it sets as owned by its fieldManager, and only a later apply by that same
// manager can remove the field again (by leaving it out). A field manager must therefore stay the same from one
// compositor version to the next: with the version in the name, after an upgrade every field the old version applied
// would belong to a name nothing applies as any more, and could never be removed. So the managers below are fixed
// names of one family, "compositor" and "compositor/<part>", and the version appears only in the User-Agent. Writes
// that are not applies (create, update, merge and JSON patches) are recorded under a manager the API server takes from
// the User-Agent, up to its first "/": "compositor" again, whatever the version.
//
// Releases before these names applied as compositor.crossplane.io/rbac, managed.compositor.crossplane.io and
// compositor-dev. Their entries co-own what they applied, which matters only for a field compositor stops setting.
//
// The managers that copy Crossplane's on purpose (apiextensions.crossplane.io/...), so that compositor and Crossplane
// can take over each other's objects, stay beside the code that applies with them.

/** Server-side apply field managers of compositor's own objects. Never change one: see above. */
export const FIELD_MANAGERS = {
  /**
   * The ClusterRoles of --manage-composite-rbac, granting compositor its rights on each XR kind, and the ClusterRoles
   * and ClusterRoleBinding of each ProviderRevision (--enable-providers).
   */
  rbac: 'compositor/rbac',
  /** Managed resources of compositor's managed-resource runtime (the built-in nop provider). */
  managed: 'compositor/managed',
  /** The example manifests `compositor dev` applies. */
  dev: 'compositor/dev',
} as const;

/**
 * compositor's User-Agent: `compositor/<version> (<platform>/<arch>)`, the form kubectl and client-go use.
 *
 * @example userAgent('0.1.0', 'linux', 'x64') === 'compositor/0.1.0 (linux/x64)'
 */
export function userAgent(version: string, platform: string = process.platform, arch: string = process.arch): string {
  return `compositor/${version} (${platform}/${arch})`;
}

let own: string | undefined;

/** This build's User-Agent, its version read from compositor's package.json on first use. */
export function compositorUserAgent(): string {
  own ??= userAgent(
    (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version,
  );
  return own;
}

/**
 * The kubeconfig as client-node's Watch uses it, with compositor's User-Agent added to each request's headers (Watch
 * sends only what authentication sets, so its requests would otherwise carry undici's default User-Agent).
 */
export function withUserAgent(kubeConfig: KubeConfig, agent: () => string = compositorUserAgent): KubeConfig {
  const wrapped = Object.create(kubeConfig) as KubeConfig;
  wrapped.applySecurityAuthentication = async (context: RequestContext): Promise<void> => {
    await kubeConfig.applySecurityAuthentication(context);
    context.setHeaderParam('user-agent', agent());
  };
  return wrapped;
}
