import { expect } from 'chai';
import type { Dependency, RunFunctionResponse } from '../../../src/functions/index.js';
import type { KubeObject } from '../../../src/kube/index.js';
import { desiring, World } from './world.js';

// The composite reconciler with --enable-composed-resource-ordering, over the in-memory API server: the function
// declares cluster <- release <- app; what is created, deleted and referenced follows the graph.

const on = (resource: string, composedResource: string): Dependency => ({ resource, composedResource });
const XR_PATH = '/apis/example.org/v1/namespaces/default/xapps/app';
const HOLD = 'test.compositor/hold';

interface Ref {
  name: string;
  resourceName?: string;
  dependsOn?: string[];
}

/** The function: desires `names` (each ready when in `ready`), declares `pairs`. */
function fn(state: { names: string[]; ready: Set<string>; pairs: Dependency[] }): () => RunFunctionResponse {
  return () => {
    const resources = Object.fromEntries(state.names.map((n) => [n, { data: { name: n }, ready: state.ready.has(n) }]));
    return { ...desiring(resources), dependencies: { items: state.pairs } };
  };
}

function composed(world: World): Map<string, KubeObject> {
  return new Map(
    world.server
      .list('v1', 'ConfigMap')
      .map((cm) => [
        (cm.metadata as { annotations?: Record<string, string> }).annotations?.[
          'crossplane.io/composition-resource-name'
        ] ?? '',
        cm,
      ]),
  );
}

function refs(world: World): { name: string; dependsOn?: string[] }[] {
  const spec = world.xr()?.spec as { crossplane?: { resourceRefs?: Ref[] } } | undefined;
  return (spec?.crossplane?.resourceRefs ?? []).map(({ resourceName, dependsOn }) => ({
    name: resourceName ?? '',
    ...(dependsOn ? { dependsOn } : {}),
  }));
}

function ready(world: World): string {
  const conditions = world.xr()?.status?.conditions as
    { type: string; status: string; reason: string; message?: string }[] | undefined;
  const c = conditions?.find((x) => x.type === 'Ready');
  return `${c?.status ?? ''} ${c?.reason ?? ''}: ${c?.message ?? ''}`;
}

function orderedWorld(): { world: World; state: { names: string[]; ready: Set<string>; pairs: Dependency[] } } {
  const state = {
    names: ['cluster', 'release', 'app'],
    ready: new Set<string>(),
    pairs: [on('release', 'cluster'), on('app', 'release')],
  };
  const world = new World({ reconciler: { ordering: true } });
  world.runner.respond = fn(state);
  world.createXr();
  return { world, state };
}

describe('composite reconciler with composed resource ordering', () => {
  it('creates each resource once what it depends on is Ready, referencing only what exists', async () => {
    const { world, state } = orderedWorld();
    await world.converge();
    expect([...composed(world).keys()]).to.deep.equal(['cluster']);
    expect(refs(world)).to.deep.equal([{ name: 'cluster' }]);
    expect(ready(world)).to.equal(
      'False Creating: Unready resources: cluster; app waits on release; release waits on cluster',
    );

    state.ready.add('cluster');
    await world.converge();
    expect([...composed(world).keys()].sort()).to.deep.equal(['cluster', 'release']);
    expect(ready(world)).to.equal('False Creating: Unready resources: release; app waits on release');

    state.ready.add('release');
    state.ready.add('app');
    await world.converge();
    expect([...composed(world).keys()].sort()).to.deep.equal(['app', 'cluster', 'release']);
    expect(refs(world).sort((a, b) => a.name.localeCompare(b.name))).to.deep.equal([
      { name: 'app', dependsOn: ['release'] },
      { name: 'cluster' },
      { name: 'release', dependsOn: ['cluster'] },
    ]);
    expect(ready(world)).to.equal('True Available: ');
  });

  it('refuses a cycle: Synced False naming it, nothing applied', async () => {
    const { world, state } = orderedWorld();
    state.pairs = [on('release', 'cluster'), on('cluster', 'release')];
    await world.reconcile().catch(() => undefined);
    expect(composed(world).size).to.equal(0);
    const synced = (world.xr()?.status?.conditions as { type: string; message?: string }[]).find(
      (c) => c.type === 'Synced',
    );
    expect(synced?.message).to.equal(
      'cannot compose resources: invalid composed resource dependencies: dependency cycle: [cluster release cluster]',
    );
  });

  it('collects garbage in reverse order from the persisted graph, when the function drops resources and edges', async () => {
    const { world, state } = orderedWorld();
    state.ready = new Set(['cluster', 'release', 'app']);
    await world.converge();
    state.names = [];
    state.pairs = [];
    await world.reconcile();
    world.sync();
    expect([...composed(world).keys()].sort(), 'the app first').to.deep.equal(['cluster', 'release']);
    expect(world.eventLines()).to.include('Normal ComposeResources: Deleting app; 2 more waves after them');
    // What was there when the refs were written stays referenced until a pass finds it gone.
    expect(refs(world).map((r) => r.name)).to.have.members(['app', 'cluster', 'release']);
    await world.reconcile();
    world.sync();
    expect([...composed(world).keys()]).to.deep.equal(['cluster']);
    expect(refs(world), 'the deferred deletions still referenced, with their order').to.have.deep.members([
      { name: 'cluster' },
      { name: 'release', dependsOn: ['cluster'] },
    ]);
    await world.converge();
    expect(composed(world).size).to.equal(0);
    expect(refs(world)).to.deep.equal([]);
  });

  it('tears an XR down in reverse from resourceRefs, a finalizer holding the next wave', async () => {
    const { world, state } = orderedWorld();
    state.ready = new Set(['cluster', 'release', 'app']);
    await world.converge();
    const release = composed(world).get('release');
    if (!release) throw new Error('no release');
    world.server.put({ ...release, metadata: { ...release.metadata, finalizers: [HOLD] } });
    // The pipeline does not run for an XR being deleted: the order comes from resourceRefs alone.
    world.runner.respond = () => {
      throw new Error('the pipeline ran during teardown');
    };
    await world.server.client.request('DELETE', XR_PATH);
    world.sync();

    expect(await world.reconcile()).to.deep.equal({ requeueAfterMs: 2_000 });
    world.sync();
    expect([...composed(world).keys()].sort()).to.deep.equal(['cluster', 'release']);
    expect(world.eventLines()).to.deep.equal(['Normal DeleteCompositeResource: Deleting app; 2 more waves after them']);

    await world.reconcile();
    world.sync();
    const deleting = composed(world).get('release')?.metadata as { deletionTimestamp?: string } | undefined;
    expect(deleting?.deletionTimestamp, 'the release is being deleted').to.be.a('string');
    expect(composed(world).get('cluster')?.metadata).to.not.have.property('deletionTimestamp');
    await world.reconcile();
    world.sync();
    expect(composed(world).get('cluster')?.metadata, 'held while the release stays').to.not.have.property(
      'deletionTimestamp',
    );
    expect(ready(world)).to.equal(
      'False Deleting: cluster waits for release to be deleted; release is being deleted since 2026-01-01T00:00:00Z',
    );

    const held = composed(world).get('release');
    if (!held) throw new Error('no release');
    world.server.put({ ...held, metadata: { ...held.metadata, finalizers: [] } });
    await world.server.client.request('DELETE', `/api/v1/namespaces/default/configmaps/${held.metadata.name}`);
    world.sync();
    await world.reconcile();
    world.sync();
    expect(composed(world).size, 'the cluster last').to.equal(0);
    await world.reconcile();
    expect(world.xr(), 'the finalizer removed: gone').to.equal(undefined);
  });

  it('creates a resource that depends on a required one once what the requirement matched is Ready', async () => {
    const state = { names: ['app'], ready: new Set<string>(['app']), pairs: [] as Dependency[] };
    const world = new World({ reconciler: { ordering: true } });
    world.runner.respond = () => ({
      ...fn(state)(),
      requirements: {
        resources: { net: { apiVersion: 'example.org/v1', kind: 'Cluster', matchName: 'shared' } },
      },
      dependencies: { items: [{ resource: 'app', requiredResource: { requirementName: 'net' } }] },
    });
    world.createXr();
    await world.converge();
    expect(composed(world).size, 'nothing matched yet: it waits').to.equal(0);
    expect(ready(world)).to.equal('False Creating: app waits on requirement net');

    world.server.put({
      apiVersion: 'example.org/v1',
      kind: 'Cluster',
      metadata: { name: 'shared' },
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    });
    await world.converge();
    expect(composed(world).size, 'matched but not Ready').to.equal(0);

    world.server.put({
      apiVersion: 'example.org/v1',
      kind: 'Cluster',
      metadata: { name: 'shared' },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    await world.converge();
    expect([...composed(world).keys()]).to.deep.equal(['app']);
  });
});
