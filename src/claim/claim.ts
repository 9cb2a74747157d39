import { createHash } from 'node:crypto';
import {
  CLAIM_NAME_LABEL,
  CLAIM_NAMESPACE_LABEL,
  claimOf,
  type ClaimRef,
  type Condition,
  type Xr,
  type XrType,
} from '../controller/index.js';

// Claims as compositor reads and writes them (Crossplane's v1 claims): which fields are the claim's own, the XR a
// claim asks for, and what of its XR a claim shows. Pure: no Kubernetes calls.

export const CLAIM_FINALIZER = 'finalizer.apiextensions.crossplane.io';
/** The field manager of what a claim writes to its XR, and of what compositor writes back to the claim. */
export const CLAIM_FIELD_MANAGER = 'apiextensions.crossplane.io/claim';

export interface Claim extends Xr {
  metadata: Xr['metadata'] & { namespace: string };
  spec?: Record<string, unknown> & {
    resourceRef?: { apiVersion: string; kind: string; name: string };
    writeConnectionSecretToRef?: { name: string };
    compositeDeletePolicy?: 'Background' | 'Foreground';
    compositionRef?: { name: string };
    compositionRevisionRef?: { name: string };
  };
  status?: Xr['status'] & { connectionDetails?: { lastPublishedTime?: string } };
}

/** Claim spec fields that configure the claim itself and never reach its XR. */
const CLAIM_ONLY_FIELDS = new Set(['resourceRef', 'writeConnectionSecretToRef', 'compositeDeletePolicy']);
/**
 * XR machinery a claim never carries to its XR (crossplane#7626): a claim whose schema keeps unknown fields could
 * otherwise smuggle composed resource references or the `crossplane` stanza into the XR, which its controller acts on.
 */
const XR_MACHINERY_FIELDS = new Set(['resourceRefs', 'crossplane']);
/** XR status fields that are about the XR, not what the claim's user asked for. */
const XR_ONLY_STATUS = new Set([
  'conditions',
  'connectionDetails',
  'claimConditionTypes',
  'lastHandledReconcileAt',
  'effectivePollInterval',
]);
/**
 * A statically provisioned XR's name for its external resource. Crossplane's claim syncer puts the XR's own value back
 * into every apply it makes as the claim's manager; left out of compositor's apply under that name, it would be
 * released and removed once the claim no longer carries it.
 */
const EXTERNAL_NAME_ANNOTATION = 'crossplane.io/external-name';
const MAX_NAME = 63;
const SUFFIX = 5;

/**
 * The name of the XR a claim creates: `<claim-name>-<suffix>` as upstream's, but the suffix is derived from the
 * claim's uid rather than random, so a claim that crashed between creating its XR and recording it finds the same
 * XR again instead of creating a second one.
 */
export function compositeNameFor(claim: Claim): string {
  const suffix = createHash('sha256')
    .update(claim.metadata.uid ?? `${claim.metadata.namespace}/${claim.metadata.name}`)
    .digest('hex')
    .slice(0, SUFFIX);
  const prefix = claim.metadata.name.slice(0, MAX_NAME - SUFFIX - 1).replace(/[-.]+$/, '');
  return `${prefix}-${suffix}`;
}

export function claimRefOf(claim: Claim): ClaimRef {
  return {
    apiVersion: claim.apiVersion,
    kind: claim.kind,
    name: claim.metadata.name,
    namespace: claim.metadata.namespace,
  };
}

export function isBoundTo(xr: Xr, claim: Claim): boolean {
  const ref = claimOf(xr);
  return ref?.name === claim.metadata.name && ref.namespace === claim.metadata.namespace;
}

/** Labels and annotations Kubernetes tools own (kubectl's last-applied, for one): a claim's stay on the claim. */
function isReserved(key: string): boolean {
  const prefix = key.includes('/') ? key.slice(0, key.indexOf('/')) : '';
  return (
    prefix === 'kubernetes.io' || prefix === 'k8s.io' || prefix.endsWith('.kubernetes.io') || prefix.endsWith('.k8s.io')
  );
}

function propagated(entries: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(entries ?? {}).filter(([key]) => !isReserved(key)));
}

/**
 * What the claim asks of its XR, as a server-side apply body: the claim's labels and annotations (and the XR's own
 * external name, as Crossplane's syncer keeps it), its spec without the claim-only fields, and the claim reference. Applied with the claim's own field manager, so a label, annotation,
 * list item or map key removed from the claim is removed from the XR too.
 */
export function compositeFromClaim(claim: Claim, xrType: XrType, name: string, existing?: Xr): Xr {
  // As Crossplane's claim syncer: the claim pins the revision only while the XR's policy is Manual; otherwise the XR's
  // controller is its authority, and the ref flows the other way (claimSpecFromComposite).
  const pinned = existing?.spec?.compositionUpdatePolicy === 'Manual';
  const spec: Record<string, unknown> = Object.fromEntries(
    Object.entries(structuredClone(claim.spec ?? {})).filter(
      ([field]) =>
        !CLAIM_ONLY_FIELDS.has(field) &&
        !XR_MACHINERY_FIELDS.has(field) &&
        (pinned || field !== 'compositionRevisionRef'),
    ),
  );
  spec.claimRef = claimRefOf(claim);
  return {
    apiVersion: xrType.apiVersion,
    kind: xrType.kind,
    metadata: {
      name,
      labels: {
        ...propagated(claim.metadata.labels),
        [CLAIM_NAME_LABEL]: claim.metadata.name,
        [CLAIM_NAMESPACE_LABEL]: claim.metadata.namespace,
      },
      annotations: { ...propagated(claim.metadata.annotations), ...externalNameOf(existing) },
    },
    spec,
  };
}

function externalNameOf(xr: Xr | undefined): Record<string, string> {
  const name = xr?.metadata.annotations?.[EXTERNAL_NAME_ANNOTATION];
  return name ? { [EXTERNAL_NAME_ANNOTATION]: name } : {};
}

/**
 * What compositor records on the claim's spec, as Crossplane's claim syncer does: the XR it is bound to; the
 * Composition the XR runs with when the claim named none, so a later change of the claim's selector does not move an
 * existing XR to another Composition; and, while the XR's update policy is Automatic, the revision the XR runs (the
 * XR's controller is then the authority for it).
 */
export function claimSpecFromComposite(claim: Claim, xr: Xr): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    resourceRef: { apiVersion: xr.apiVersion, kind: xr.kind, name: xr.metadata.name },
  };
  const compositionRef = xr.spec?.compositionRef as { name?: string } | undefined;
  if (!claim.spec?.compositionRef && compositionRef?.name) spec.compositionRef = { name: compositionRef.name };
  const revisionRef = xr.spec?.compositionRevisionRef as { name?: string } | undefined;
  if (xr.spec?.compositionUpdatePolicy === 'Automatic' && revisionRef?.name) {
    spec.compositionRevisionRef = { name: revisionRef.name };
  }
  return spec;
}

/** The XR's status fields a claim shows: everything the pipeline wrote, none of the XR's own bookkeeping. */
export function claimStatusFields(xr: Xr): Record<string, unknown> {
  return Object.fromEntries(Object.entries(xr.status ?? {}).filter(([key]) => !XR_ONLY_STATUS.has(key)));
}

const WAITING: Omit<Condition, 'lastTransitionTime'> = {
  type: 'Ready',
  status: 'False',
  reason: 'Waiting',
  message: 'Claim is waiting for composite resource to become Ready',
};

/**
 * The conditions a claim copies from its XR: Ready (or "waiting" until the XR has one that is True), and every
 * condition the pipeline targeted at the claim, listed in the XR's status.claimConditionTypes.
 */
export function claimConditionsFrom(xr: Xr | undefined): Omit<Condition, 'lastTransitionTime'>[] {
  const conditions = xr?.status?.conditions ?? [];
  const types = new Set((xr?.status?.claimConditionTypes as string[] | undefined) ?? []);
  const targeted = conditions.filter((c) => types.has(c.type) && c.type !== 'Ready').map(withoutTimes);
  return [readyFrom(conditions.find((c) => c.type === 'Ready')), ...targeted];
}

function readyFrom(ready: Condition | undefined): Omit<Condition, 'lastTransitionTime'> {
  if (ready?.status === 'True') return withoutTimes(ready);
  return ready?.message ? { ...WAITING, message: `${WAITING.message}: ${ready.message}` } : WAITING;
}

function withoutTimes(condition: Condition): Omit<Condition, 'lastTransitionTime'> {
  const { lastTransitionTime: _time, observedGeneration: _generation, ...rest } = condition;
  return rest;
}
