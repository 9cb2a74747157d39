import type { ConnectionSecretReader, Xr } from '../controller/index.js';
import type { ComposedObject } from './composed.js';
import type { RevisionObject } from './selection.js';

// Connection details around the composite reconciler (docs/crossplane-differences.md#claims-and-legacy-xrs): what
// composed resources published (observed state for functions), where a legacy XR publishes its own, and which keys
// it may publish.

export interface SecretRef {
  name: string;
  namespace: string;
}

/** A legacy XR's spec.writeConnectionSecretToRef, when complete. */
export function xrSecretRef(xr: Xr): SecretRef | undefined {
  const ref = xr.spec?.writeConnectionSecretToRef as Partial<SecretRef> | undefined;
  return ref?.name && ref.namespace ? { name: ref.name, namespace: ref.namespace } : undefined;
}

/**
 * Where a legacy XR without a connection Secret reference publishes, as upstream's API configurator sets it: a
 * Secret named by the XR's uid in the Composition's writeConnectionSecretsToNamespace. Undefined when the XR has a
 * reference already or the Composition names no namespace.
 */
export function defaultSecretRef(xr: Xr, revision: RevisionObject): SecretRef | undefined {
  if (xr.spec?.writeConnectionSecretToRef !== undefined || !xr.metadata.uid) return undefined;
  const namespace = (revision.spec as { writeConnectionSecretsToNamespace?: string } | undefined)
    ?.writeConnectionSecretsToNamespace;
  return namespace ? { name: xr.metadata.uid, namespace } : undefined;
}

/** The XR's connection details as Secret data (base64), keeping only the XRD's connectionSecretKeys if it lists any. */
export function publishedData(
  details: Readonly<Record<string, Uint8Array>> | undefined,
  allowed: readonly string[] | undefined,
): Record<string, string> {
  const keep = allowed && allowed.length > 0 ? new Set(allowed) : undefined;
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(details ?? {})) {
    if (!keep || keep.has(key)) data[key] = Buffer.from(value).toString('base64');
  }
  return data;
}

/**
 * The connection details a composed resource published to its spec.writeConnectionSecretToRef (a namespaced
 * resource's Secret is in its own namespace), as functions receive them in observed state. Undefined when it
 * publishes none or the Secret does not exist yet.
 */
export async function composedConnectionDetails(
  secrets: Pick<ConnectionSecretReader, 'data'>,
  object: ComposedObject,
  signal?: AbortSignal,
): Promise<Record<string, Uint8Array> | undefined> {
  const ref = (object as { spec?: { writeConnectionSecretToRef?: { name?: string; namespace?: string } } }).spec
    ?.writeConnectionSecretToRef;
  const namespace = object.metadata.namespace ?? ref?.namespace;
  if (!ref?.name || !namespace) return undefined;
  const data = await secrets.data(namespace, ref.name, signal);
  if (!data) return undefined;
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64')]));
}
