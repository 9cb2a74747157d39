import { CONTENT_TYPE, type KubeClient } from './client.js';
import type { Discovery } from './discovery.js';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** What an apply needs of its object; everything else in it is the body as it is. */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

/**
 * Records what a write returned, so the watch event it causes (its echo) is known as our own and triggers nothing;
 * circuitbreaker's OwnWrites is one. Structural, so this layer needs nothing from the breaker.
 */
export interface EchoTracker {
  /** Runs `write` and records its result; events about `target` are held while the write is in flight. */
  track<T extends object>(target: ObjectIdentity, write: () => Promise<T>): Promise<T>;
}

export interface ApplyOptions {
  /** The field manager that owns what the object sets. */
  fieldManager: string;
  /** Take fields another manager owns rather than fail with 409 (default true: every apply of compositor does). */
  force?: boolean;
  /** Apply to this subresource (the status) instead of the object itself. */
  subresource?: 'status';
  /** Where the object's echo is recorded; none when the caller wants the event (or nobody watches the kind). */
  echoes?: EchoTracker;
  signal?: AbortSignal;
}

/**
 * Server-side applies `object` and returns it as stored: a PATCH of content type apply-patch at the object's path
 * (`where`, or what the Discovery resolves from its apiVersion, kind, name and namespace), with `fieldManager` and
 * `force` in the query. The body goes out as JSON, which is valid apply YAML, so nothing is lost in serialization.
 * With `echoes`, the write is tracked under the object's kind, namespace and name.
 *
 * @example
 * await serverSideApply(client, discovery, configMap, { fieldManager: 'compositor', signal });
 * await serverSideApply(client, path, { apiVersion, kind, metadata, status }, { fieldManager, subresource: 'status' });
 */
export async function serverSideApply<T extends object = KubeObject>(
  client: KubeClient,
  where: string | Discovery,
  object: ObjectIdentity,
  options: ApplyOptions,
): Promise<T> {
  const { apiVersion, kind, metadata } = object;
  const path =
    typeof where === 'string' ? where : await where.path(apiVersion, kind, metadata.name, metadata.namespace);
  const { fieldManager, force = true, subresource, echoes, signal } = options;
  const write = (): Promise<T> =>
    client.request<T>('PATCH', subresource === undefined ? path : `${path}/${subresource}`, {
      body: object,
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager, force },
      signal,
    });
  return echoes === undefined ? write() : echoes.track(object, write);
}
