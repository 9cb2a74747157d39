import { expect } from 'chai';
import { loadCrds } from '../../src/apis/index.js';
import { composedFieldOwner, XR_FIELD_OWNER } from '../../src/composite/index.js';
import { renderXrCrd } from '../../src/definition/index.js';
import { claimNamesOf, renderClaimCrd } from '../../src/definition/claimRender.js';
import { compositionHash } from '../../src/definition/revisionHash.js';
import { newRevision } from '../../src/definition/revisions.js';
import {
  ApiError,
  CONTENT_TYPE,
  Discovery,
  ensureCrds,
  type KubeClient,
  type KubeObject,
} from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  composition,
  condition,
  ensureNamespace,
  functions,
  get,
  startEngine,
  testApi,
  xrd,
  type RunningEngine,
  type TestApi,
  type XrObject,
} from './engine.js';

// Taking over a cluster Crossplane core v2 has been running, and handing it back, on the real API server. No
// Crossplane binary runs here: the test makes Crossplane's writes as its source makes them (see docs/migration.md):
// - plain updates (manager `crossplane`, from its user agent) for the finalizer, the composite label, the
//   Composition and revision references, the status conditions, the CRDs and revisions it creates;
// - a server-side apply as `apiextensions.crossplane.io/composite` that holds only spec.crossplane.resourceRefs, in
//   its order, and one on the status subresource with the status its pipeline desires;
// - a server-side apply of each composed resource as `apiextensions.crossplane.io/composed/<sha256(XR name + XR
//   Kind.group)>`.
// Then compositor runs, and then Crossplane's next reconcile is replayed.

const NAMESPACE = 'migration';
const api = testApi('migration.example.org', 'XMigration');
const CROSSPLANE = 'crossplane';
const FINALIZER = 'composite.apiextensions.crossplane.io';

type Revision = KubeObject & { metadata: KubeObject['metadata'] & { labels?: Record<string, string> } };
type Stored = XrObject & {
  metadata: XrObject['metadata'] & {
    finalizers?: string[];
    labels?: Record<string, string>;
    resourceVersion?: string;
  };
  spec?: XrObject['spec'] & {
    image?: string;
    crossplane?: {
      compositionRef?: { name: string };
      compositionRevisionRef?: { name: string };
      compositionUpdatePolicy?: string;
      resourceRefs?: { apiVersion: string; kind: string; name: string }[];
    };
  };
};
type ConfigMap = KubeObject & {
  metadata: KubeObject['metadata'] & {
    uid?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
  data?: Record<string, string>;
};

/** The stored object, or a failure naming what is missing. */
async function must<T extends KubeObject>(client: KubeClient, ref: KubeObject): Promise<T> {
  const found = await get<T>(client, ref);
  if (!found) throw new Error(`${ref.kind} ${ref.metadata.namespace ?? ''}/${ref.metadata.name} not found`);
  return found;
}

async function pathOf(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } },
): Promise<string> {
  return new Discovery(client).path(ref.apiVersion, ref.kind, ref.metadata.name, ref.metadata.namespace);
}

/** A plain create, recorded as Crossplane's (or a user's) update. */
async function create<T extends KubeObject>(client: KubeClient, object: T, manager: string): Promise<T> {
  const path = await new Discovery(client).path(object.apiVersion, object.kind, undefined, object.metadata.namespace);
  return client.request<T>('POST', path, { body: object, query: { fieldManager: manager } });
}

async function update(client: KubeClient, ref: KubeObject, patch: unknown, subresource = ''): Promise<void> {
  await client.request('PATCH', (await pathOf(client, ref)) + subresource, {
    body: patch,
    contentType: CONTENT_TYPE.mergePatch,
    query: { fieldManager: CROSSPLANE },
  });
}

async function serverSideApply(
  client: KubeClient,
  object: KubeObject,
  manager: string,
  subresource = '',
): Promise<void> {
  await client.request('PATCH', (await pathOf(client, object)) + subresource, {
    body: object,
    contentType: CONTENT_TYPE.apply,
    query: { fieldManager: manager, force: true },
  });
}

function xrRef(name: string, of: TestApi = api): KubeObject {
  const namespaced = of.scope === 'Namespaced';
  return {
    apiVersion: of.apiVersion,
    kind: of.kind,
    metadata: { name, ...(namespaced ? { namespace: NAMESPACE } : {}) },
  };
}

/** The machinery object where the XR's schema keeps it: spec.crossplane (v2) or spec (legacy XRs). */
function machinery(of: TestApi, fields: Record<string, unknown>): Record<string, unknown> {
  return of.scope === 'LegacyCluster' ? fields : { crossplane: fields };
}

type StoredMachinery = NonNullable<NonNullable<Stored['spec']>['crossplane']>;

function machineryOf(of: TestApi, xr: Stored): StoredMachinery {
  return (of.scope === 'LegacyCluster' ? (xr.spec as StoredMachinery | undefined) : xr.spec?.crossplane) ?? {};
}

/**
 * One reconcile of an XR as Crossplane v2 makes it, composing one ConfigMap `composedName` with `data` from the
 * revision it runs: the writes listed at the top of this file, in Crossplane's order.
 */
async function crossplaneReconcile(
  client: KubeClient,
  name: string,
  options: { revision: string; composedName: string; data: Record<string, string>; of?: TestApi },
): Promise<void> {
  const of = options.of ?? api;
  const xr = await must<Stored>(client, xrRef(name, of));
  // Crossplane updates only what is missing or changed: nothing, on an XR that has it all.
  const has =
    xr.metadata.finalizers?.includes(FINALIZER) &&
    machineryOf(of, xr).compositionRevisionRef?.name === options.revision;
  if (!has)
    await update(client, xr, {
      metadata: {
        finalizers: [...new Set([...(xr.metadata.finalizers ?? []), FINALIZER])],
        labels: { 'crossplane.io/composite': name },
      },
      spec: machinery(of, {
        compositionRef: { name: of.plural },
        compositionRevisionRef: { name: options.revision },
      }),
    });
  const legacy = of.scope === 'LegacyCluster';
  const ref = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: options.composedName,
    ...(legacy ? { namespace: NAMESPACE } : {}),
  };
  await serverSideApply(client, { ...xrRef(name, of), spec: machinery(of, { resourceRefs: [ref] }) }, XR_FIELD_OWNER);
  const labels: Record<string, string> = { 'crossplane.io/composite': name };
  for (const key of ['crossplane.io/claim-name', 'crossplane.io/claim-namespace']) {
    const value = xr.metadata.labels?.[key];
    if (value !== undefined) labels[key] = value;
  }
  await serverSideApply(
    client,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: options.composedName,
        namespace: NAMESPACE,
        labels,
        annotations: { 'crossplane.io/composition-resource-name': 'settings' },
        ownerReferences: [
          {
            apiVersion: of.apiVersion,
            kind: of.kind,
            name,
            uid: xr.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: options.data,
    },
    composedFieldOwner({ apiVersion: of.apiVersion, kind: of.kind, metadata: { name } }),
  );
  await serverSideApply(
    client,
    { ...xrRef(name, of), status: { image: options.data.image } },
    XR_FIELD_OWNER,
    '/status',
  );
  const now = new Date().toISOString();
  await update(
    client,
    xr,
    {
      status: {
        conditions: [
          { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', lastTransitionTime: now },
          { type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: now },
        ],
      },
    },
    '/status',
  );
}

/** The Composition of the engine tests, with a fixed extra field in the ConfigMap's base. */
function compositionWith(extra: Record<string, string>, of: TestApi = api): KubeObject {
  const comp = composition(of) as KubeObject & { spec: { pipeline: { input?: { resources: unknown[] } }[] } };
  const resource = comp.spec.pipeline[0]?.input?.resources[0] as { base: { data: Record<string, string> } };
  resource.base.data = { image: '', ...extra };
  return comp;
}

async function configMap(client: KubeClient, name: string): Promise<ConfigMap> {
  return must<ConfigMap>(client, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE } });
}

async function composedConfigMaps(client: KubeClient): Promise<ConfigMap[]> {
  const list = await client.request<{ items: ConfigMap[] }>('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
    query: { labelSelector: 'crossplane.io/composite' },
  });
  return list.items;
}

/** What a switch back must leave on an XR and its ConfigMap. */
async function expectKept(client: KubeClient, name: string, revision: string, uid: string | undefined): Promise<void> {
  const xr = await must<Stored>(client, xrRef(name));
  expect(xr.metadata.finalizers, name).to.include(FINALIZER);
  expect(xr.metadata.labels?.['crossplane.io/composite'], name).to.equal(name);
  expect(xr.spec?.crossplane?.compositionRef?.name, name).to.equal(api.plural);
  expect(xr.spec?.crossplane?.compositionRevisionRef?.name, name).to.equal(revision);
  const cm = await configMap(client, `${name}-crossplane`);
  // compositor's annotation is not in Crossplane's apply: released under the shared owner name, so removed.
  expect(cm.metadata.annotations?.['compositor.crossplane.io/applied-digest'], name).to.equal(undefined);
  expect(cm.metadata.uid, name).to.equal(uid);
}

describe('migration from and back to Crossplane core', function () {
  this.timeout(120_000);
  let engine: RunningEngine | undefined;
  let client: KubeClient;
  const original = new Map<string, ConfigMap>();
  let rev1 = '';

  before(async () => {
    client = controlPlane().client();
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    await ensureNamespace(client, NAMESPACE);
    // What the platform team applied, and what Crossplane made of it.
    // Other test files of the same run may have created the built-in Functions already.
    for (const fn of functions()) {
      await create(client, fn, 'kubectl-client-side-apply').catch((err: unknown) => {
        if (!(err instanceof ApiError && err.status === 409)) throw err;
      });
    }
    const definition = await create(client, xrd(api), 'kubectl-client-side-apply');
    await create(client, renderXrCrd(definition as never) as unknown as KubeObject, CROSSPLANE);
    await eventually('the XR CRD served', async () =>
      (await new Discovery(client).resolve(api.apiVersion, api.kind).catch(() => undefined)) ? true : undefined,
    );
    const comp = await create(client, compositionWith({ extra: 'from-crossplane' }), 'kubectl-client-side-apply');
    const revision = newRevision(comp, compositionHash(comp as never), 1) as unknown as Revision;
    rev1 = revision.metadata.name;
    await create(client, revision, CROSSPLANE);
    // An XR that follows new revisions, and one pinned to the first.
    for (const [name, crossplane] of [
      ['follows', {}],
      ['pinned', { compositionUpdatePolicy: 'Manual', compositionRevisionRef: { name: rev1 } }],
    ] as const) {
      const xr = { ...xrRef(name), spec: { image: 'nginx:1.27', crossplane } } as KubeObject;
      await create(client, xr, 'kubectl-client-side-apply');
      // Crossplane's names of composed resources are its own; compositor must keep them.
      await crossplaneReconcile(client, name, {
        revision: rev1,
        composedName: `${name}-crossplane`,
        data: { image: 'nginx:1.27', extra: 'from-crossplane' },
      });
      original.set(name, await configMap(client, `${name}-crossplane`));
    }
  });

  after(async () => {
    await engine?.stop();
  });

  it('takes over without recreating, duplicating or orphaning anything, and without a spec write', async () => {
    const generations = new Map<string, number | undefined>();
    for (const name of original.keys())
      generations.set(name, (await get<Stored>(client, xrRef(name)))?.metadata.generation);
    engine = await startEngine();
    for (const name of original.keys()) {
      await eventually(`${name} reconciled by compositor`, async () => {
        const xr = await get<Stored>(client, xrRef(name));
        if (condition(xr, 'Responsive') && condition(xr, 'Ready')?.status === 'True') return true;
        throw new Error(JSON.stringify(xr?.status));
      });
    }
    const composed = await composedConfigMaps(client);
    expect(composed.map((c) => c.metadata.name).sort()).to.deep.equal(['follows-crossplane', 'pinned-crossplane']);
    for (const [name, was] of original) {
      const xr = await must<Stored>(client, xrRef(name));
      expect(xr.metadata.generation, `${name}: no spec write`).to.equal(generations.get(name));
      expect(xr.metadata.finalizers).to.include(FINALIZER);
      expect(xr.spec?.crossplane?.compositionRevisionRef?.name).to.equal(rev1);
      expect((await configMap(client, `${name}-crossplane`)).metadata.uid, `${name}: same object`).to.equal(
        was.metadata.uid,
      );
    }
  });

  it('moves a following XR to a new revision, keeps the pinned one, and removes a field Crossplane had set', async () => {
    // A Composition edit after the switch: compositor makes the revision and applies under Crossplane's composed
    // field owner, so the field Crossplane applied is released and removed.
    await serverSideApply(client, compositionWith({}), 'kubectl');
    const follows = await eventually('follows on the new revision without the removed field', async () => {
      const xr = await get<Stored>(client, xrRef('follows'));
      const cm = await configMap(client, 'follows-crossplane');
      const revision = xr?.spec?.crossplane?.compositionRevisionRef?.name;
      if (revision && revision !== rev1 && cm.data?.extra === undefined) return xr;
      throw new Error(`revision ${revision}, data ${JSON.stringify(cm.data)}`);
    });
    expect(follows.metadata.finalizers).to.include(FINALIZER);
    const pinned = await must<Stored>(client, xrRef('pinned'));
    expect(pinned.spec?.crossplane?.compositionRevisionRef?.name).to.equal(rev1);
    expect((await configMap(client, 'pinned-crossplane')).data?.extra).to.equal('from-crossplane');
  });

  it("hands back to Crossplane: its next applies strip no composition ref, finalizer or pin, and remove compositor's fields", async () => {
    await engine?.stop();
    engine = undefined;
    const followsRevision =
      (await must<Stored>(client, xrRef('follows'))).spec?.crossplane?.compositionRevisionRef?.name ?? '';
    // Crossplane's next reconciles: the revisions the XRs are on, the ConfigMaps those revisions desire.
    await crossplaneReconcile(client, 'follows', {
      revision: followsRevision,
      composedName: 'follows-crossplane',
      data: { image: 'nginx:1.27' },
    });
    await crossplaneReconcile(client, 'pinned', {
      revision: rev1,
      composedName: 'pinned-crossplane',
      data: { image: 'nginx:1.27', extra: 'from-crossplane' },
    });
    await expectKept(client, 'follows', followsRevision, original.get('follows')?.metadata.uid);
    await expectKept(client, 'pinned', rev1, original.get('pinned')?.metadata.uid);
    const pinned = await must<Stored>(client, xrRef('pinned'));
    expect(pinned.spec?.crossplane?.compositionUpdatePolicy, 'the pin').to.equal('Manual');
  });
});

// A v1-era claim: its XR was created by Crossplane's claim syncer (a random name, applied as
// `apiextensions.crossplane.io/claim` with the claim's spec minus the claim's own fields), and the claim records the
// XR and, for Automatic XRs, its revision with a plain update.
const legacyApi = testApi('claims.migration.example.org', 'XClaimed', 'LegacyCluster');
const CLAIM_FINALIZER = 'finalizer.apiextensions.crossplane.io';
const claimRef = {
  apiVersion: legacyApi.apiVersion,
  kind: 'Claimed',
  metadata: { name: 'team-db', namespace: NAMESPACE },
};
const CROSSPLANE_XR = 'team-db-x7k2p';

type StoredClaim = Stored & {
  spec?: { resourceRef?: { name: string }; compositionRevisionRef?: { name: string }; image?: string };
};

/** What Crossplane's claim syncer records on the claim: its XR, the XR's Composition and (Automatic) revision. */
function claimSpecFrom(xr: StoredMachinery, revision: string | undefined): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    resourceRef: { apiVersion: legacyApi.apiVersion, kind: legacyApi.kind, name: CROSSPLANE_XR },
  };
  if (xr.compositionRef) spec.compositionRef = xr.compositionRef;
  if (xr.compositionUpdatePolicy === 'Automatic' && revision) spec.compositionRevisionRef = { name: revision };
  return spec;
}

/** Crossplane updates the claim only when its binding or revision is missing or stale. */
function claimNeedsUpdate(claim: StoredClaim, spec: Record<string, unknown>, revision: string | undefined): boolean {
  const bound = claim.metadata.finalizers?.includes(CLAIM_FINALIZER) && claim.spec?.resourceRef?.name === CROSSPLANE_XR;
  const current = spec.compositionRevisionRef === undefined || claim.spec?.compositionRevisionRef?.name === revision;
  return !bound || !current;
}

/** Crossplane's claim sync: the claim's update (when something is missing), then the XR's apply. */
async function crossplaneClaimSync(client: KubeClient, revision: string | undefined): Promise<void> {
  const claim = await must<StoredClaim>(client, claimRef);
  const stored = await get<Stored>(client, xrRef(CROSSPLANE_XR, legacyApi));
  const xr = stored ? machineryOf(legacyApi, stored) : {};
  const spec = claimSpecFrom(xr, revision);
  if (claimNeedsUpdate(claim, spec, revision)) {
    await update(client, claim, { metadata: { finalizers: [CLAIM_FINALIZER] }, spec });
  }
  const claimLabels = {
    'crossplane.io/claim-name': claimRef.metadata.name,
    'crossplane.io/claim-namespace': NAMESPACE,
  };
  await serverSideApply(
    client,
    {
      ...xrRef(CROSSPLANE_XR, legacyApi),
      metadata: { name: CROSSPLANE_XR, labels: claimLabels },
      spec: {
        image: claim.spec?.image,
        ...(xr.compositionRef ? { compositionRef: xr.compositionRef } : {}),
        claimRef: {
          apiVersion: claimRef.apiVersion,
          kind: claimRef.kind,
          name: claimRef.metadata.name,
          namespace: NAMESPACE,
        },
      },
    },
    'apiextensions.crossplane.io/claim',
  );
}

describe('migration of claims from and back to Crossplane core', function () {
  this.timeout(120_000);
  let engine: RunningEngine | undefined;
  let client: KubeClient;
  let rev1 = '';
  let composedUid: string | undefined;

  before(async () => {
    client = controlPlane().client();
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    await ensureNamespace(client, NAMESPACE);
    const offered = { ...xrd(legacyApi) } as KubeObject & { spec: Record<string, unknown> };
    offered.spec = { ...offered.spec, claimNames: { kind: 'Claimed', plural: 'claimeds' } };
    const definition = await create(client, offered, 'kubectl-client-side-apply');
    await create(client, renderXrCrd(definition as never) as unknown as KubeObject, CROSSPLANE);
    const names = claimNamesOf(definition as never);
    if (!names) throw new Error('the XRD offers no claim');
    await create(client, renderClaimCrd(definition as never, names) as unknown as KubeObject, CROSSPLANE);
    await eventually('the XR and claim CRDs served', async () => {
      const discovery = new Discovery(client);
      const xrKind = await discovery.resolve(legacyApi.apiVersion, legacyApi.kind).catch(() => undefined);
      const claimKind = await discovery.resolve(claimRef.apiVersion, claimRef.kind).catch(() => undefined);
      return xrKind && claimKind ? true : undefined;
    });
    const comp = await create(client, compositionWith({}, legacyApi), 'kubectl-client-side-apply');
    const revision = newRevision(comp, compositionHash(comp as never), 1) as unknown as Revision;
    rev1 = revision.metadata.name;
    await create(client, revision, CROSSPLANE);
    await create(client, { ...claimRef, spec: { image: 'postgres:17' } }, 'kubectl-client-side-apply');
    await crossplaneClaimSync(client, undefined);
    await crossplaneReconcile(client, CROSSPLANE_XR, {
      of: legacyApi,
      revision: rev1,
      composedName: `${CROSSPLANE_XR}-crossplane`,
      data: { image: 'postgres:17' },
    });
    await crossplaneClaimSync(client, rev1);
    composedUid = (await configMap(client, `${CROSSPLANE_XR}-crossplane`)).metadata.uid;
  });

  after(async () => {
    await engine?.stop();
  });

  it("keeps the claim's XR and its composed resource, and hands both back intact", async () => {
    engine = await startEngine();
    await eventually('the claimed XR reconciled by compositor', async () => {
      const xr = await get<Stored>(client, xrRef(CROSSPLANE_XR, legacyApi));
      if (condition(xr, 'Responsive') && condition(xr, 'Ready')?.status === 'True') return true;
      throw new Error(JSON.stringify(xr?.status));
    });
    await eventually('the claim Ready', async () => {
      const claim = await get<StoredClaim>(client, claimRef);
      return condition(claim, 'Ready')?.status === 'True' ? true : undefined;
    });
    const xrs = await client.request<{ items: Stored[] }>('GET', `/apis/${legacyApi.group}/v1/${legacyApi.plural}`);
    expect(
      xrs.items.map((x) => x.metadata.name),
      'no second XR for the claim',
    ).to.deep.equal([CROSSPLANE_XR]);
    const claim = await must<StoredClaim>(client, claimRef);
    expect(claim.spec?.resourceRef?.name).to.equal(CROSSPLANE_XR);
    expect(claim.spec?.compositionRevisionRef?.name).to.equal(rev1);
    expect((await configMap(client, `${CROSSPLANE_XR}-crossplane`)).metadata.uid).to.equal(composedUid);

    await engine.stop();
    engine = undefined;
    await crossplaneClaimSync(client, rev1);
    await crossplaneReconcile(client, CROSSPLANE_XR, {
      of: legacyApi,
      revision: rev1,
      composedName: `${CROSSPLANE_XR}-crossplane`,
      data: { image: 'postgres:17' },
    });
    const xr = await must<Stored>(client, xrRef(CROSSPLANE_XR, legacyApi));
    const spec = machineryOf(legacyApi, xr);
    expect(xr.metadata.finalizers).to.include(FINALIZER);
    expect(spec.compositionRef?.name).to.equal(legacyApi.plural);
    expect(spec.compositionRevisionRef?.name).to.equal(rev1);
    expect(xr.metadata.labels?.['crossplane.io/claim-name']).to.equal(claimRef.metadata.name);
    expect((await configMap(client, `${CROSSPLANE_XR}-crossplane`)).metadata.uid).to.equal(composedUid);
  });
});
