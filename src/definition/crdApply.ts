import type { CustomResourceDefinition } from '../apis/index.js';
import { isSubset } from '../controller/index.js';
import { isConflict, serverMessage, serverSideApply, type KubeClient } from '../kube/index.js';
import type { CompositeResourceDefinition } from './xrd.js';

const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/**
 * What a rendered CRD is to its XRD: the condition that reports it, and the event reason and the name Crossplane's
 * controller for it (definition for the XR CRD, offered for the claim CRD) uses in its events.
 */
export interface CrdRole {
  condition: 'Established' | 'Offered';
  eventReason: 'EstablishComposite' | 'OfferClaim';
  noun: string;
}

export const XR_CRD: CrdRole = {
  condition: 'Established',
  eventReason: 'EstablishComposite',
  noun: 'composite resource CustomResourceDefinition',
};

export const CLAIM_CRD: CrdRole = {
  condition: 'Offered',
  eventReason: 'OfferClaim',
  noun: 'composite resource claim CustomResourceDefinition',
};

/** The condition reason of an XRD whose rendered CRD the API server did not take (Crossplane sets no condition). */
export const CRD_NOT_APPLIED = 'CRDNotApplied';

/**
 * A rendered CRD the API server refused (or a write of it that failed otherwise, other than a conflict). The
 * message is Crossplane's for the same failure: its controller's "cannot apply rendered ..." around its applicator's
 * "cannot create object" or "cannot update object", around the API server's own message.
 */
export class CrdApplyError extends Error {
  constructor(
    readonly role: CrdRole,
    readonly crdName: string,
    creating: boolean,
    cause: unknown,
  ) {
    const verb = creating ? 'create' : 'update';
    super(`cannot apply rendered ${role.noun}: cannot ${verb} object: ${serverMessage(cause)}`, { cause });
    this.name = 'CrdApplyError';
  }
}

export interface ApplyCrdOptions {
  role: CrdRole;
  /** The CRD as stored now, if it exists: tells a create from an update in the error. */
  existing: CustomResourceDefinition | undefined;
  fieldManager: string;
}

/**
 * Server-side applies a rendered CRD. A conflict is rethrown as it is (the queue retries it at once and quietly);
 * any other failure throws CrdApplyError. Nothing is deleted on failure: the stored CRD keeps serving.
 */
export async function applyRenderedCrd(
  client: KubeClient,
  crd: CustomResourceDefinition,
  options: ApplyCrdOptions,
): Promise<CustomResourceDefinition> {
  try {
    const path = `${CRDS_PATH}/${crd.metadata.name}`;
    return await serverSideApply<CustomResourceDefinition>(client, path, crd, { fieldManager: options.fieldManager });
  } catch (err) {
    if (isConflict(err)) throw err;
    throw new CrdApplyError(options.role, crd.metadata.name, options.existing === undefined, err);
  }
}

/**
 * True when the stored CRD already says everything the rendered one says (spec, labels, annotations, owner), so
 * the controller writes nothing at rest. The API server's defaults (conversion, listKind, singular) and fields
 * other writers added are left alone.
 */
export function crdUnchanged(rendered: CustomResourceDefinition, stored: CustomResourceDefinition): boolean {
  const meta = rendered.metadata;
  return (
    isSubset(rendered.spec, stored.spec) &&
    isSubset(meta.labels ?? {}, stored.metadata.labels ?? {}) &&
    isSubset(meta.annotations ?? {}, stored.metadata.annotations ?? {}) &&
    isSubset(meta.ownerReferences, stored.metadata.ownerReferences)
  );
}

export function controlledBy(crd: CustomResourceDefinition, xrd: CompositeResourceDefinition): boolean {
  return crd.metadata.ownerReferences?.some((ref) => ref.controller === true && ref.uid === xrd.metadata.uid) ?? false;
}

/** True when the stored CRD serves `version` (a claim CRD the claim controller may keep using). */
export function servesVersion(crd: CustomResourceDefinition, version: string | undefined): boolean {
  const versions = (crd.spec as { versions?: { name: string; served?: boolean }[] }).versions ?? [];
  return versions.some((v) => v.name === version && v.served === true);
}
