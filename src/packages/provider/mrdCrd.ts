// The CRD an Active ManagedResourceDefinition stands for, as Crossplane v2.3's MRD controller forms it
// (internal/controller/apiextensions/managed/crd.go): only the fields it has opinions about, so that a server-side
// apply owns no defaults; versions sorted by name; owned by the MRD, and by the MRD's controller reference (its
// ProviderRevision) copied as it is, so the CRD stays while either exists.
import type { OwnerReference } from '../configuration/index.js';
import type { Condition } from '../types.js';
import { CRD, MRD } from './names.js';

export interface ManagedResourceDefinition {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    uid?: string;
    ownerReferences?: OwnerReference[];
    deletionTimestamp?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  spec: {
    group: string;
    names: Record<string, unknown> & { kind: string; plural: string };
    scope: string;
    versions: CrdVersion[];
    conversion?: unknown;
    preserveUnknownFields?: boolean;
    state?: 'Active' | 'Inactive';
  };
  status?: { conditions?: Condition[] };
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: unknown };
  subresources?: { status?: unknown; scale?: unknown };
  additionalPrinterColumns?: unknown[];
  selectableFields?: unknown[];
}

const NAME_FIELDS = ['kind', 'plural', 'singular', 'listKind', 'shortNames', 'categories'] as const;

/** The CRD as applied: only the fields the MRD controller has opinions about. */
export interface CrdManifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; ownerReferences: OwnerReference[] };
  spec: Record<string, unknown>;
}

export function crdOf(mrd: ManagedResourceDefinition): CrdManifest {
  const { spec } = mrd;
  const names: Record<string, unknown> = {};
  for (const field of NAME_FIELDS) {
    const value = spec.names[field];
    if (value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0)) names[field] = value;
  }
  const owner: OwnerReference = { ...MRD, name: mrd.metadata.name, uid: mrd.metadata.uid ?? '' };
  const controller = mrd.metadata.ownerReferences?.find((r) => r.controller === true);
  return {
    ...CRD,
    metadata: { name: mrd.metadata.name, ownerReferences: controller ? [owner, controller] : [owner] },
    spec: {
      group: spec.group,
      scope: spec.scope,
      names,
      ...(spec.conversion !== undefined ? { conversion: spec.conversion } : {}),
      ...(spec.preserveUnknownFields === true ? { preserveUnknownFields: true } : {}),
      versions: [...spec.versions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(versionOf),
    },
  };
}

function versionOf(v: CrdVersion): Record<string, unknown> {
  return {
    name: v.name,
    served: v.served,
    storage: v.storage,
    ...(v.deprecated === true ? { deprecated: true } : {}),
    ...(v.deprecationWarning !== undefined ? { deprecationWarning: v.deprecationWarning } : {}),
    ...(v.schema?.openAPIV3Schema !== undefined ? { schema: { openAPIV3Schema: v.schema.openAPIV3Schema } } : {}),
    ...subresourcesOf(v.subresources),
    ...(v.additionalPrinterColumns?.length ? { additionalPrinterColumns: v.additionalPrinterColumns } : {}),
    ...(v.selectableFields?.length ? { selectableFields: v.selectableFields } : {}),
  };
}

function subresourcesOf(s: CrdVersion['subresources']): Record<string, unknown> {
  if (s === undefined) return {};
  const out: Record<string, unknown> = {};
  if (s.status !== undefined && s.status !== null) out.status = {};
  if (s.scale !== undefined && s.scale !== null) out.scale = s.scale;
  return Object.keys(out).length > 0 ? { subresources: out } : {};
}
