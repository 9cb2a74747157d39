import type { OwnWrites } from '../circuitbreaker/index.js';
import { COMPOSITE_LABEL, type Xr, type XrType } from '../controller/index.js';
import { isNotFound, serverSideApply, type Discovery, type KubeClient } from '../kube/index.js';
import {
  appliesAs,
  machineryOwnedByXrOwner,
  MACHINERY_FIELD_OWNER,
  STATUS_FIELD_OWNER,
  statusFieldsOwnedByXrOwner,
  type ManagedFieldsEntry,
} from './fieldOwners.js';
import { mapLimited } from './limitedParallel.js';
import { COMPOSITE_FINALIZER, machineryOf } from './xr.js';

// Earlier compositor releases applied an XR's whole machinery (finalizer, composite label, Composition and revision
// references, resourceRefs) under Crossplane's XR manager name. Crossplane applies only resourceRefs under that name,
// so after a rollback its first apply would release, and the API server remove, everything else. This one-time pass
// at a composite controller's start finds those XRs (the cache keeps no managedFields, so it lists them once) and
// applies the same values under compositor's own manager: co-owned, nothing can be removed by the other's apply.
// They also applied a legacy XR's status.connectionDetails and status.claimConditionTypes under that name, which
// Crossplane writes with plain updates: its status apply would release them, and the API server reject the apply
// that leaves connectionDetails null. Those are co-owned the same way, on the status subresource.

const PAGE_SIZE = 500;
const CONCURRENCY = 4;

interface ListPage {
  items?: Xr[];
  metadata?: { continue?: string };
}

export interface AdoptMachineryOptions {
  client: KubeClient;
  discovery: Discovery;
  xrType: XrType;
  ownWrites: OwnWrites;
  /** With shards: whether this replica owns an XR. */
  owns?: (xr: Xr) => boolean;
  signal: AbortSignal;
}

/** The apply that makes compositor's manager co-own what the XR manager owns of the machinery; undefined if none. */
export function adoptionOf(xr: Xr, legacy: boolean): Xr | undefined {
  const managedFields = (xr.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields;
  if (appliesAs(managedFields, MACHINERY_FIELD_OWNER)) return undefined;
  const owned = machineryOwnedByXrOwner(managedFields, legacy);
  if (owned.length === 0) return undefined;
  const current = machineryOf(xr, legacy) as Record<string, unknown>;
  const machinery: Record<string, unknown> = {};
  for (const field of owned) if (current[field] !== undefined) machinery[field] = current[field];
  return {
    apiVersion: xr.apiVersion,
    kind: xr.kind,
    metadata: adoptedMetadata(xr, owned),
    spec: legacy ? machinery : { crossplane: machinery },
  };
}

function adoptedMetadata(xr: Xr, owned: readonly string[]): Xr['metadata'] {
  const metadata: Xr['metadata'] = {
    name: xr.metadata.name,
    ...(xr.metadata.namespace ? { namespace: xr.metadata.namespace } : {}),
  };
  if (owned.includes('finalizers') && xr.metadata.finalizers?.includes(COMPOSITE_FINALIZER)) {
    metadata.finalizers = [COMPOSITE_FINALIZER];
  }
  const label = xr.metadata.labels?.[COMPOSITE_LABEL];
  if (owned.includes('labels') && label !== undefined) metadata.labels = { [COMPOSITE_LABEL]: label };
  return metadata;
}

/**
 * The status apply that makes compositor's status manager co-own the updated status fields (fieldOwners.ts
 * UPDATED_STATUS_FIELDS) that Crossplane's XR manager owns and it does not yet; undefined if none.
 */
export function statusAdoptionOf(xr: Xr): Xr | undefined {
  const managedFields = (xr.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields;
  const adopted = new Set(statusFieldsOwnedByXrOwner(managedFields, STATUS_FIELD_OWNER));
  const status: Record<string, unknown> = {};
  for (const field of statusFieldsOwnedByXrOwner(managedFields)) {
    if (xr.status?.[field] !== undefined && !adopted.has(field)) status[field] = xr.status[field];
  }
  if (Object.keys(status).length === 0) return undefined;
  const metadata = { name: xr.metadata.name, ...(xr.metadata.namespace ? { namespace: xr.metadata.namespace } : {}) };
  return { apiVersion: xr.apiVersion, kind: xr.kind, metadata, status };
}

interface Adoption {
  body: Xr;
  fieldManager: string;
  subresource: 'status' | undefined;
}

function adoptionsOf(xr: Xr, legacy: boolean): Adoption[] {
  const adoptions: Adoption[] = [];
  const machinery = adoptionOf(xr, legacy);
  if (machinery) adoptions.push({ body: machinery, fieldManager: MACHINERY_FIELD_OWNER, subresource: undefined });
  const status = statusAdoptionOf(xr);
  if (status) adoptions.push({ body: status, fieldManager: STATUS_FIELD_OWNER, subresource: 'status' });
  return adoptions;
}

/** Runs the pass over every XR of one kind; returns how many writes it made. */
export async function adoptMachinery(options: AdoptMachineryOptions): Promise<number> {
  const { client, discovery, xrType, ownWrites, signal } = options;
  const owns = options.owns ?? ((): boolean => true);
  const path = await discovery.path(xrType.apiVersion, xrType.kind, undefined);
  let adopted = 0;
  let token: string | undefined;
  do {
    const page = await client.request<ListPage>('GET', path, {
      query: { limit: PAGE_SIZE, ...(token ? { continue: token } : {}) },
      signal,
    });
    const writes = (page.items ?? []).flatMap((item) => {
      const xr = { ...item, apiVersion: xrType.apiVersion, kind: xrType.kind };
      return owns(xr) ? adoptionsOf(xr, xrType.legacy) : [];
    });
    await mapLimited(
      writes,
      CONCURRENCY,
      async ({ body, fieldManager, subresource }) => {
        await serverSideApply(client, discovery, body, { fieldManager, subresource, echoes: ownWrites, signal }).catch(
          (err: unknown) => {
            // Deleted since the list: nothing left to protect.
            if (!isNotFound(err)) throw err;
          },
        );
      },
      { signal },
    );
    adopted += writes.length;
    token = page.metadata?.continue || undefined;
  } while (token);
  return adopted;
}
