import { CONTENT_TYPE, type KubeClient } from './client.js';
import type { Discovery } from './discovery.js';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * Server-side applies an object as `fieldManager`, taking ownership of conflicting fields (force), and returns the
 * object as stored. The body goes out as JSON, which is valid apply YAML, so nothing is lost in serialization.
 */
export async function applyObject<T extends KubeObject>(
  client: KubeClient,
  discovery: Discovery,
  object: T,
  options: { fieldManager: string; signal?: AbortSignal },
): Promise<T> {
  const { apiVersion, kind, metadata } = object;
  const path = await discovery.path(apiVersion, kind, metadata.name, metadata.namespace);
  return client.request<T>('PATCH', path, {
    body: object,
    contentType: CONTENT_TYPE.apply,
    query: { fieldManager: options.fieldManager, force: true },
    signal: options.signal,
  });
}
