import { COMPOSITE_LABEL, isSubset, type StatusDraft, type Xr, type XrType } from '../controller/index.js';
import { digest } from '../functions/index.js';
import { ApiError, CONTENT_TYPE, isNotFound, removeFinalizerPatch, serverSideApply } from '../kube/index.js';
import type { ApplyDeps } from './apply.js';
import {
  MACHINERY_FIELD_OWNER,
  STATUS_FIELD_OWNER,
  statusFieldsOwnedByXrOwner,
  UPDATED_STATUS_FIELDS,
  XR_FIELD_OWNER,
  type ManagedFieldsEntry,
} from './fieldOwners.js';
import { COMPOSITE_FINALIZER, machineryOf, type Machinery } from './xr.js';

/**
 * The composite reconciler's writes to the XR itself: its machinery, its finalizer and its status. Each is written
 * only when it would change something, and each is recorded as an own write, so its echo triggers nothing.
 */
export interface XrWriter {
  /**
   * Server-side applies the XR fields compositor owns (finalizer, composite label, composition machinery,
   * resourceRefs) when any differs from what is stored, and updates `xr` from the result.
   */
  applyMachinery(xr: Xr, machinery: Machinery, signal: AbortSignal): Promise<void>;
  /** Removes compositor's finalizer; a list that moved meanwhile is reported as a conflict, a gone XR is fine. */
  removeFinalizer(xr: Xr, signal: AbortSignal): Promise<void>;
  /**
   * Server-side applies the status when the draft differs from what is stored: the fields Crossplane writes by plain
   * update under compositor's own manager, the rest under Crossplane's XR manager. The XR last written, if it was.
   */
  writeStatus(xr: Xr, status: StatusDraft, signal: AbortSignal): Promise<Xr | undefined>;
}

/** The XrWriter of a running controller: requests to the API server, under the field owners of fieldOwners.ts. */
export class ApiXrWriter implements XrWriter {
  /**
   * XRs (by uid) known not to hold UPDATED_STATUS_FIELDS under Crossplane's XR manager alone: checked once per XR and
   * process, since the cache keeps no managedFields.
   */
  private readonly checkedOwners = new Set<string>();

  constructor(private readonly deps: ApplyDeps & { xrType: XrType }) {}

  /**
   * Always the whole set: fields left out of an apply are released, and would be removed. The manager is
   * compositor's own (never Crossplane's XR manager, whose apply holds only resourceRefs), so neither engine's
   * apply can release what the other set.
   */
  async applyMachinery(xr: Xr, machinery: Machinery, signal: AbortSignal): Promise<void> {
    const { legacy } = this.deps.xrType;
    const current = machineryOf(xr, legacy);
    const owned = ownedMachinery(machinery);
    const label = xr.metadata.labels?.[COMPOSITE_LABEL] ?? xr.metadata.name;
    const same =
      (xr.metadata.finalizers ?? []).includes(COMPOSITE_FINALIZER) &&
      xr.metadata.labels?.[COMPOSITE_LABEL] === label &&
      digest(pick(current, owned)) === digest(owned);
    if (same) return;
    const patch = {
      apiVersion: xr.apiVersion,
      kind: xr.kind,
      metadata: {
        ...nameOf(xr),
        finalizers: [COMPOSITE_FINALIZER],
        labels: { [COMPOSITE_LABEL]: label },
      },
      spec: legacy ? owned : { crossplane: owned },
    };
    const { client, discovery, ownWrites } = this.deps;
    const options = { fieldManager: MACHINERY_FIELD_OWNER, echoes: ownWrites, signal };
    const written = await serverSideApply(client, discovery, patch, options);
    xr.metadata = { ...xr.metadata, ...(written.metadata as Xr['metadata']) };
    xr.spec = written.spec as Record<string, unknown>;
  }

  async removeFinalizer(xr: Xr, signal: AbortSignal): Promise<void> {
    if (xr.metadata.uid) this.checkedOwners.delete(xr.metadata.uid);
    const patch = removeFinalizerPatch(xr.metadata.finalizers, COMPOSITE_FINALIZER);
    if (!patch) return;
    const { client, discovery, ownWrites } = this.deps;
    const path = await discovery.path(xr.apiVersion, xr.kind, xr.metadata.name, xr.metadata.namespace);
    // A list that moved meanwhile fails the patch's test; that is a conflict, retried at once.
    await ownWrites
      .track(xr, () => client.request<Xr>('PATCH', path, { body: patch, contentType: CONTENT_TYPE.jsonPatch, signal }))
      .catch((err: unknown) => {
        if (isNotFound(err)) return xr;
        if (err instanceof ApiError && err.status === 422) throw new ApiError(409, 'Conflict', err.message);
        throw err;
      });
  }

  async writeStatus(xr: Xr, status: StatusDraft, signal: AbortSignal): Promise<Xr | undefined> {
    if (status.unchanged()) return undefined;
    const { updated, applied } = splitStatus(status.toStatus());
    const stored = splitStatus(xr.status ?? {});
    const updatedChanged = !sameFields(updated, stored.updated);
    // Something differs; when it is not the updated fields, it is the rest.
    const appliedChanged = !updatedChanged || !sameFields(applied, stored.applied);
    let written: Xr | undefined;
    // Co-owned first: the apply below leaves these fields out, and must not be their last owner when it does.
    if (updatedChanged || (appliedChanged && (await this.heldByXrOwner(xr, updated, signal)))) {
      written = await this.applyStatus(xr, updated, STATUS_FIELD_OWNER, signal);
      if (xr.metadata.uid) this.checkedOwners.add(xr.metadata.uid);
    }
    if (appliedChanged) written = await this.applyStatus(xr, applied, XR_FIELD_OWNER, signal);
    return written;
  }

  /**
   * Whether Crossplane's XR manager owns any of the updated fields the XR has, as an earlier compositor release left
   * them: then compositor's manager co-owns them before its next apply under that name releases them.
   */
  private async heldByXrOwner(xr: Xr, updated: Record<string, unknown>, signal: AbortSignal): Promise<boolean> {
    const uid = xr.metadata.uid;
    if (Object.keys(updated).length === 0 || (uid !== undefined && this.checkedOwners.has(uid))) return false;
    const { client, discovery } = this.deps;
    const path = await discovery.path(xr.apiVersion, xr.kind, xr.metadata.name, xr.metadata.namespace);
    const current = await client.request<Xr>('GET', path, { signal });
    const managedFields = (current.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields;
    const held = statusFieldsOwnedByXrOwner(managedFields).some((field) => field in updated);
    if (!held && uid !== undefined) this.checkedOwners.add(uid);
    return held;
  }

  private async applyStatus(
    xr: Xr,
    status: Record<string, unknown>,
    fieldManager: string,
    signal: AbortSignal,
  ): Promise<Xr> {
    const { client, discovery, ownWrites } = this.deps;
    const body = { apiVersion: xr.apiVersion, kind: xr.kind, metadata: nameOf(xr), status };
    return serverSideApply<Xr>(client, discovery, body, {
      fieldManager,
      subresource: 'status',
      echoes: ownWrites,
      signal,
    });
  }
}

/** A status split by who writes each field in Crossplane: by plain update (UPDATED_STATUS_FIELDS), or by apply. */
function splitStatus(status: Record<string, unknown>): {
  updated: Record<string, unknown>;
  applied: Record<string, unknown>;
} {
  const updated: Record<string, unknown> = {};
  const applied: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(status)) {
    // No conditions and an empty list of them say the same; an apply of either owns none.
    if (key === 'conditions' && Array.isArray(value) && value.length === 0) continue;
    if (UPDATED_STATUS_FIELDS.includes(key)) updated[key] = value;
    else applied[key] = value;
  }
  return { updated, applied };
}

/** The same fields with the same values: each side's every field is in the other. */
function sameFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return isSubset(a, b) && isSubset(b, a);
}

function nameOf(xr: Xr): { name: string; namespace?: string } {
  return { name: xr.metadata.name, ...(xr.metadata.namespace ? { namespace: xr.metadata.namespace } : {}) };
}

/** The machinery fields compositor sets (and so owns), leaving out those it has no value for. */
function ownedMachinery(machinery: Machinery): Machinery {
  const fields = [
    'compositionRef',
    'compositionRevisionRef',
    'compositionRevisionSelector',
    'resourceRefs',
    'writeConnectionSecretToRef',
  ] as const;
  const owned: Record<string, unknown> = {};
  for (const field of fields) if (machinery[field] !== undefined) owned[field] = machinery[field];
  return owned;
}

function pick(from: Machinery, like: Machinery): Machinery {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(like)) out[key] = (from as Record<string, unknown>)[key];
  return out;
}
