// packagePullPolicy, with Kubernetes' image pull policy names as Crossplane uses them. Crossplane resolves a tag to
// its digest at the registry under every policy, then: Always pulls, IfNotPresent (the default) uses the cache
// when it holds that digest, Never uses only the cache and fails without it.

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

export interface CachePlan {
  /** Whether manifests may come from the cache instead of the registry. */
  readCache: boolean;
  /** Whether anything missing from the cache may be downloaded. */
  download: boolean;
}

/** What a pull under `policy` may do; no policy means IfNotPresent, Crossplane's default. */
export function cachePlan(policy: PullPolicy | undefined): CachePlan {
  switch (policy ?? 'IfNotPresent') {
    case 'Always':
      return { readCache: false, download: true };
    case 'Never':
      return { readCache: true, download: false };
    default:
      return { readCache: true, download: true };
  }
}

/** The message Crossplane's package client fails with under Never when the package is not cached. */
export const NOT_IN_CACHE = 'package not in cache and pull policy is Never';
