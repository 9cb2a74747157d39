// How a Configuration or its revision pulls its package: its packagePullPolicy, and the credentials of its
// packagePullSecrets, read from compositor's namespace as Crossplane reads them from its own.
import type { KubeClient } from '../../kube/index.js';
import { credentialsFromSecrets, type PullOptions, type PullSecret } from '../oci/index.js';
import type { LocalObjectReference } from '../types.js';

export interface PullSpec {
  packagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  packagePullSecrets?: LocalObjectReference[];
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
