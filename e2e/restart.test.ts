// compositor killed while XRs are being composed and started again: every XR converges with exactly its composed
// resources, none lost, none duplicated, none orphaned.
import { expect } from 'chai';
import { apply, ensureNamespace, get } from '../test/integration/engine.js';
import { eventually } from '../test/integration/harness.js';
import { composedOf, configSet, installApi, isReady, ref, withLogs, type ConfigSet } from './harness/api.js';
import { target } from './harness/setup.js';

const NS = 'e2e-restart';
const XRS = 15;
const COMPOSED = 3;

describe('e2e: compositor killed mid-flight', function () {
  before(async () => {
    await ensureNamespace(target().client, NS);
    await installApi();
  });

  it('converges every XR after a SIGKILL and restart with nothing lost or duplicated', async () => {
    const { client } = target();
    const names = Array.from({ length: XRS }, (_, i) => `xr-${i}`);
    await Promise.all(names.map((name) => apply(client, configSet(NS, name, { count: COMPOSED, data: { n: name } }))));
    // Kill as soon as composing has started: some XRs are composed, some half, some not at all.
    await eventually('the first composed ConfigMap', async () => ((await allComposed()).length > 0 ? true : undefined));
    await target().kill();
    const atKill = (await allComposed()).length;

    await target().deploy();
    const xrs = await withLogs(() =>
      eventually(
        `all ${XRS} XRs Ready (composed ${atKill} of ${XRS * COMPOSED} when killed)`,
        async () => {
          const all = await Promise.all(names.map((name) => get<ConfigSet>(client, ref(NS, name))));
          const unready = all.filter((xr) => !xr || !isReady(xr)).map((xr) => xr?.metadata.name ?? '(missing)');
          if (unready.length === 0) return all as ConfigSet[];
          throw new Error(`not ready: ${unready.join(', ')}`);
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      ),
    );

    const composed = await allComposed();
    expect(composed.length, 'composed ConfigMaps in the namespace').to.equal(XRS * COMPOSED);
    for (const xr of xrs) {
      const mine = composed.filter((cm) => cm.metadata.ownerReferences?.some((o) => o.uid === xr.metadata.uid));
      const resourceNames = mine.map((cm) => cm.metadata.annotations?.['crossplane.io/composition-resource-name']);
      expect(resourceNames.sort(), `composed resources of ${xr.metadata.name}`).to.deep.equal(['cm-0', 'cm-1', 'cm-2']);
      expect(mine.every((cm) => cm.data?.n === xr.metadata.name)).to.equal(true);
    }
    const orphans = composed.filter(
      (cm) => !xrs.some((xr) => cm.metadata.ownerReferences?.some((o) => o.uid === xr.metadata.uid)),
    );
    expect(
      orphans.map((cm) => cm.metadata.name),
      'composed ConfigMaps no XR owns',
    ).to.deep.equal([]);
  });
});

/** Every ConfigMap compositor composed in the namespace (it labels them with their XR). */
async function allComposed(): ReturnType<typeof composedOf> {
  const list = await target().client.request<{ items: Awaited<ReturnType<typeof composedOf>> }>(
    'GET',
    `/api/v1/namespaces/${NS}/configmaps`,
    { query: { labelSelector: 'crossplane.io/composite' } },
  );
  return list.items;
}
