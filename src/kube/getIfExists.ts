import type { KubeClient } from './client.js';
import { isNotFound } from './errors.js';

/** GETs an object; undefined when it does not exist, any other failure thrown. */
export async function getIfExists<T>(client: KubeClient, path: string, signal?: AbortSignal): Promise<T | undefined> {
  try {
    return await client.request<T>('GET', path, { signal });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
