import { expect } from 'chai';
import { loadCrds } from '../../src/apis/index.js';
import { claimNamesOf, renderClaimCrd } from '../../src/definition/claimRender.js';
import { compositionHash } from '../../src/definition/revisionHash.js';
import { newRevision } from '../../src/definition/revisions.js';
import {
  STATUS_FIELD_OWNER,
  statusFieldsOwnedByXrOwner,
  XR_FIELD_OWNER,
  type ManagedFieldsEntry,
} from '../../src/composite/index.js';
import { ApiError, Discovery, ensureCrds, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import {
  CLAIM_FINALIZER,
  create,
  CROSSPLANE,
  crossplaneClaimSync,
  crossplaneReconcile,
  FINALIZER,
  machineryOf,
  must,
  put,
  serverSideApply,
  xrRef as xrRefIn,
  type ReconcileOptions,
  type Secret,
  type Stored,
  type StoredClaim,
  type WriteRecord,
} from './crossplaneReplay.js';
import {
  changing,
  countWrites,
  crossplaneDefined,
  crossplaneRevision,
  crossplaneXrCrd,
  settled,
} from './crossplaneTakeover.js';
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
} from './engine.js';

// Taking over a cluster Crossplane core v2.3 has been running, and handing it back, on the real API server. No
// Crossplane binary runs here: crossplaneReplay.ts makes Crossplane's writes as its source makes them. Crossplane
// makes the objects, compositor runs, a Composition is edited under compositor, and then Crossplane's next reconcile
// is replayed; every object is checked after each step, and the writes of each switch are counted
// (docs/migration.md lists them).

const NAMESPACE = 'migration';
const api = testApi('migration.example.org', 'XMigration');

type Revision = KubeObject & { metadata: KubeObject['metadata'] & { labels?: Record<string, string> } };
type ConfigMap = KubeObject & {
  metadata: KubeObject['metadata'] & {
    uid?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
  data?: Record<string, string>;
};

function xrRef(name: string, of: TestApi = api): KubeObject {
  return xrRefIn(name, of, NAMESPACE);
}

/**
 * compositor as the tests run it: a short poll interval, since settled XRs (Synced and Ready True, as Crossplane left
 * them) are first reconciled between one and two poll intervals after a start.
 */
const TAKEOVER = { pollIntervalMs: 5_000 };

async function reconcile(
  client: KubeClient,
  name: string,
  options: Omit<ReconcileOptions, 'of' | 'namespace'> & { of?: TestApi },
): Promise<WriteRecord> {
  return crossplaneReconcile(client, name, { of: api, namespace: NAMESPACE, ...options });
}

/** The Composition of the engine tests, with a fixed extra field in the ConfigMap's base. */
function compositionWith(extra: Record<string, string>, of: TestApi = api): KubeObject {
  const comp = composition(of) as KubeObject & { spec: { pipeline: { input?: { resources: unknown[] } }[] } };
  const resource = comp.spec.pipeline[0]?.input?.resources[0] as { base: { data: Record<string, string> } };
  resource.base.data = { image: '', ...extra };
  return comp;
}

function configMapRef(name: string, namespace = CLAIMS_NAMESPACE): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } };
}

async function configMap(client: KubeClient, name: string): Promise<ConfigMap> {
  return must<ConfigMap>(client, configMapRef(name, NAMESPACE));
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

/** Crossplane's XRD reconcile after a rollback: its CRD rendering put back with a plain update (APIUpdatingApplicator). */
async function restoreCrossplaneCrd(client: KubeClient, definition: KubeObject): Promise<WriteRecord> {
  const want = crossplaneXrCrd(definition) as KubeObject & { spec: unknown };
  const current = await must<KubeObject & { spec: unknown; metadata: { resourceVersion?: string } }>(client, want);
  const written = await put(client, { ...current, spec: want.spec });
  const version = (written.metadata as { resourceVersion?: string }).resourceVersion;
  return [{ write: 'update XR CRD', changed: version !== current.metadata.resourceVersion }];
}

describe('migration from and back to Crossplane core', function () {
  this.timeout(120_000);
  let engine: RunningEngine | undefined;
  let client: KubeClient;
  const original = new Map<string, ConfigMap>();
  let rev1 = '';
  let definition: KubeObject;

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
    definition = await create(client, xrd(api), 'kubectl-client-side-apply');
    await create(client, crossplaneXrCrd(definition), CROSSPLANE);
    await crossplaneDefined(client, definition, api);
    await eventually('the XR CRD served', async () =>
      (await new Discovery(client).resolve(api.apiVersion, api.kind).catch(() => undefined)) ? true : undefined,
    );
    const comp = await create(client, compositionWith({ extra: 'from-crossplane' }), 'kubectl-client-side-apply');
    const revision = newRevision(comp, compositionHash(comp as never), 1) as unknown as Revision;
    rev1 = revision.metadata.name;
    await crossplaneRevision(client, revision);
    // An XR that follows new revisions, and one pinned to the first.
    for (const [name, crossplane] of [
      ['follows', {}],
      ['pinned', { compositionUpdatePolicy: 'Manual', compositionRevisionRef: { name: rev1 } }],
    ] as const) {
      const xr = { ...xrRef(name), spec: { image: 'nginx:1.27', crossplane } } as KubeObject;
      await create(client, xr, 'kubectl-client-side-apply');
      // Crossplane's names of composed resources are its own; compositor must keep them.
      await reconcile(client, name, {
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
    engine = await startEngine(TAKEOVER);
    for (const name of original.keys()) {
      await eventually(`${name} reconciled by compositor`, async () => {
        const xr = await get<Stored>(client, xrRef(name));
        // effectivePollInterval: only compositor writes it (Crossplane's replay writes Responsive and Ready too).
        if (xr?.status?.effectivePollInterval && condition(xr, 'Ready')?.status === 'True') return true;
        throw new Error(JSON.stringify(xr?.status));
      });
    }
    const log = await settled(engine);
    const written = countWrites(log, [api.group, `/namespaces/${NAMESPACE}/`, `${api.plural}-`]);
    // Once per XR: its status (effectivePollInterval, observedGeneration of its conditions) and its composed resource
    // (the digest annotation); once per XRD: the XR CRD (compositor's two status fields).
    expect(written, 'writes at takeover').to.deep.equal({
      'PATCH customresourcedefinitions': 1,
      'PATCH xmigrations/status': 2,
      'PATCH configmaps': 2,
    });
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
    const follows = await reconcile(client, 'follows', {
      revision: followsRevision,
      composedName: 'follows-crossplane',
      data: { image: 'nginx:1.27' },
    });
    const pinnedWrites = await reconcile(client, 'pinned', {
      revision: rev1,
      composedName: 'pinned-crossplane',
      data: { image: 'nginx:1.27', extra: 'from-crossplane' },
    });
    const crd = await restoreCrossplaneCrd(client, definition);
    // What Crossplane's first reconciles change: the CRD loses compositor's status fields, each composed resource
    // the digest annotation, each XR status the effectivePollInterval compositor's status apply held.
    expect({ crd: changing(crd), follows: changing(follows), pinned: changing(pinnedWrites) }).to.deep.equal({
      crd: ['update XR CRD'],
      follows: [
        'apply ConfigMap follows-crossplane as its composed owner',
        'apply XR status as apiextensions.crossplane.io/composite',
      ],
      pinned: [
        'apply ConfigMap pinned-crossplane as its composed owner',
        'apply XR status as apiextensions.crossplane.io/composite',
      ],
    });
    await expectKept(client, 'follows', followsRevision, original.get('follows')?.metadata.uid);
    await expectKept(client, 'pinned', rev1, original.get('pinned')?.metadata.uid);
    const pinned = await must<Stored>(client, xrRef('pinned'));
    expect(pinned.spec?.crossplane?.compositionUpdatePolicy, 'the pin').to.equal('Manual');
  });
});

// v1-era claims and their legacy XRs, with connection Secrets. Crossplane's claim syncer created each XR (a random
// name, applied as `apiextensions.crossplane.io/claim`), its configurator gave the XR a Secret in the Composition's
// namespace for connection Secrets, and its publisher wrote that Secret, and the claim's copy, stamping
// status.connectionDetails.lastPublishedTime with plain status updates. One claim follows new revisions, the other
// is pinned to the first.
const CLAIMS_NAMESPACE = 'migration-claims';
const legacyApi = testApi('claims.migration.example.org', 'XClaimed', 'LegacyCluster');

interface ClaimCase {
  claim: string;
  xr: string;
  pinned: boolean;
}

const CLAIMS: readonly ClaimCase[] = [
  { claim: 'team-db', xr: 'team-db-x7k2p', pinned: false },
  { claim: 'pinned-db', xr: 'pinned-db-q4r8z', pinned: true },
];

function claimRef(name: string): KubeObject & { metadata: { name: string; namespace: string } } {
  return { apiVersion: legacyApi.apiVersion, kind: 'Claimed', metadata: { name, namespace: CLAIMS_NAMESPACE } };
}

function legacyXrRef(name: string): KubeObject {
  return xrRefIn(name, legacyApi, CLAIMS_NAMESPACE);
}

/** The claims' Composition: one ConfigMap, and the XR's connection detail `endpoint` with a value per edit. */
function claimsComposition(endpoint: string, extra: Record<string, string>): KubeObject {
  const comp = composition(legacyApi) as KubeObject & {
    spec: { writeConnectionSecretsToNamespace?: string; pipeline: { input?: { resources: unknown[] } }[] };
  };
  comp.spec.writeConnectionSecretsToNamespace = CLAIMS_NAMESPACE;
  const resource = comp.spec.pipeline[0]?.input?.resources[0] as {
    base: { data: Record<string, string> };
    connectionDetails?: unknown[];
  };
  resource.base.data = { image: '', ...extra };
  resource.connectionDetails = [{ name: 'endpoint', type: 'FromValue', value: endpoint }];
  return comp;
}

function secretRef(name: string): Secret {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: CLAIMS_NAMESPACE } };
}

async function secretData(client: KubeClient, name: string): Promise<Record<string, string>> {
  const data = (await must<Secret>(client, secretRef(name))).data ?? {};
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]));
}

describe('migration of claims and connection Secrets from and back to Crossplane core', function () {
  this.timeout(180_000);
  let engine: RunningEngine | undefined;
  let client: KubeClient;
  let definition: KubeObject;
  let rev1 = '';
  const uids = new Map<string, string | undefined>();

  /** One claim's Crossplane reconcile: claim sync, its XR's reconcile on `revision`, claim sync again. */
  async function crossplaneClaim(c: ClaimCase, revision: string, endpoint: string): Promise<WriteRecord> {
    const claimOptions = { of: legacyApi, claim: claimRef(c.claim), xrName: c.xr };
    const writes = await crossplaneClaimSync(client, claimOptions);
    writes.push(
      ...(await crossplaneReconcile(client, c.xr, {
        of: legacyApi,
        namespace: CLAIMS_NAMESPACE,
        revision,
        secretsNamespace: CLAIMS_NAMESPACE,
        composedName: `${c.xr}-crossplane`,
        data: { image: 'postgres:17', ...(revision === rev1 ? { tier: 'gold' } : {}) },
        connectionDetails: { endpoint },
      })),
    );
    writes.push(...(await crossplaneClaimSync(client, claimOptions)));
    return writes;
  }

  async function xrOf(c: ClaimCase): Promise<Stored> {
    return must<Stored>(client, legacyXrRef(c.xr));
  }

  /** What a claim, its XR, composed resource and Secret must still be after Crossplane's first reconciles. */
  async function expectHandedBack(c: ClaimCase): Promise<void> {
    const xr = await xrOf(c);
    expect(xr.metadata.uid, c.xr).to.equal(uids.get(c.xr));
    expect(xr.metadata.finalizers, c.xr).to.include(FINALIZER);
    const spec = machineryOf(legacyApi, xr);
    expect(spec.compositionRef?.name, c.xr).to.equal(legacyApi.plural);
    if (c.pinned) expect(spec.compositionRevisionRef?.name, c.xr).to.equal(rev1);
    expect(xr.status?.connectionDetails?.lastPublishedTime, `${c.xr}: lastPublishedTime kept`).to.be.a('string');
    const cm = await must<ConfigMap>(client, configMapRef(`${c.xr}-crossplane`));
    expect(cm.metadata.uid, c.xr).to.equal(uids.get(`${c.xr}-crossplane`));
    const claim = await must<StoredClaim>(client, claimRef(c.claim));
    expect(claim.spec?.resourceRef?.name, c.claim).to.equal(c.xr);
    expect(claim.metadata.finalizers, c.claim).to.include(CLAIM_FINALIZER);
    expect(await secretData(client, `${c.claim}-conn`)).to.deep.equal({ endpoint: c.pinned ? 'db-v1' : 'db-v2' });
    for (const secret of [`${c.claim}-conn`, xr.metadata.uid ?? '']) {
      expect((await must<Secret>(client, secretRef(secret))).metadata.uid, `Secret ${secret}`).to.equal(
        uids.get(secret),
      );
    }
  }

  before(async () => {
    client = controlPlane().client();
    await ensureCrds(client, await loadCrds(), { timeoutMs: 30_000 });
    await ensureNamespace(client, CLAIMS_NAMESPACE);
    for (const fn of functions()) {
      await create(client, fn, 'kubectl-client-side-apply').catch((err: unknown) => {
        if (!(err instanceof ApiError && err.status === 409)) throw err;
      });
    }
    const offered = { ...xrd(legacyApi) } as KubeObject & { spec: Record<string, unknown> };
    offered.spec = { ...offered.spec, claimNames: { kind: 'Claimed', plural: 'claimeds' } };
    definition = await create(client, offered, 'kubectl-client-side-apply');
    await create(client, crossplaneXrCrd(definition), CROSSPLANE);
    const names = claimNamesOf(definition as never);
    if (!names) throw new Error('the XRD offers no claim');
    await create(client, renderClaimCrd(definition as never, names) as unknown as KubeObject, CROSSPLANE);
    await crossplaneDefined(client, definition, legacyApi, names.kind);
    await eventually('the XR and claim CRDs served', async () => {
      const discovery = new Discovery(client);
      const xrKind = await discovery.resolve(legacyApi.apiVersion, legacyApi.kind).catch(() => undefined);
      const claimKind = await discovery.resolve(legacyApi.apiVersion, 'Claimed').catch(() => undefined);
      return xrKind && claimKind ? true : undefined;
    });
    const comp = await create(client, claimsComposition('db-v1', { tier: 'gold' }), 'kubectl-client-side-apply');
    const revision = newRevision(comp, compositionHash(comp as never), 1) as unknown as Revision;
    rev1 = revision.metadata.name;
    await crossplaneRevision(client, revision);
    for (const c of CLAIMS) {
      const pin = c.pinned ? { compositionUpdatePolicy: 'Manual', compositionRevisionRef: { name: rev1 } } : {};
      const spec = { image: 'postgres:17', writeConnectionSecretToRef: { name: `${c.claim}-conn` }, ...pin };
      await create(client, { ...claimRef(c.claim), spec }, 'kubectl-client-side-apply');
      await crossplaneClaim(c, rev1, 'db-v1');
      uids.set(c.xr, (await xrOf(c)).metadata.uid);
      uids.set(`${c.xr}-crossplane`, (await must<ConfigMap>(client, configMapRef(`${c.xr}-crossplane`))).metadata.uid);
      for (const secret of [`${c.claim}-conn`, (await xrOf(c)).metadata.uid ?? '']) {
        uids.set(secret, (await must<Secret>(client, secretRef(secret))).metadata.uid);
      }
      const published = (await xrOf(c)).status?.connectionDetails?.lastPublishedTime;
      expect(published, `${c.xr}: Crossplane published its Secret`).to.be.a('string');
    }
  });

  after(async () => {
    await engine?.stop();
  });

  it('takes over the claims and their XRs without recreating anything, and counts its writes', async () => {
    engine = await startEngine(TAKEOVER);
    for (const c of CLAIMS) {
      await eventually(`${c.xr} reconciled by compositor`, async () => {
        const xr = await get<Stored>(client, legacyXrRef(c.xr));
        // effectivePollInterval: only compositor writes it (Crossplane's replay writes Responsive and Ready too).
        if (xr?.status?.effectivePollInterval && condition(xr, 'Ready')?.status === 'True') return true;
        throw new Error(JSON.stringify(xr?.status));
      });
      await eventually(`claim ${c.claim} Ready`, async () => {
        const claim = await get<StoredClaim>(client, claimRef(c.claim));
        return condition(claim, 'Ready')?.status === 'True' ? true : undefined;
      });
    }
    const log = await settled(engine);
    const written = countWrites(log, [legacyApi.group, `/namespaces/${CLAIMS_NAMESPACE}/`, `${legacyApi.plural}-`]);
    // As for v2 XRs, and once per claim: its XR, applied as the claim's manager with the digest annotation.
    expect(written, 'writes at takeover').to.deep.equal({
      'PATCH customresourcedefinitions': 1,
      'PATCH xclaimeds': 2,
      'PATCH xclaimeds/status': 2,
      'PATCH configmaps': 2,
    });
    const xrs = await client.request<{ items: Stored[] }>('GET', `/apis/${legacyApi.group}/v1/${legacyApi.plural}`);
    expect(xrs.items.map((x) => x.metadata.name).sort(), 'no second XR for a claim').to.deep.equal(
      CLAIMS.map((c) => c.xr).sort(),
    );
    for (const c of CLAIMS) {
      const claim = await must<StoredClaim>(client, claimRef(c.claim));
      expect(claim.spec?.resourceRef?.name).to.equal(c.xr);
      expect(claim.spec?.compositionRevisionRef?.name).to.equal(rev1);
      expect((await xrOf(c)).metadata.uid).to.equal(uids.get(c.xr));
      expect(await secretData(client, `${c.claim}-conn`)).to.deep.equal({ endpoint: 'db-v1' });
    }
  });

  it("publishes the following XR's new connection details after a Composition edit, and keeps the pinned one", async () => {
    const before = (await xrOf(CLAIMS[0] as ClaimCase)).status?.connectionDetails?.lastPublishedTime;
    await serverSideApply(client, claimsComposition('db-v2', {}), 'kubectl');
    const follows = CLAIMS[0] as ClaimCase;
    await eventually("the following claim's Secret republished by compositor", async () => {
      const xr = await xrOf(follows);
      const data = await secretData(client, `${follows.claim}-conn`);
      const revision = machineryOf(legacyApi, xr).compositionRevisionRef?.name;
      const published = xr.status?.connectionDetails?.lastPublishedTime;
      if (revision !== rev1 && data.endpoint === 'db-v2' && published !== before) return true;
      throw new Error(`revision ${revision}, Secret ${JSON.stringify(data)}, published ${published}`);
    });
    const pinned = CLAIMS[1] as ClaimCase;
    expect(machineryOf(legacyApi, await xrOf(pinned)).compositionRevisionRef?.name).to.equal(rev1);
    expect(await secretData(client, `${pinned.claim}-conn`)).to.deep.equal({ endpoint: 'db-v1' });
    expect((await must<ConfigMap>(client, configMapRef(`${follows.xr}-crossplane`))).data?.tier).to.equal(undefined);
  });

  it("co-owns, once at start, the connection details an earlier release applied under Crossplane's XR manager", async () => {
    await settled(engine as RunningEngine);
    await engine?.stop();
    const follows = CLAIMS[0] as ClaimCase;
    // What earlier releases did on every publish: the whole status, with the new time, applied under Crossplane's XR
    // manager, which takes the time from every other owner.
    const lastPublishedTime = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const { status } = await xrOf(follows);
    await serverSideApply(
      client,
      { ...legacyXrRef(follows.xr), status: { ...status, connectionDetails: { lastPublishedTime } } },
      XR_FIELD_OWNER,
      '/status',
    );
    const owners = async (): Promise<string[]> => {
      const xr = await must<Stored & { metadata: { managedFields?: ManagedFieldsEntry[] } }>(
        client,
        legacyXrRef(follows.xr),
      );
      const fields = xr.metadata.managedFields ?? [];
      return [XR_FIELD_OWNER, STATUS_FIELD_OWNER].filter((m) =>
        statusFieldsOwnedByXrOwner(fields, m).includes('connectionDetails'),
      );
    };
    expect(await owners(), 'the earlier release left').to.deep.equal([XR_FIELD_OWNER]);
    engine = await startEngine(TAKEOVER);
    await eventually('connectionDetails co-owned by compositor', async () => {
      const seen = await owners();
      if (seen.includes(STATUS_FIELD_OWNER)) return true;
      throw new Error(`owned by ${seen.join(', ')}`);
    });
    const written = countWrites(await settled(engine), [legacyApi.group, `/namespaces/${CLAIMS_NAMESPACE}/`]);
    expect(written, 'writes after the upgrade').to.deep.equal({ 'PATCH xclaimeds/status': 1 });
    expect((await xrOf(follows)).status?.connectionDetails?.lastPublishedTime).to.equal(lastPublishedTime);
  });

  it('hands back to Crossplane: its status applies succeed and nothing is recreated or lost', async () => {
    await settled(engine as RunningEngine);
    await engine?.stop();
    engine = undefined;
    const crd = await restoreCrossplaneCrd(client, definition);
    const changed: Record<string, string[]> = { crd: changing(crd) };
    for (const c of CLAIMS) {
      const revision = machineryOf(legacyApi, await xrOf(c)).compositionRevisionRef?.name ?? '';
      // Throws what the API server answers: a 422 of Crossplane's status apply fails the test here.
      changed[c.xr] = changing(await crossplaneClaim(c, revision, c.pinned ? 'db-v1' : 'db-v2'));
    }
    // The CRD loses compositor's status fields; each XR the digest annotation (the claim's apply), each composed
    // resource its digest annotation, each XR status effectivePollInterval, which only compositor's status apply held.
    const xrChanges = (xr: string): string[] => [
      'apply XR as apiextensions.crossplane.io/claim',
      `apply ConfigMap ${xr}-crossplane as its composed owner`,
      'apply XR status as apiextensions.crossplane.io/composite',
    ];
    expect(changed, "what Crossplane's first reconciles change").to.deep.equal({
      crd: ['update XR CRD'],
      'team-db-x7k2p': xrChanges('team-db-x7k2p'),
      'pinned-db-q4r8z': xrChanges('pinned-db-q4r8z'),
    });
    for (const c of CLAIMS) await expectHandedBack(c);
    // A second reconcile each, as Crossplane's poll makes them: its status apply still succeeds, and changes nothing.
    for (const c of CLAIMS) {
      const revision = machineryOf(legacyApi, await xrOf(c)).compositionRevisionRef?.name ?? '';
      expect(changing(await crossplaneClaim(c, revision, c.pinned ? 'db-v1' : 'db-v2')), c.xr).to.deep.equal([]);
    }
  });
});
