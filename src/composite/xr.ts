import { describeSource } from '../circuitbreaker/index.js';
import type { KubeObject } from '../kube/index.js';
import type { Condition } from './conditions.js';

// How the composite reconciler reads an XR. Crossplane v2 XRs keep the composition machinery under
// spec.crossplane; legacy (LegacyCluster) XRs keep it directly under spec.

export const COMPOSITE_LABEL = 'crossplane.io/composite';
export const PAUSED_ANNOTATION = 'crossplane.io/paused';
export const COMPOSITE_FINALIZER = 'composite.apiextensions.crossplane.io';

export interface NamedRef {
  name: string;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
}

export interface ResourceRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

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

/** The claim a legacy XR is bound to (spec.claimRef). */
export interface ClaimRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
}

export interface Xr extends KubeObject {
  metadata: KubeObject['metadata'] & {
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown> & {
    conditions?: Condition[];
    lastHandledReconcileAt?: string;
    effectivePollInterval?: string;
  };
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

export function conditionsOf(xr: Xr): Condition[] {
  return xr.status?.conditions ?? [];
}

export function findCondition(xr: Xr, type: string): Condition | undefined {
  return conditionsOf(xr).find((c) => c.type === type);
}

export function isPaused(xr: Xr): boolean {
  return xr.metadata.annotations?.[PAUSED_ANNOTATION] === 'true';
}

export function isBeingDeleted(xr: Xr): boolean {
  return xr.metadata.deletionTimestamp !== undefined;
}

/** "Kind/name" or "Kind/name (namespace)", how events and messages name an object (the breaker's naming). */
export function describe(object: { kind: string; metadata: { name: string; namespace?: string } }): string {
  return describeSource(object.kind, object.metadata.name, object.metadata.namespace);
}

/** The claim a legacy XR is bound to, when its spec.claimRef is complete. */
export function claimOf(xr: Xr): ClaimRef | undefined {
  const ref = xr.spec?.claimRef as Partial<ClaimRef> | undefined;
  if (!ref?.apiVersion || !ref.kind || !ref.name || !ref.namespace) return undefined;
  return ref as ClaimRef;
}
