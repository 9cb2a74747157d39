// Connection details (connection.go). Legacy XRs get their connection details in the desired composite's
// connection_details, which Crossplane publishes; modern (v2) XRs, recognised by spec.crossplane, cannot hold
// connection details, so P&T composes a Secret with them instead.
import type { JsonObject } from '../../types.js';
import { getValue, isNotFound } from '../fieldpath.js';
import {
  fromFieldPathRequired,
  patchType,
  toFieldPath,
  type ConnectionDetail,
  type ConnectionSecretRefInput,
} from './input.js';
import { applyCombinePatch, applyFromFieldPathPatch } from './patches.js';
import { validateConnectionDetail } from './validate.js';

export type ConnectionDetails = Record<string, Uint8Array>;

function fromFieldPath(object: JsonObject, path: string): Uint8Array | undefined {
  let value: unknown;
  try {
    value = getValue(object, path);
  } catch {
    // A path that does not resolve yet is skipped: it may exist with a valid value later.
    return undefined;
  }
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
}

/** The XR connection details a template derives from its observed composed resource (ExtractConnectionDetails). */
export function extractConnectionDetails(
  observed: JsonObject,
  observedDetails: ConnectionDetails,
  config: readonly ConnectionDetail[],
): ConnectionDetails {
  const out: ConnectionDetails = {};
  for (const d of config) {
    const invalid = validateConnectionDetail(d);
    if (invalid !== undefined) throw new Error(`invalid: ${invalid.message}`, { cause: invalid });
    const name = d.name ?? '';
    let value: Uint8Array | undefined;
    if (d.type === 'FromValue') value = Buffer.from(d.value ?? '');
    // A key that is not there yet is skipped: the composed resource may still write it.
    else if (d.type === 'FromConnectionSecretKey') value = observedDetails[d.fromConnectionSecretKey ?? ''];
    else value = fromFieldPath(observed, d.fromFieldPath ?? '');
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Whether the XR takes connection details itself: only legacy XRs do; a modern XR has spec.crossplane. */
export function supportsConnectionDetails(xr: JsonObject): boolean {
  const spec = xr.spec;
  return !(spec !== null && typeof spec === 'object' && !Array.isArray(spec) && 'crossplane' in spec);
}

export interface SecretRef {
  name: string;
  namespace: string;
}

const REF_PATCH_TYPES = new Set(['FromCompositeFieldPath', 'CombineFromComposite']);

function applyRefPatch(
  xr: JsonObject,
  ref: JsonObject,
  p: NonNullable<ConnectionSecretRefInput['patches']>[number],
): void {
  const type = patchType(p);
  if (!REF_PATCH_TYPES.has(type)) throw new Error(`unsupported patch type "${type}"`);
  const to = type === 'CombineFromComposite' ? (p.toFieldPath ?? '') : toFieldPath(p);
  if (to !== 'name' && to !== 'namespace') throw new Error(`toFieldPath must be name or namespace, not "${to}"`);
  try {
    if (type === 'CombineFromComposite') applyCombinePatch(p, xr, ref);
    else applyFromFieldPathPatch(p, xr, ref);
  } catch (err) {
    if (isNotFound(err) && !fromFieldPathRequired(p)) return;
    throw err;
  }
  if (typeof ref[to] !== 'string') throw new Error(`${to}: patched value is not a string`);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The XR's own spec.writeConnectionSecretToRef, if it has one. */
function ownRef(xr: JsonObject): SecretRef | undefined {
  const spec = xr.spec;
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return undefined;
  const own = spec.writeConnectionSecretToRef;
  if (own === null || typeof own !== 'object' || Array.isArray(own)) return undefined;
  return { name: str(own.name), namespace: str(own.namespace) };
}

/** The input's name/namespace when either is set, else `<xr-name>-connection` in the XR's namespace. */
function baseRef(xr: JsonObject, input: ConnectionSecretRefInput | null | undefined): JsonObject {
  const name = str(input?.name);
  const namespace = str(input?.namespace);
  if (name !== '' || namespace !== '') return { name, namespace };
  const metadata = (xr.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  return { name: `${str(metadata.name)}-connection`, namespace: str(metadata.namespace) };
}

/**
 * Where a modern XR's connection Secret goes: the XR's own spec.writeConnectionSecretToRef, else the input's
 * name/namespace, else `<xr-name>-connection` in the XR's namespace; then the input's patches.
 */
export function connectionSecretRef(xr: JsonObject, input: ConnectionSecretRefInput | null | undefined): SecretRef {
  const own = ownRef(xr);
  if (own !== undefined) return own;
  const ref = baseRef(xr, input);
  for (const [i, p] of (input?.patches ?? []).entries()) {
    try {
      applyRefPatch(xr, ref, p);
    } catch (err) {
      throw new Error(`cannot apply connection secret ref patch at index ${i}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  return { name: str(ref.name), namespace: str(ref.namespace) };
}

/** The composed Secret holding a modern XR's connection details. */
export function connectionSecret(ref: SecretRef, details: ConnectionDetails): JsonObject {
  const data: JsonObject = {};
  for (const [key, value] of Object.entries(details)) data[key] = Buffer.from(value).toString('base64');
  const metadata: JsonObject = { name: ref.name };
  if (ref.namespace !== '') metadata.namespace = ref.namespace;
  return { apiVersion: 'v1', kind: 'Secret', metadata, type: 'connection.crossplane.io/v1alpha1', data };
}
