import { isDeepStrictEqual } from 'node:util';
import { composedFieldOwner, XR_FIELD_OWNER } from '../../src/composite/index.js';
import { CONTENT_TYPE, Discovery, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { get, type TestApi } from './engine.js';

// Crossplane core v2.3's writes, made as its source makes them, for the migration tests (no Crossplane binary runs):
// - plain updates (manager `crossplane`, from its user agent) for the finalizer, the composite label, the Composition
//   and revision references and a legacy XR's connection Secret reference (composite/reconciler.go, api.go);
// - a server-side apply as `apiextensions.crossplane.io/composite` that holds only the resourceRefs, then one of each
//   composed resource as `apiextensions.crossplane.io/composed/<sha256(XR name + XR Kind.group)>`, then one on the
//   status subresource holding the status the pipeline desires and every condition the XR has
//   (composition_functions.go FunctionComposer.Compose);
// - the connection Secret, then one plain update of the whole status when it changed: Synced, Ready and, when the
//   Secret changed, status.connectionDetails.lastPublishedTime (reconciler.go Reconcile);
// - for a claim: a plain update of the claim (its binding and the XR's refs), a server-side apply of its XR as
//   `apiextensions.crossplane.io/claim`, the claim's connection Secret, and a plain update of the claim's status
//   (claim/syncer_ssa.go, claim/reconciler.go).

export const CROSSPLANE = 'crossplane';
export const FINALIZER = 'composite.apiextensions.crossplane.io';
export const CLAIM_FINALIZER = 'finalizer.apiextensions.crossplane.io';
const CONNECTION_SECRET_TYPE = 'connection.crossplane.io/v1alpha1';

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export type Machinery = {
  compositionRef?: { name: string };
  compositionRevisionRef?: { name: string };
  compositionUpdatePolicy?: string;
  writeConnectionSecretToRef?: { name: string; namespace?: string };
  resourceRefs?: { apiVersion: string; kind: string; name: string }[];
};

export type Stored = KubeObject & {
  metadata: KubeObject['metadata'] & {
    uid?: string;
    generation?: number;
    finalizers?: string[];
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
  };
  spec?: Record<string, unknown> & { image?: string; crossplane?: Machinery };
  status?: Record<string, unknown> & {
    conditions?: Condition[];
    connectionDetails?: { lastPublishedTime?: string };
  };
};

export type Secret = KubeObject & {
  metadata: KubeObject['metadata'] & { uid?: string; resourceVersion?: string };
  data?: Record<string, string>;
};

/** The stored object, or a failure naming what is missing. */
export async function must<T extends KubeObject>(client: KubeClient, ref: KubeObject): Promise<T> {
  const found = await get<T>(client, ref);
  if (!found) throw new Error(`${ref.kind} ${ref.metadata.namespace ?? ''}/${ref.metadata.name} not found`);
  return found;
}

async function pathOf(client: KubeClient, ref: KubeObject, collection = false): Promise<string> {
  const name = collection ? undefined : ref.metadata.name;
  return new Discovery(client).path(ref.apiVersion, ref.kind, name, ref.metadata.namespace);
}

/** A plain create, recorded as Crossplane's (or a user's) update. */
export async function create<T extends KubeObject>(client: KubeClient, object: T, manager: string): Promise<T> {
  return client.request<T>('POST', await pathOf(client, object, true), {
    body: object,
    query: { fieldManager: manager },
  });
}

/** A plain update of some fields, as Crossplane's. */
export async function update(client: KubeClient, ref: KubeObject, patch: unknown, subresource = ''): Promise<void> {
  await client.request('PATCH', (await pathOf(client, ref)) + subresource, {
    body: patch,
    contentType: CONTENT_TYPE.mergePatch,
    query: { fieldManager: CROSSPLANE },
  });
}

/** A plain update of a whole object as Crossplane holds it in memory (client.Update, Status().Update). */
export async function put<T extends KubeObject>(client: KubeClient, object: T, subresource = ''): Promise<T> {
  return client.request<T>('PUT', (await pathOf(client, object)) + subresource, {
    body: object,
    query: { fieldManager: CROSSPLANE },
  });
}

export async function serverSideApply<T extends KubeObject = KubeObject>(
  client: KubeClient,
  object: KubeObject,
  manager: string,
  subresource = '',
): Promise<T> {
  return client.request<T>('PATCH', (await pathOf(client, object)) + subresource, {
    body: object,
    contentType: CONTENT_TYPE.apply,
    query: { fieldManager: manager, force: true },
  });
}

export function xrRef(name: string, of: TestApi, namespace: string): KubeObject {
  const namespaced = of.scope === 'Namespaced';
  return { apiVersion: of.apiVersion, kind: of.kind, metadata: { name, ...(namespaced ? { namespace } : {}) } };
}

/** The machinery object where the XR's schema keeps it: spec.crossplane (v2) or spec (legacy XRs). */
export function machinery(of: TestApi, fields: Machinery): Record<string, unknown> {
  return of.scope === 'LegacyCluster' ? fields : { crossplane: fields };
}

export function machineryOf(of: TestApi, xr: Stored): Machinery {
  return (of.scope === 'LegacyCluster' ? (xr.spec as Machinery | undefined) : xr.spec?.crossplane) ?? {};
}

/**
 * Sets a condition as crossplane-runtime's SetConditions does: one equal but for its time is kept as it is. The
 * composite reconciler's ObservedGenerationPropagationManager stamps the XR's generation.
 */
function mark(conditions: Condition[], condition: Condition, generation: number | undefined): Condition[] {
  const stamped = { ...condition, ...(generation === undefined ? {} : { observedGeneration: generation }) };
  const current = conditions.find((c) => c.type === condition.type);
  const { lastTransitionTime: _a, ...want } = stamped;
  const { lastTransitionTime: _b, ...have } = current ?? {};
  if (current && isDeepStrictEqual(want, have)) return conditions;
  if (!current) return [...conditions, stamped];
  return conditions.map((c) => (c.type === condition.type ? stamped : c));
}

export interface ReconcileOptions {
  of: TestApi;
  namespace: string;
  /** The revision the XR runs, and the Composition's namespace for connection Secrets (legacy XRs). */
  revision: string;
  secretsNamespace?: string;
  composedName: string;
  /** The ConfigMap data that revision desires, and the XR's connection details it desires (legacy XRs). */
  data: Record<string, string>;
  connectionDetails?: Record<string, string>;
}

/** Crossplane's record of one reconcile: whether each of its writes changed the object (its resourceVersion moved). */
export type WriteRecord = { write: string; changed: boolean }[];

/**
 * One reconcile of an XR as Crossplane v2.3 makes it, composing one ConfigMap from the revision it runs: the writes
 * listed at the top of this file, in Crossplane's order. Throws what the API server answers, as Crossplane would
 * fail the reconcile (a 422 of its status apply, for one).
 */
export async function crossplaneReconcile(
  client: KubeClient,
  name: string,
  options: ReconcileOptions,
): Promise<WriteRecord> {
  const { of, namespace } = options;
  const record: WriteRecord = [];
  let xr = await must<Stored>(client, xrRef(name, of, namespace));
  const statusBefore = structuredClone(xr.status ?? {});
  let conditions = mark(
    xr.status?.conditions ?? [],
    { type: 'Responsive', status: 'True', reason: 'WatchCircuitClosed', lastTransitionTime: now() },
    xr.metadata.generation,
  );
  xr = await updateMachinery(client, xr, options, record);
  const legacy = of.scope === 'LegacyCluster';
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: options.composedName, ...(legacy ? { namespace } : {}) };
  await recorded(record, `apply XR resourceRefs as ${XR_FIELD_OWNER}`, xr, () =>
    serverSideApply<Stored>(
      client,
      { ...xrRef(name, of, namespace), spec: machinery(of, { resourceRefs: [ref] }) },
      XR_FIELD_OWNER,
    ),
  );
  await applyComposed(client, xr, options, record);
  const status = { image: options.data.image, conditions };
  const applied = await recorded(record, `apply XR status as ${XR_FIELD_OWNER}`, xr, () =>
    serverSideApply<Stored>(client, { ...xrRef(name, of, namespace), status }, XR_FIELD_OWNER, '/status'),
  );
  const published = await publishSecret(client, applied, options, record);
  conditions = applied.status?.conditions ?? [];
  for (const condition of [
    { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', lastTransitionTime: now() },
    { type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: now() },
  ]) {
    conditions = mark(conditions, condition, applied.metadata.generation);
  }
  const next: Stored = { ...applied, status: { ...applied.status, conditions } };
  if (published) next.status = { ...next.status, connectionDetails: { lastPublishedTime: now() } };
  if (!isDeepStrictEqual(next.status, statusBefore)) {
    await recorded(record, 'update XR status', applied, () => put(client, next, '/status'));
  }
  return record;
}

/** The finalizer, the composite label, the Composition and revision refs, a legacy XR's Secret reference. */
async function updateMachinery(
  client: KubeClient,
  xr: Stored,
  options: ReconcileOptions,
  record: WriteRecord,
): Promise<Stored> {
  const { of, revision, secretsNamespace } = options;
  const current = machineryOf(of, xr);
  const secretRef =
    of.scope === 'LegacyCluster' && secretsNamespace && !current.writeConnectionSecretToRef
      ? { writeConnectionSecretToRef: { name: xr.metadata.uid ?? '', namespace: secretsNamespace } }
      : {};
  const has =
    xr.metadata.finalizers?.includes(FINALIZER) &&
    current.compositionRevisionRef?.name === revision &&
    Object.keys(secretRef).length === 0;
  if (has) return xr;
  return recorded(record, 'update XR', xr, async () => {
    await update(client, xr, {
      metadata: {
        finalizers: [...new Set([...(xr.metadata.finalizers ?? []), FINALIZER])],
        labels: { 'crossplane.io/composite': xr.metadata.name },
      },
      spec: machinery(of, {
        compositionRef: { name: of.plural },
        compositionRevisionRef: { name: revision },
        ...secretRef,
      }),
    });
    return must<Stored>(client, xr);
  });
}

async function applyComposed(
  client: KubeClient,
  xr: Stored,
  { of, namespace, composedName, data }: ReconcileOptions,
  record: WriteRecord,
): Promise<void> {
  const labels: Record<string, string> = { 'crossplane.io/composite': xr.metadata.name };
  for (const key of ['crossplane.io/claim-name', 'crossplane.io/claim-namespace']) {
    const value = xr.metadata.labels?.[key];
    if (value !== undefined) labels[key] = value;
  }
  const composed = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: composedName,
      namespace,
      labels,
      annotations: { 'crossplane.io/composition-resource-name': 'settings' },
      ownerReferences: [
        {
          apiVersion: of.apiVersion,
          kind: of.kind,
          name: xr.metadata.name,
          uid: xr.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    data,
  };
  const before = await get<Secret>(client, composed);
  await recorded(record, `apply ConfigMap ${composedName} as its composed owner`, before, () =>
    serverSideApply(
      client,
      composed,
      composedFieldOwner({ apiVersion: of.apiVersion, kind: of.kind, metadata: xr.metadata }),
    ),
  );
}

/**
 * A legacy XR's connection Secret, as Crossplane's publisher writes it: created, or updated when its data differ.
 * True when it wrote.
 */
async function publishSecret(
  client: KubeClient,
  xr: Stored,
  { of, connectionDetails }: ReconcileOptions,
  record: WriteRecord,
): Promise<boolean> {
  const ref = machineryOf(of, xr).writeConnectionSecretToRef;
  if (!connectionDetails || !ref?.namespace) return false;
  const owner = { apiVersion: of.apiVersion, kind: of.kind, name: xr.metadata.name, uid: xr.metadata.uid ?? '' };
  return writeSecret(
    client,
    { name: ref.name, namespace: ref.namespace, owner, data: encoded(connectionDetails) },
    record,
  );
}

interface SecretWrite {
  name: string;
  namespace: string;
  owner: { apiVersion: string; kind: string; name: string; uid: string };
  data: Record<string, string>;
}

async function writeSecret(client: KubeClient, want: SecretWrite, record: WriteRecord): Promise<boolean> {
  const ref: Secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: want.name, namespace: want.namespace } };
  const existing = await get<Secret>(client, ref);
  if (existing && isDeepStrictEqual(existing.data ?? {}, want.data)) return false;
  const secret = {
    ...ref,
    ...existing,
    metadata: {
      ...ref.metadata,
      ...existing?.metadata,
      ownerReferences: [{ ...want.owner, controller: true, blockOwnerDeletion: true }],
    },
    type: CONNECTION_SECRET_TYPE,
    data: want.data,
  };
  await recorded(record, `write Secret ${want.namespace}/${want.name}`, existing, () =>
    existing ? put(client, secret) : create(client, secret, CROSSPLANE),
  );
  return true;
}

function encoded(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]));
}

export interface ClaimOptions {
  of: TestApi;
  claim: KubeObject & { metadata: { name: string; namespace: string } };
  /** The XR's name, as Crossplane generated it. */
  xrName: string;
}

export type StoredClaim = Stored & {
  spec?: Stored['spec'] & {
    resourceRef?: { name: string };
    compositionRevisionRef?: { name: string };
    writeConnectionSecretToRef?: { name: string };
  };
};

/** What Crossplane's claim syncer records on the claim: its XR, the XR's Composition and (Automatic) revision. */
function claimSpecFrom(of: TestApi, xrName: string, xr: Machinery): Record<string, unknown> {
  const spec: Record<string, unknown> = { resourceRef: { apiVersion: of.apiVersion, kind: of.kind, name: xrName } };
  if (xr.compositionRef) spec.compositionRef = xr.compositionRef;
  if (xr.compositionUpdatePolicy === 'Automatic' && xr.compositionRevisionRef) {
    spec.compositionRevisionRef = xr.compositionRevisionRef;
  }
  return spec;
}

/**
 * Crossplane's claim reconcile: the claim's update (when its binding or revision is missing or stale), the XR's
 * apply, the claim's connection Secret, then the claim's status update when it changed.
 */
export async function crossplaneClaimSync(client: KubeClient, options: ClaimOptions): Promise<WriteRecord> {
  const { of, xrName } = options;
  const record: WriteRecord = [];
  const claim = await must<StoredClaim>(client, options.claim);
  const namespace = claim.metadata.namespace ?? '';
  const stored = await get<Stored>(client, xrRef(xrName, of, namespace));
  const spec = claimSpecFrom(of, xrName, stored ? machineryOf(of, stored) : {});
  const bound = claim.metadata.finalizers?.includes(CLAIM_FINALIZER);
  if (!bound || !isSubsetOf(spec, claim.spec ?? {})) {
    await recorded(record, 'update claim', claim, async () => {
      await update(client, claim, { metadata: { finalizers: [CLAIM_FINALIZER] }, spec });
      return must<StoredClaim>(client, claim);
    });
  }
  const xr = await recorded(record, 'apply XR as apiextensions.crossplane.io/claim', stored, () =>
    serverSideApply<Stored>(client, compositeFromClaim(of, xrName, claim, stored), 'apiextensions.crossplane.io/claim'),
  );
  const published = await propagateSecret(client, claim, xr, record);
  await updateClaimStatus(client, { claim, xr, published }, record);
  return record;
}

/**
 * The claim's status as Crossplane's claim reconciler writes it, when it changed: the XR's status fields but the XR's
 * own, the claim's conditions, and when its connection Secret was last written.
 */
async function updateClaimStatus(
  client: KubeClient,
  { claim, xr, published }: { claim: StoredClaim; xr: Stored; published: boolean },
  record: WriteRecord,
): Promise<void> {
  const current = await must<StoredClaim>(client, claim);
  const { conditions: xrConditions, connectionDetails: _d, claimConditionTypes: _t, ...fields } = xr.status ?? {};
  const conditions = claimConditions(current, xrConditions);
  const status: NonNullable<StoredClaim['status']> = { ...fields, conditions };
  const lastPublishedTime = published ? now() : current.status?.connectionDetails?.lastPublishedTime;
  if (lastPublishedTime) status.connectionDetails = { lastPublishedTime };
  if (isDeepStrictEqual(status, current.status ?? {})) return;
  await recorded(record, 'update claim status', current, () => put(client, { ...current, status }, '/status'));
}

/** The claim's conditions as Crossplane's claim reconciler marks them: Synced, and Ready once its XR is. */
function claimConditions(claim: StoredClaim, xrConditions: Condition[] | undefined): Condition[] {
  const xrReady = xrConditions?.find((c) => c.type === 'Ready')?.status === 'True';
  const waiting = { reason: 'Waiting', message: 'Claim is waiting for composite resource to become Ready' };
  const ready = xrReady
    ? { type: 'Ready', status: 'True', reason: 'Available' }
    : { type: 'Ready', status: 'False', ...waiting };
  let conditions = claim.status?.conditions ?? [];
  for (const condition of [{ type: 'Synced', status: 'True', reason: 'ReconcileSuccess' }, ready]) {
    conditions = mark(conditions, { ...condition, lastTransitionTime: now() }, claim.metadata.generation);
  }
  return conditions;
}

/** The XR a claim asks for: its spec minus the claim's own fields, its claim reference and the claim labels. */
function compositeFromClaim(of: TestApi, xrName: string, claim: StoredClaim, xr: Stored | undefined): KubeObject {
  const {
    resourceRef: _r,
    writeConnectionSecretToRef: _w,
    compositeDeletePolicy: _p,
    compositionRevisionRef,
    ...spec
  } = claim.spec ?? {};
  const manual = xr && machineryOf(of, xr).compositionUpdatePolicy === 'Manual';
  return {
    apiVersion: of.apiVersion,
    kind: of.kind,
    metadata: {
      name: xrName,
      labels: {
        'crossplane.io/claim-name': claim.metadata.name,
        'crossplane.io/claim-namespace': claim.metadata.namespace ?? '',
      },
    },
    spec: {
      ...spec,
      ...(manual && compositionRevisionRef ? { compositionRevisionRef } : {}),
      claimRef: {
        apiVersion: claim.apiVersion,
        kind: claim.kind,
        name: claim.metadata.name,
        namespace: claim.metadata.namespace,
      },
    },
  };
}

/** The XR's connection Secret copied into the claim's namespace; true when it wrote. */
async function propagateSecret(
  client: KubeClient,
  claim: StoredClaim,
  xr: Stored,
  record: WriteRecord,
): Promise<boolean> {
  const to = claim.spec?.writeConnectionSecretToRef?.name;
  const from = (xr.spec as Machinery | undefined)?.writeConnectionSecretToRef;
  if (!to || !from?.namespace) return false;
  const source = await get<Secret>(client, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: from.name, namespace: from.namespace },
  });
  if (!source) return false;
  const owner = {
    apiVersion: claim.apiVersion,
    kind: claim.kind,
    name: claim.metadata.name,
    uid: claim.metadata.uid ?? '',
  };
  return writeSecret(
    client,
    { name: to, namespace: claim.metadata.namespace ?? '', owner, data: source.data ?? {} },
    record,
  );
}

function isSubsetOf(subset: Record<string, unknown>, superset: Record<string, unknown>): boolean {
  return Object.entries(subset).every(([key, value]) => isDeepStrictEqual(value, superset[key]));
}

/** Runs one write and notes whether it changed the object (a write that changes nothing keeps its resourceVersion). */
async function recorded<T extends KubeObject>(
  record: WriteRecord,
  write: string,
  before: (KubeObject & { metadata: { resourceVersion?: string } }) | undefined,
  run: () => Promise<T>,
): Promise<T> {
  const after = await run();
  const version = (after.metadata as { resourceVersion?: string }).resourceVersion;
  record.push({ write, changed: before?.metadata.resourceVersion !== version });
  return after;
}

function now(): string {
  // Condition times have second precision.
  return new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000', '');
}
