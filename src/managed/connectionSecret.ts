import type { OwnerReference } from '../apis/index.js';
import { describeSource } from '../circuitbreaker/index.js';
import { getIfExists, type KubeClient } from '../kube/index.js';
import type { ConnectionDetails, ManagedResource } from './types.js';

/** The Secret type Crossplane gives connection secrets. */
export const CONNECTION_SECRET_TYPE = 'connection.crossplane.io/v1alpha1';

interface Secret {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    ownerReferences?: OwnerReference[];
    [key: string]: unknown;
  };
  type?: string;
  data?: Record<string, string>;
}

/**
 * Writes an MR's connection details to spec.writeConnectionSecretToRef: a Secret of type
 * connection.crossplane.io/v1alpha1 controlled by the MR (so it is garbage-collected with it), in the MR's
 * namespace for a namespaced MR. Publishing is additive, as upstream's: keys are added or changed, never removed.
 * The Secret is read every time (a deleted or edited Secret is repaired) and written only when its data changes.
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
    const path = `/api/v1/namespaces/${namespace}/secrets`;
    const data = encode(details);
    const existing = await getIfExists<Secret>(this.client, `${path}/${ref.name}`, signal);
    if (!existing) {
      const secret: Secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: ref.name, namespace, ownerReferences: [controllerReference(mr)] },
        type: CONNECTION_SECRET_TYPE,
        data,
      };
      await this.client.request('POST', path, { body: secret, signal });
      return true;
    }
    const controller = existing.metadata.ownerReferences?.find((o) => o.controller === true);
    if (controller?.uid !== mr.metadata.uid) {
      throw new Error(
        `cannot publish connection details of ${what}: Secret "${namespace}/${ref.name}" exists and is not controlled by it`,
      );
    }
    const merged = { ...existing.data, ...data };
    if (Object.entries(merged).every(([key, value]) => existing.data?.[key] === value)) return false;
    await this.client.request('PUT', `${path}/${ref.name}`, { body: { ...existing, data: merged }, signal });
    return true;
  }
}

function encode(details: ConnectionDetails): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(details)) data[key] = Buffer.from(value, 'utf8').toString('base64');
  return data;
}

function controllerReference(mr: ManagedResource): OwnerReference {
  return {
    apiVersion: mr.apiVersion,
    kind: mr.kind,
    name: mr.metadata.name,
    uid: mr.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}
