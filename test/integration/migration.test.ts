import { expect } from 'chai';
import { loadCrds } from '../../src/apis/index.js';
import { composedFieldOwner, XR_FIELD_OWNER } from '../../src/composite/index.js';
import { renderXrCrd } from '../../src/definition/index.js';
import { compositionHash } from '../../src/definition/revisionHash.js';
import { newRevision } from '../../src/definition/revisions.js';
import { CONTENT_TYPE, Discovery, ensureCrds, type KubeClient, type KubeObject } from '../../src/kube/index.js';
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

function xrRef(name: string): KubeObject {
  return { apiVersion: api.apiVersion, kind: api.kind, metadata: { name, namespace: NAMESPACE } };
}

/**
 * One reconcile of an XR as Crossplane v2 makes it, composing one ConfigMap `composedName` with `data` from the
 * revision it runs: the writes listed at the top of this file, in Crossplane's order.
 */
async function crossplaneReconcile(
  client: KubeClient,
  name: string,
  options: { revision: string; composedName: string; data: Record<string, string> },
): Promise<void> {
  const xr = await must<Stored>(client, xrRef(name));
  // Crossplane updates only what is missing or changed: nothing, on an XR that has it all.
  const has =
    xr.metadata.finalizers?.includes(FINALIZER) &&
    xr.spec?.crossplane?.compositionRevisionRef?.name === options.revision;
  if (!has)
    await update(client, xr, {
      metadata: {
        finalizers: [...new Set([...(xr.metadata.finalizers ?? []), FINALIZER])],
        labels: { 'crossplane.io/composite': name },
      },
      spec: {
        crossplane: {
          compositionRef: { name: api.plural },
          compositionRevisionRef: { name: options.revision },
        },
      },
    });
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: options.composedName };
  await serverSideApply(client, { ...xrRef(name), spec: { crossplane: { resourceRefs: [ref] } } }, XR_FIELD_OWNER);
  await serverSideApply(
    client,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: options.composedName,
        namespace: NAMESPACE,
        labels: { 'crossplane.io/composite': name },
        annotations: { 'crossplane.io/composition-resource-name': 'settings' },
        ownerReferences: [
          {
            apiVersion: api.apiVersion,
            kind: api.kind,
            name,
            uid: xr.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: options.data,
    },
    composedFieldOwner({ apiVersion: api.apiVersion, kind: api.kind, metadata: { name } }),
  );
  await serverSideApply(client, { ...xrRef(name), status: { image: options.data.image } }, XR_FIELD_OWNER, '/status');
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
function compositionWith(extra: Record<string, string>): KubeObject {
  const comp = composition(api) as KubeObject & { spec: { pipeline: { input?: { resources: unknown[] } }[] } };
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
    for (const fn of functions()) await create(client, fn, 'kubectl-client-side-apply');
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
