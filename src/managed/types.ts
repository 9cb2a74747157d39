import type { ConditionInput, ReconciledObject } from '../controller/index.js';

// The contract between the managed reconciler and a provider, in the shape of crossplane-runtime's
// pkg/reconciler/managed (ExternalConnecter, ExternalClient, ExternalObservation), written for TypeScript.

/** Connection details by key, as plain strings; they are written base64-encoded to the connection Secret. */
export type ConnectionDetails = Record<string, string>;

export interface SecretReference {
  name: string;
  /** Cluster-scoped managed resources only: a namespaced one writes its Secret in its own namespace. */
  namespace?: string;
}

export type DeletionPolicy = 'Delete' | 'Orphan';

/** The spec fields every managed resource has, beside its provider's own (forProvider and more). */
export type ManagedSpec = Record<string, unknown> & {
  forProvider?: Record<string, unknown>;
  deletionPolicy?: DeletionPolicy;
  managementPolicies?: string[];
  writeConnectionSecretToRef?: SecretReference;
};

/**
 * A managed resource (MR): a Kubernetes object that stands for one resource in an external system. It reads like
 * an XR for the parts both have (conditions, poll interval, reconcile requests), so the timing helpers are shared.
 */
export interface ManagedResource extends ReconciledObject {
  metadata: ReconciledObject['metadata'] & { creationTimestamp?: string };
  spec?: ManagedSpec;
  status?: NonNullable<ReconciledObject['status']> & { atProvider?: Record<string, unknown> };
}

/** A condition a provider reports from Observe; Synced is the reconciler's own and is ignored. */
export type ReportedCondition = ConditionInput;

/** What Observe found. */
export interface ExternalObservation {
  /** The external resource exists (typically: one with the MR's external name). Absent means Create is due. */
  resourceExists: boolean;
  /** Updating the external resource to the MR's spec would change nothing. False means Update is due. */
  resourceUpToDate: boolean;
  /**
   * Observe filled in spec fields of the MR it was given from the external resource; the reconciler writes the
   * spec back when the managementPolicies allow LateInitialize.
   */
  resourceLateInitialized?: boolean;
  connectionDetails?: ConnectionDetails;
  /** Written to status.atProvider: what the external system holds. */
  atProvider?: Record<string, unknown>;
  /** Conditions to report, typically Ready: Available when the external resource is usable. */
  conditions?: ReportedCondition[];
  /**
   * The external resource will change by itself this soon (a provider that knows, such as nop's conditionAfter):
   * observe again then instead of waiting for the poll interval.
   */
  observeAgainInMs?: number;
}

export interface ExternalCreation {
  connectionDetails?: ConnectionDetails;
}

export interface ExternalUpdate {
  connectionDetails?: ConnectionDetails;
}

/**
 * Talks to the external system about one MR. Calls must be idempotent and must not block: Create must not fail
 * when the resource exists already, Delete must not fail when it is gone. Each call may change the MR it is given:
 * Observe its spec (late initialization, persisted only with resourceLateInitialized), Create its annotations
 * (crossplane.io/external-name, persisted with the create-succeeded annotation). Status comes from the observation.
 */
export interface ExternalClient<T extends ManagedResource = ManagedResource> {
  observe(mr: T, signal: AbortSignal): Promise<ExternalObservation>;
  create(mr: T, signal: AbortSignal): Promise<ExternalCreation>;
  update(mr: T, signal: AbortSignal): Promise<ExternalUpdate>;
  delete(mr: T, signal: AbortSignal): Promise<void>;
  /** Releases what connect acquired; called after every reconcile that connected, whatever its outcome. */
  disconnect(signal: AbortSignal): Promise<void>;
}

/**
 * Produces an ExternalClient for one MR, typically after reading its provider configuration and credentials.
 *
 * @example
 * const connector: ExternalConnector<Bucket> = {
 *   connect: async (bucket) => new BucketClient(await credentialsFor(bucket)),
 * };
 */
export interface ExternalConnector<T extends ManagedResource = ManagedResource> {
  connect(mr: T, signal: AbortSignal): Promise<ExternalClient<T>>;
}
