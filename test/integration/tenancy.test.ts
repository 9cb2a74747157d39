import { expect } from 'chai';
import { composedFieldOwner } from '../../src/composite/index.js';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  condition,
  ensureNamespace,
  eventsFor,
  functions,
  get,
  mergePatch,
  ptComposition,
  remove,
  startEngine,
  testApi,
  xrd,
  type RunningEngine,
  type XrObject,
} from './engine.js';

// What a namespaced XR's editor can make compositor do (docs/crossplane-differences.md#tenancy), on a real API
// server: the XR's spec names its composed resources and their namespace (the Composition patches them from it), and
// its resourceRefs are the editor's to write.

const NAMESPACE = 'tenancy-test';
const ELSEWHERE = 'tenancy-elsewhere';
const ANNOTATION = 'crossplane.io/composition-resource-name';
const CLUSTER_ROLE = 'tenancy-test-role';
const api = testApi('tenancy.compositor.test', 'XTenant');

type Obj = KubeObject & {
  metadata: KubeObject['metadata'] & {
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
    managedFields?: { manager?: string }[];
  };
};

/** The XRD: spec.cmName names the "named" ConfigMap, spec.cmNamespace asks for the "placed" one's namespace. */
function definition(): KubeObject {
  const base = xrd(api) as KubeObject & { spec: { versions: { schema: unknown }[] } };
  const spec = { type: 'object', properties: { cmName: { type: 'string' }, cmNamespace: { type: 'string' } } };
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec } } };
  return { ...base, spec: { ...base.spec, versions: base.spec.versions.map((v) => ({ ...v, schema })) } };
}

function configMap(name: string, fromField?: { field: string; to: string }): object {
  return {
    name,
    base: { apiVersion: 'v1', kind: 'ConfigMap', data: { role: name } },
    patches: fromField
      ? [{ type: 'FromCompositeFieldPath', fromFieldPath: fromField.field, toFieldPath: fromField.to }]
      : [],
  };
}

const tenantComposition = ptComposition(api, [
  configMap('named', { field: 'spec.cmName', to: 'metadata.name' }),
  configMap('placed', { field: 'spec.cmNamespace', to: 'metadata.namespace' }),
  configMap('plain'),
]);

const clusterComposition = ptComposition(
  api,
  [
    configMap('plain'),
    {
      name: 'role',
      base: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: CLUSTER_ROLE } },
    },
  ],
  { name: 'xtenants-cluster' },
);

function tenant(name: string, spec: Record<string, unknown>, composition = api.plural): XrObject {
  return {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name, namespace: NAMESPACE },
    spec: { ...spec, crossplane: { compositionRef: { name: composition } } } as XrObject['spec'],
  };
}

function cm(name: string, namespace = NAMESPACE): Obj {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } };
}

/** Polls the XR until `want` accepts it; a timeout names the XR's Synced condition and refs as last seen. */
function xrUntil(client: KubeClient, name: string, what: string, want: (xr: XrObject) => boolean): Promise<XrObject> {
  return eventually(`${name}: ${what}`, async () => {
    const xr = await get<XrObject>(client, tenant(name, {}));
    if (xr && want(xr)) return xr;
    const refs = xr?.spec?.crossplane?.resourceRefs?.map((r) => r.name);
    throw new Error(`Synced ${JSON.stringify(condition(xr, 'Synced'))}, resourceRefs ${JSON.stringify(refs)}`);
  });
}

/** The composed ConfigMap of `xr` for a composition resource name, wherever it is listed. */
async function composed(client: KubeClient, xr: XrObject, resource: string): Promise<Obj | undefined> {
  for (const ref of xr.spec?.crossplane?.resourceRefs ?? []) {
    const object = await get<Obj>(client, cm(ref.name));
    const controller = object?.metadata.ownerReferences?.find((o) => o.controller === true);
    if (object?.metadata.annotations?.[ANNOTATION] === resource && controller?.uid === xr.metadata.uid) return object;
  }
  return undefined;
}

/** Waits for a Warning event about `xr` whose note includes `text`; a timeout lists the notes seen. */
function warning(client: KubeClient, xr: XrObject, reason: string, text: string): Promise<boolean> {
  return eventually(`${reason} event on ${xr.metadata.name}`, async () => {
    const events = await eventsFor(client, NAMESPACE, xr.metadata.uid ?? '', reason);
    if (events.some((e) => e.type === 'Warning' && e.note?.includes(text))) return true;
    throw new Error(`notes: ${JSON.stringify(events.map((e) => e.note))}`);
  });
}

describe('composite tenancy (integration)', function () {
  this.timeout(180_000);
  let running: RunningEngine;
  let client: KubeClient;

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NAMESPACE);
    await ensureNamespace(client, ELSEWHERE);
    running = await startEngine();
    for (const fn of functions()) await apply(client, fn);
    await apply(client, definition());
    await apply(client, tenantComposition);
    await apply(client, clusterComposition);
    await eventually('XRD Established', async () => {
      const stored = await get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(client, {
        ...definition(),
        metadata: { name: `${api.plural}.${api.group}` },
      });
      return stored?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')
        ? true
        : undefined;
    });
  });

  after(async () => {
    // Other test files run engines of their own against this control plane: leave no failing XR behind.
    for (const name of ['victim', 'attacker', 'clusterwide']) await remove(client, tenant(name, {}));
    await eventually('the XRs of this file gone', async () => {
      const left = await client.request<{ items: Obj[] }>(
        'GET',
        `/apis/${api.apiVersion}/namespaces/${NAMESPACE}/${api.plural}`,
      );
      if (left.items.length === 0) return true;
      throw new Error(`still there: ${left.items.map((x) => x.metadata.name).join(', ')}`);
    });
    await running.stop();
  });

  it("neither writes another XR's object nor another namespace; the rest composes; forged refs delete nothing", async () => {
    // The victim composes "shared" under the name its spec picks.
    await apply(client, tenant('victim', { cmName: 'shared' }));
    const victim = await xrUntil(client, 'victim', 'Ready', (x) => condition(x, 'Ready')?.status === 'True');
    const shared = await eventually('the victim\'s ConfigMap "shared"', () => get<Obj>(client, cm('shared')));
    const victimPlain = await eventually('the victim\'s "plain"', () => composed(client, victim, 'plain'));

    // (c) and (a): the attacker asks for the same name, and for another namespace.
    await apply(client, tenant('attacker', { cmName: 'shared', cmNamespace: ELSEWHERE }));
    const attacker = await xrUntil(
      client,
      'attacker',
      'Synced False naming the refused resource',
      (x) => condition(x, 'Synced')?.message === 'Unsynced resources: named',
    );
    expect(condition(attacker, 'Synced')).to.include({ status: 'False', reason: 'ReconcileError' });
    await warning(
      client,
      attacker,
      'ComposeResources',
      `cannot apply composed resource "named" (a ConfigMap named shared in namespace ${NAMESPACE}): it is controlled by ${api.kind} "victim"`,
    );
    await warning(
      client,
      attacker,
      'NamespaceOverridden',
      `cannot create composed resource "placed" in namespace "${ELSEWHERE}", using XR namespace "${NAMESPACE}" instead`,
    );
    const untouched = await get<Obj>(client, cm('shared'));
    expect(untouched?.metadata.resourceVersion, "the victim's object was not written").to.equal(
      shared.metadata.resourceVersion,
    );
    expect(untouched?.metadata.ownerReferences?.map((o) => o.uid)).to.deep.equal([victim.metadata.uid]);
    expect(untouched?.metadata.managedFields?.map((m) => m.manager)).not.to.include(composedFieldOwner(attacker));
    const placed = await eventually('the attacker\'s "placed", in its own namespace', () =>
      composed(client, attacker, 'placed'),
    );
    expect(placed.metadata.namespace).to.equal(NAMESPACE);
    const strays = await client.request<{ items: Obj[] }>('GET', `/api/v1/namespaces/${ELSEWHERE}/configmaps`, {
      query: { labelSelector: 'crossplane.io/composite=attacker' },
    });
    expect(strays.items, `nothing composed in ${ELSEWHERE}`).to.deep.equal([]);
    await eventually('the attacker\'s "plain" composed beside the refusal', () => composed(client, attacker, 'plain'));

    // (e): resourceRefs the attacker writes: the victim's objects, an unowned annotated object, one in another
    // namespace, and a cluster-scoped one. Its pipeline desires none of them.
    const loose = await apply(client, {
      ...cm('loose'),
      metadata: { ...cm('loose').metadata, annotations: { [ANNOTATION]: 'gone' } },
    });
    const far = await apply(client, {
      ...cm('far', ELSEWHERE),
      metadata: { ...cm('far', ELSEWHERE).metadata, annotations: { [ANNOTATION]: 'gone-too' } },
    });
    const role = await apply(client, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'tenancy-test-unowned', annotations: { [ANNOTATION]: 'gone-three' } },
    });
    const forged = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'shared' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: victimPlain.metadata.name },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'loose' },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'far', namespace: ELSEWHERE },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'tenancy-test-unowned' },
    ];
    await mergePatch(client, attacker, { spec: { crossplane: { resourceRefs: forged } } });
    // Garbage collection runs before the refs are written back: once they are, it has had its chance.
    await xrUntil(client, 'attacker', 'resourceRefs written back', (x) => {
      const names = (x.spec?.crossplane?.resourceRefs ?? []).map((r) => r.name);
      return names.length === 3 && !names.includes('loose');
    });
    const survivors: [string, Obj, Obj | undefined][] = [
      ['the victim\'s "shared"', shared, await get<Obj>(client, cm('shared'))],
      ['the victim\'s "plain"', victimPlain, await get<Obj>(client, cm(victimPlain.metadata.name))],
      ['the unowned "loose"', loose, await get<Obj>(client, cm('loose'))],
      [`"far" in ${ELSEWHERE}`, far, await get<Obj>(client, cm('far', ELSEWHERE))],
      ['the cluster-scoped ClusterRole', role, await get<Obj>(client, role)],
    ];
    for (const [what, before, now] of survivors)
      expect(now?.metadata.uid, `${what} survives`).to.equal(before.metadata.uid);
    expect((await get<Obj>(client, cm('loose')))?.metadata.ownerReferences, 'loose stays unowned').to.equal(undefined);

    // Deleting the attacker deletes what it composed, nothing else.
    const attackerPlain = await eventually('the attacker\'s "plain"', () => composed(client, attacker, 'plain'));
    await remove(client, attacker);
    await eventually('the attacker gone with its own ConfigMaps', async () => {
      const left = [await get(client, attacker), await get(client, cm(attackerPlain.metadata.name))];
      if (left.every((o) => o === undefined)) return true;
      throw new Error(`still there: ${JSON.stringify(left.map((o) => o?.metadata.name))}`);
    });
    expect((await get<Obj>(client, cm('shared')))?.metadata.uid).to.equal(shared.metadata.uid);
    expect((await get<Obj>(client, cm('loose')))?.metadata.uid).to.equal(loose.metadata.uid);
  });

  it('refuses a cluster-scoped composed resource: the reconcile fails, nothing is applied or deleted', async () => {
    await apply(client, tenant('clusterwide', {}));
    const settled = await xrUntil(client, 'clusterwide', 'Ready', (x) => condition(x, 'Ready')?.status === 'True');
    const plain = await eventually('its "plain"', () => composed(client, settled, 'plain'));
    await mergePatch(client, settled, { spec: { crossplane: { compositionRef: { name: 'xtenants-cluster' } } } });
    const message = `cannot compose resources: cannot apply cluster scoped composed resource "role" (a ClusterRole named ${CLUSTER_ROLE}) for a namespaced composite resource.`;
    const failed = await xrUntil(client, 'clusterwide', 'Synced False refusing the ClusterRole', (x) => {
      return condition(x, 'Synced')?.message === message;
    });
    expect(condition(failed, 'Synced')).to.include({ status: 'False', reason: 'ReconcileError' });
    await warning(client, failed, 'ComposeResources', message);
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: CLUSTER_ROLE } };
    expect(await get(client, role), 'no ClusterRole').to.equal(undefined);
    expect((await get<Obj>(client, cm(plain.metadata.name)))?.metadata.uid, 'nothing deleted').to.equal(
      plain.metadata.uid,
    );
  });
});
