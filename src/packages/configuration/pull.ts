// How a package or its revision pulls its package: its packagePullPolicy, the credentials of its packagePullSecrets,
// read from compositor's namespace as Crossplane reads them from its own, and what the ImageConfigs make of the
// reference (a rewritten path, one more pull secret: imageconfig/resolve.ts), as Crossplane's package client does.
import type { KubeClient } from '../../kube/index.js';
import { resolveImage, type ImageConfigSource, type ImageResolution } from '../imageconfig/index.js';
import { credentialsFromSecrets, type PullOptions, type PullSecret } from '../oci/index.js';
import type { LocalObjectReference } from '../types.js';

export interface PullSpec {
  packagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  packagePullSecrets?: LocalObjectReference[];
}

export interface PullDeps {
  client: KubeClient;
  /** compositor's namespace: where pull Secrets are read. */
  namespace: string;
  /** The ImageConfigs; none apply without them. */
  imageConfigs?: ImageConfigSource;
}

/** A pull ready to go: the reference to pull (`resolution.resolvedRef`) and its options. */
export interface PreparedPull {
  resolution: ImageResolution;
  options: PullOptions;
}

/**
 * Resolves a reference against the ImageConfigs and reads the pull Secrets: the package's own, then the one a
 * matching ImageConfig gives (upstream appends it to the package's).
 */
export async function preparePull(
  deps: PullDeps,
  ref: string,
  spec: PullSpec,
  signal: AbortSignal,
): Promise<PreparedPull> {
  const configs = (await deps.imageConfigs?.list(signal)) ?? [];
  const resolution = resolveImage(configs, ref);
  const secrets = [...(spec.packagePullSecrets ?? [])];
  if (resolution.pullSecret !== undefined && !secrets.some((s) => s.name === resolution.pullSecret)) {
    secrets.push({ name: resolution.pullSecret });
  }
  const options = await pullOptions(deps.client, deps.namespace, { ...spec, packagePullSecrets: secrets }, signal);
  return { resolution, options };
}

export async function pullOptions(
  client: KubeClient,
  namespace: string,
  spec: PullSpec,
  signal: AbortSignal,
): Promise<PullOptions> {
  const secrets: PullSecret[] = [];
  for (const { name } of spec.packagePullSecrets ?? []) {
    if (name === undefined || name === '') continue;
    const path = `/api/v1/namespaces/${namespace}/secrets/${name}`;
    secrets.push(
      await client.request<PullSecret>('GET', path, { signal }).catch((err: unknown) => {
        throw new Error(`cannot get package pull secret "${namespace}/${name}"`, { cause: err });
      }),
    );
  }
  return {
    credentials: credentialsFromSecrets(secrets),
    ...(spec.packagePullPolicy ? { policy: spec.packagePullPolicy } : {}),
    signal,
  };
}
