import type { ObjectMeta } from '../apis/index.js';
import { deeperThan, MAX_NESTING_DEPTH } from '../base/index.js';
import { describeSource } from '../circuitbreaker/index.js';
import type { KubeObject } from '../kube/index.js';
import type { Condition } from './conditions.js';

export const PAUSED_ANNOTATION = 'crossplane.io/paused';

/**
 * An object a controller reconciles (an XR, a claim, a managed resource): the metadata the reconcilers read and
 * the status they write. Each kind narrows it with its own spec and status fields.
 */
export interface ReconciledObject extends KubeObject {
  metadata: KubeObject['metadata'] & ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown> & {
    conditions?: Condition[];
    lastHandledReconcileAt?: string;
    effectivePollInterval?: string;
  };
}

export function conditionsOf(object: ReconciledObject): Condition[] {
  return object.status?.conditions ?? [];
}

export function findCondition(object: ReconciledObject, type: string): Condition | undefined {
  return conditionsOf(object).find((c) => c.type === type);
}

/** crossplane.io/paused is "true": reconciliation, deletion included, stops until it is removed. */
export function isPaused(object: ReconciledObject): boolean {
  return object.metadata.annotations?.[PAUSED_ANNOTATION] === 'true';
}

export function isBeingDeleted(object: ReconciledObject): boolean {
  return object.metadata.deletionTimestamp !== undefined;
}

/** "Kind/name" or "Kind/name (namespace)", how events and messages name an object (the breaker's naming). */
export function describe(object: { kind: string; metadata: { name: string; namespace?: string } }): string {
  return describeSource(object.kind, object.metadata.name, object.metadata.namespace);
}

/**
 * The object without the fields of its spec and status nested past the engine's bound (base/nesting.ts), each kept
 * field copied: what deleting needs (metadata, references), for an object too deep to reconcile otherwise. A user
 * can then still delete an XR or claim whose spec they made too deep.
 */
export function boundedCopy<T extends ReconciledObject>(object: T): T {
  const copy: Record<string, unknown> = {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: structuredClone(object.metadata),
  };
  for (const field of ['spec', 'status'] as const) {
    const value = object[field];
    if (value === undefined) continue;
    const kept = Object.entries(value).filter(([, v]) => deeperThan(v, MAX_NESTING_DEPTH - 1) === undefined);
    copy[field] = structuredClone(Object.fromEntries(kept));
  }
  return copy as T;
}
