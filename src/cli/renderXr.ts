// The XR as crank's reconciler hands it to the first function: what the API server and the composite reconciler
// add before any function runs. Without it, patches from metadata.uid or the composite label would read nothing.
import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../functions/index.js';
import { COMPOSITE_LABEL, RENDER_TIME } from './renderOutput.js';

function obj(v: unknown): JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** uuid.NewSHA1(uuid.Nil, name): a version 5 UUID in the nil namespace. */
function uuidV5Nil(name: string): string {
  const b = createHash('sha1').update(Buffer.alloc(16)).update(name).digest().subarray(0, 16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x50;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const x = b.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** schema.GroupVersionKind.String(): `group/version, Kind=kind` (`/v1, Kind=...` for the core group). */
function gvkString(xr: JsonObject): string {
  const apiVersion = str(xr.apiVersion);
  const groupVersion = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  return `${groupVersion}, Kind=${str(xr.kind)}`;
}

/**
 * A copy of the XR with a uid (kept when the file has one; otherwise deterministic, as crossplane internal/render
 * composite/render.go derives it from the kind, namespace and name, so composed names are stable), the crossplane.io/composite
 * label (APINamingConfigurator), the selected composition's reference and the Responsive condition of a closed
 * watch circuit.
 *
 * @example reconcilerView(xr, 'my-composition', false).metadata.labels['crossplane.io/composite'] === 'my-xr'
 */
export function reconcilerView(xr: JsonObject, compositionName: string, legacy: boolean): JsonObject {
  const view = structuredClone(xr);
  const metadata = (view.metadata = obj(view.metadata));
  // crossplane internal/render/composite/render.go: gvk.String() + "\x00" + namespace + "\x00" + name.
  if (str(metadata.uid) === '') {
    metadata.uid = uuidV5Nil([gvkString(view), str(metadata.namespace), str(metadata.name)].join('\u0000'));
  }
  const labels = (metadata.labels = obj(metadata.labels));
  if (str(labels[COMPOSITE_LABEL]) === '') labels[COMPOSITE_LABEL] = str(metadata.name);
  const spec = (view.spec = obj(view.spec));
  const machinery = legacy ? spec : (spec.crossplane = obj(spec.crossplane));
  machinery.compositionRef = { name: compositionName };
  const status = (view.status = obj(view.status));
  const conditions: JsonValue[] = Array.isArray(status.conditions) ? status.conditions : [];
  if (!conditions.some((c) => obj(c).type === 'Responsive')) {
    conditions.push({
      lastTransitionTime: RENDER_TIME,
      reason: 'WatchCircuitClosed',
      status: 'True',
      type: 'Responsive',
    });
  }
  status.conditions = conditions;
  return view;
}
