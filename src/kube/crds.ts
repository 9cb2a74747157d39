import type { CustomResourceDefinition } from '../apis/index.js';
import { monotonicClock, type Clock } from '../base/index.js';
import type { KubeClient } from './client.js';
import { isAlreadyExists, isNotFound } from './errors.js';

const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

export interface EnsureCrdsOptions {
  timeoutMs: number;
  pollMs?: number;
  signal?: AbortSignal;
  /** The deadline and the pause between polls; the monotonic clock unless given. */
  clock?: Clock;
}

/**
 * Creates each CRD that is absent and waits until all are Established. CRDs that exist are left alone: the Helm
 * chart or a previous Crossplane install owns them, and overwriting a newer schema with ours could drop fields.
 * Returns the names of the CRDs it created.
 */
export async function ensureCrds(
  client: KubeClient,
  crds: readonly CustomResourceDefinition[],
  options: EnsureCrdsOptions,
): Promise<string[]> {
  const created: string[] = [];
  for (const crd of crds) {
    if (await exists(client, crd.metadata.name)) continue;
    try {
      await client.request('POST', CRDS_PATH, { body: crd, signal: options.signal });
      created.push(crd.metadata.name);
    } catch (err) {
      if (!isAlreadyExists(err)) throw new Error(`cannot create CRD "${crd.metadata.name}"`, { cause: err });
    }
  }
  await waitForEstablished(
    client,
    crds.map((crd) => crd.metadata.name),
    options,
  );
  return created;
}

async function exists(client: KubeClient, name: string): Promise<boolean> {
  try {
    await client.request('GET', `${CRDS_PATH}/${name}`);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw new Error(`cannot read CRD "${name}"`, { cause: err });
  }
}

/** Polls until every named CRD has Established=True, or throws naming those that are not. */
export async function waitForEstablished(
  client: KubeClient,
  names: readonly string[],
  options: EnsureCrdsOptions,
): Promise<void> {
  const clock = options.clock ?? monotonicClock;
  const deadline = clock.now() + options.timeoutMs;
  let pending = [...names];
  for (;;) {
    const states = await Promise.all(
      pending.map(async (name) => ({
        name,
        crd: await client.request<CustomResourceDefinition>('GET', `${CRDS_PATH}/${name}`),
      })),
    );
    pending = states.filter(({ crd }) => !isEstablished(crd)).map(({ name }) => name);
    if (pending.length === 0) return;
    if (clock.now() > deadline || options.signal?.aborted) {
      throw new Error(`CRDs not Established after ${options.timeoutMs}ms: ${pending.join(', ')}`);
    }
    await clock.sleep(options.pollMs ?? 100);
  }
}

export function isEstablished(crd: CustomResourceDefinition): boolean {
  return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
}
