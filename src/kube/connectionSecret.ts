import { controllerReference, type OwnerObject, type OwnerReference } from '../apis/index.js';
import type { KubeClient } from './client.js';
import { getIfExists } from './getIfExists.js';

/** The Secret type Crossplane gives connection secrets. */
export const CONNECTION_SECRET_TYPE = 'connection.crossplane.io/v1alpha1';

export interface ConnectionSecret {
  namespace: string;
  name: string;
  /** What owns the Secret (its controller reference names it): the Secret is garbage-collected with it. */
  owner: OwnerObject;
  /** Values already base64-encoded, as in a Secret's data. */
  data: Record<string, string>;
}

/** The Secret exists and is controlled by another object: compositor never takes it over. */
export class ForeignSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForeignSecretError';
  }
}

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
 * Publishes connection details to a Secret of type connection.crossplane.io/v1alpha1 controlled by its owner (an MR,
 * a legacy XR or a claim). Publishing is additive, as upstream's: keys are added or changed, never removed. The
 * Secret is read every time (a deleted or edited Secret is repaired) and written only when its data changes.
 * Returns true when it wrote. A Secret of the same name controlled by another object is an error, never overwritten.
 */
export async function publishConnectionSecret(
  client: KubeClient,
  secret: ConnectionSecret,
  signal?: AbortSignal,
): Promise<boolean> {
  const { namespace, name, owner, data } = secret;
  const path = `/api/v1/namespaces/${namespace}/secrets`;
  const existing = await getIfExists<Secret>(client, `${path}/${name}`, signal);
  if (!existing) {
    const created: Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, ownerReferences: [controllerReference(owner)] },
      type: CONNECTION_SECRET_TYPE,
      data,
    };
    await client.request('POST', path, { body: created, signal });
    return true;
  }
  const controller = existing.metadata.ownerReferences?.find((o) => o.controller === true);
  if (controller?.uid !== owner.metadata.uid) {
    throw new ForeignSecretError(
      `Secret "${namespace}/${name}" exists and is not controlled by ${owner.kind} ${owner.metadata.name}`,
    );
  }
  const merged = { ...existing.data, ...data };
  if (Object.entries(merged).every(([key, value]) => existing.data?.[key] === value)) return false;
  await client.request('PUT', `${path}/${name}`, { body: { ...existing, data: merged }, signal });
  return true;
}

/** A Secret's data, base64 values as stored; undefined when it does not exist. */
export async function readSecretData(
  client: KubeClient,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<Record<string, string> | undefined> {
  const secret = await getIfExists<Secret>(client, `/api/v1/namespaces/${namespace}/secrets/${name}`, signal);
  return secret ? (secret.data ?? {}) : undefined;
}
