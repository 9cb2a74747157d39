// Where and with which credentials a dependency's tags are listed. As upstream (crossplane-runtime pkg/xpkg/client.go,
// ListVersions), the source is rewritten by a matching ImageConfig and listed with the pull secret of the ImageConfig
// matching the rewritten source. compositor adds the packagePullSecrets of the revisions that depend on the
// dependency, read from compositor's namespace as their own pulls read them, so a dependency in the same private
// registry as its parent can be resolved without an ImageConfig. A revision that cannot be read adds nothing.
import { getIfExists, type KubeClient } from '../../kube/index.js';
import { pullOptions } from '../configuration/pull.js';
import { bestMatch, resolveSource, type ImageConfigSource } from '../imageconfig/index.js';
import type { KeyedCredentials } from '../oci/index.js';
import type { LocalObjectReference } from '../types.js';
import { typeOf } from './dependencies.js';
import type { LockPackage, PackageType } from './types.js';

const REVISIONS: Record<PackageType, string> = {
  Configuration: '/apis/pkg.crossplane.io/v1/configurationrevisions',
  Provider: '/apis/pkg.crossplane.io/v1/providerrevisions',
  Function: '/apis/pkg.crossplane.io/v1/functionrevisions',
};

export async function parentCredentials(
  deps: { client: KubeClient; namespace: string },
  parents: readonly LockPackage[],
  signal: AbortSignal,
): Promise<KeyedCredentials[]> {
  const secrets: LocalObjectReference[] = [];
  for (const parent of parents) {
    const type = typeOf(parent);
    if (type === undefined) continue;
    const path = `${REVISIONS[type]}/${parent.name}`;
    const revision = await getIfExists<{ spec?: { packagePullSecrets?: LocalObjectReference[] } }>(
      deps.client,
      path,
      signal,
    ).catch(() => undefined);
    for (const secret of revision?.spec?.packagePullSecrets ?? []) {
      if (!secrets.some((s) => s.name === secret.name)) secrets.push(secret);
    }
  }
  if (secrets.length === 0) return [];
  const options = await pullOptions(deps.client, deps.namespace, { packagePullSecrets: secrets }, signal);
  return [...(options.credentials ?? [])];
}

/** The source to list (rewritten) and the credentials to list it with. */
export async function tagListing(
  deps: { client: KubeClient; namespace: string; imageConfigs: ImageConfigSource },
  source: string,
  parents: readonly LockPackage[],
  signal: AbortSignal,
): Promise<{ source: string; credentials: KeyedCredentials[] }> {
  const configs = await deps.imageConfigs.list(signal);
  const resolved = resolveSource(configs, source);
  const credentials = await parentCredentials(deps, parents, signal);
  const secret = bestMatch(configs, resolved, 'pullSecret')?.spec?.registry?.authentication?.pullSecretRef?.name;
  if (secret !== undefined) {
    const options = await pullOptions(deps.client, deps.namespace, { packagePullSecrets: [{ name: secret }] }, signal);
    credentials.push(...(options.credentials ?? []));
  }
  return { source: resolved, credentials };
}
