// What the ops reconcilers ask of the API server, as one narrow interface: tests pass an in-memory fake,
// kubeStore.ts is the real one. Every write that must not act on a stale object carries its resourceVersion.
import type { KubeObject } from '../kube/index.js';
import type { CronOperation, Operation, WatchOperation } from './types.js';

export type OpsObject = Operation | CronOperation | WatchOperation;
export type OpsKind = OpsObject['kind'];
export type OpsObjectOf<K extends OpsKind> = Extract<OpsObject, { kind: K }>;

/** An object any function may return for an Operation to apply: any Kubernetes object. */
export type AppliedObject = KubeObject;

export interface OpsStore {
  /** The object, or undefined when it does not exist. */
  get<K extends OpsKind>(kind: K, name: string, signal: AbortSignal): Promise<OpsObjectOf<K> | undefined>;
  /** The Operations labelled `label: owner`. */
  listOperations(label: string, owner: string, signal: AbortSignal): Promise<Operation[]>;
  /** Creates an Operation; rejects with the API's AlreadyExists when the name is taken. */
  createOperation(op: Operation, signal: AbortSignal): Promise<Operation>;
  /** Deletes an Operation (by UID precondition when it has one); an Operation already gone is not an error. */
  deleteOperation(op: Operation, signal: AbortSignal): Promise<void>;
  /** Replaces the status; rejects with a conflict when the object changed since it was read. */
  updateStatus<T extends OpsObject>(object: T, signal: AbortSignal): Promise<T>;
  /**
   * Merges annotations (a null value removes one) and replaces the finalizers when given; rejects with a conflict
   * when the object changed since it was read (its resourceVersion goes with the patch).
   */
  patchMetadata<T extends OpsObject>(
    object: T,
    patch: { annotations?: Record<string, string | null>; finalizers?: string[] },
    signal: AbortSignal,
  ): Promise<T>;
  /** Server-side applies `object` as `fieldManager`, taking conflicting fields (force). */
  apply(object: AppliedObject, fieldManager: string, signal: AbortSignal): Promise<void>;
  /** A Secret's data (base64 values), or undefined when it does not exist. */
  getSecret(namespace: string, name: string, signal: AbortSignal): Promise<Record<string, string> | undefined>;
}
