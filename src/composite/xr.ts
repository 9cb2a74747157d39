import type { ObjectRef } from '../apis/index.js';
import type { Xr } from '../controller/index.js';

// How the composite reconciler reads an XR's composition machinery. Crossplane v2 XRs keep it under spec.crossplane;
// legacy (LegacyCluster) XRs keep it directly under spec. What claims share of an XR is in src/controller/xr.ts.

export const COMPOSITE_FINALIZER = 'composite.apiextensions.crossplane.io';

export interface NamedRef {
  name: string;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
}

/** spec.resourceRefs[]: a composed resource the XR holds. */
export type ResourceRef = ObjectRef;

/** The composition machinery fields of an XR, wherever its schema keeps them. */
export interface Machinery {
  compositionRef?: NamedRef;
  compositionSelector?: LabelSelector;
  compositionRevisionRef?: NamedRef;
  compositionRevisionSelector?: LabelSelector;
  compositionUpdatePolicy?: 'Automatic' | 'Manual';
  resourceRefs?: ResourceRef[];
  /** Legacy XRs only: where their connection details are published. */
  writeConnectionSecretToRef?: { name: string; namespace: string };
}

/** The path of the machinery object inside the XR. */
export function machineryPath(legacy: boolean): readonly string[] {
  return legacy ? ['spec'] : ['spec', 'crossplane'];
}

export function machineryOf(xr: Xr, legacy: boolean): Machinery {
  const spec = xr.spec ?? {};
  if (legacy) return spec;
  return spec.crossplane ?? {};
}
