import { describeSource } from '../circuitbreaker/index.js';
import { ForeignSecretError, publishConnectionSecret, type KubeClient } from '../kube/index.js';
import type { ConnectionDetails, ManagedResource } from './types.js';

export { CONNECTION_SECRET_TYPE } from '../kube/index.js';

/**
 * Writes an MR's connection details to spec.writeConnectionSecretToRef: a Secret controlled by the MR (so it is
 * garbage-collected with it), in the MR's namespace for a namespaced MR. Additive and written only on change
 * (publishConnectionSecret).
 */
export class ConnectionSecretPublisher {
  constructor(private readonly client: KubeClient) {}

  /** Returns true when it wrote the Secret. Conflicts are thrown as they are (the reconcile is retried). */
  async publish(mr: ManagedResource, details: ConnectionDetails, signal: AbortSignal): Promise<boolean> {
    const ref = mr.spec?.writeConnectionSecretToRef;
    if (!ref?.name) return false;
    const namespace = mr.metadata.namespace ?? ref.namespace;
    const what = describeSource(mr.kind, mr.metadata.name, mr.metadata.namespace);
    if (!namespace) {
      throw new Error(`cannot publish connection details of ${what}: writeConnectionSecretToRef names no namespace`);
    }
    try {
      return await publishConnectionSecret(
        this.client,
        { namespace, name: ref.name, owner: mr, data: encode(details) },
        signal,
      );
    } catch (err) {
      if (err instanceof ForeignSecretError) {
        throw new Error(`cannot publish connection details of ${what}: ${err.message}`, { cause: err });
      }
      throw err;
    }
  }
}

function encode(details: ConnectionDetails): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(details)) data[key] = Buffer.from(value, 'utf8').toString('base64');
  return data;
}
