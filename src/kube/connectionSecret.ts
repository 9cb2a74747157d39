import { controllerReference, type OwnerObject, type OwnerReference } from '../apis/index.js';
import type { KubeClient } from './client.js';
import { isConflict } from './errors.js';
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

/** A Secret as stored, as far as connection details need it. */
export interface SecretObject {
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
  [key: string]: unknown;
}

/** What a synced informer cache holds of a Secret: its copy, or none. */
export interface CachedSecret {
  found: SecretObject | undefined;
}

/**
 * Publishes connection details to a Secret of type connection.crossplane.io/v1alpha1 controlled by its owner (an MR,
 * a legacy XR or a claim). Publishing is additive, as upstream's: keys are added or changed, never removed. The
 * Secret is read every time (a deleted or edited Secret is repaired) and written only when its data changes.
 * Returns true when it wrote. A Secret of the same name controlled by another object is an error, never overwritten.
 *
 * With `cached`, what a synced informer cache holds of the Secret, it is read from there and written with the
 * preconditions a fresh read would give: a create fails when the Secret exists, an update when it changed since the
 * cached copy (its resourceVersion). A stale cache (an own write whose watch event is not in yet, a Secret of another
 * type, which the cache does not hold) then costs what it costs without one: the Secret is read from the API server
 * and published from that. So is a copy controlled by another object, before it is reported.
 */
export async function publishConnectionSecret(
  client: KubeClient,
  secret: ConnectionSecret,
  signal?: AbortSignal,
  cached?: CachedSecret,
): Promise<boolean> {
  if (cached) {
    const published = await publishOver(client, secret, cached.found, signal);
    if (published !== STALE) return published;
  }
  const { namespace, name } = secret;
  const existing = await getIfExists<SecretObject>(client, `${secretsPath(namespace)}/${name}`, signal);
  if (!existing) {
    await client.request('POST', secretsPath(namespace), { body: created(secret), signal });
    return true;
  }
  if (!controlledBy(existing, secret)) {
    throw new ForeignSecretError(
      `Secret "${namespace}/${name}" exists and is not controlled by ${secret.owner.kind} ${secret.owner.metadata.name}`,
    );
  }
  if (holds(existing, secret)) return false;
  await client.request('PUT', `${secretsPath(namespace)}/${name}`, { body: merged(existing, secret), signal });
  return true;
}

/** The copy the writes were based on is not what the API server has. */
const STALE = Symbol('stale');

/** Publishes over what the cache holds, or says it is stale (the create or update was refused as a conflict). */
async function publishOver(
  client: KubeClient,
  secret: ConnectionSecret,
  found: SecretObject | undefined,
  signal: AbortSignal | undefined,
): Promise<boolean | typeof STALE> {
  if (found && !controlledBy(found, secret)) return STALE;
  if (found && holds(found, secret)) return false;
  const { namespace, name } = secret;
  const write = found
    ? client.request('PUT', `${secretsPath(namespace)}/${name}`, { body: merged(found, secret), signal })
    : client.request('POST', secretsPath(namespace), { body: created(secret), signal });
  return write.then(
    () => true,
    (err: unknown) => {
      if (isConflict(err)) return STALE;
      throw err;
    },
  );
}

function secretsPath(namespace: string): string {
  return `/api/v1/namespaces/${namespace}/secrets`;
}

function created({ namespace, name, owner, data }: ConnectionSecret): SecretObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, ownerReferences: [controllerReference(owner)] },
    type: CONNECTION_SECRET_TYPE,
    data,
  };
}

/** The stored Secret with the keys to publish added or changed; its resourceVersion makes the update conditional. */
function merged(existing: SecretObject, { data }: ConnectionSecret): SecretObject {
  return { ...existing, data: { ...existing.data, ...data } };
}

function controlledBy(existing: SecretObject, { owner }: ConnectionSecret): boolean {
  return existing.metadata.ownerReferences?.find((o) => o.controller === true)?.uid === owner.metadata.uid;
}

/** Whether a stored Secret already has every key with the value to publish. */
function holds(existing: SecretObject, { data }: ConnectionSecret): boolean {
  return Object.entries(data).every(([key, value]) => existing.data?.[key] === value);
}

/** A Secret's data, base64 values as stored; undefined when it does not exist. */
export async function readSecretData(
  client: KubeClient,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<Record<string, string> | undefined> {
  const secret = await getIfExists<SecretObject>(client, `/api/v1/namespaces/${namespace}/secrets/${name}`, signal);
  return secret ? (secret.data ?? {}) : undefined;
}
