import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { KubeClient } from '../../src/kube/index.js';
import { startFunction, type FunctionProcess } from '../functions/process.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  eventsFor,
  get,
  installFunctionApi,
  mergePatch,
  remove,
  startEngine,
  testApi,
  type RunningEngine,
  type XrObject,
} from './engine.js';
import { ComposedConfigMaps, readySays as orderedReadySays } from './orderedConfigMaps.js';

// Ordered composition (--enable-composed-resource-ordering): a function written with the TypeScript SDK declares
// cluster <- release <- app. Each ConfigMap is created once what it depends on is Ready (the test flips readiness
// with an annotation the function reads, and the watch brings the change), and the XR is torn down in reverse, a
// wave held while a finalizer holds the one before, and finished by another engine from resourceRefs alone.
const ORDERING_FUNCTION = fileURLToPath(new URL('../functions/ordering-function.ts', import.meta.url));
const DROP_ANNOTATION = 'ordering.compositor.test/drop';
const NAMESPACE = 'default';

interface OrderedRef {
  kind: string;
  name: string;
  resourceName?: string;
  dependsOn?: string[];
}

describe('ordered composition (integration)', function () {
  this.timeout(180_000);
  const api = testApi('ordering.compositor.test', 'XOrdered');
  let client: KubeClient;
  let fn: FunctionProcess;
  let running: RunningEngine;
  const xr = (name: string): XrObject => ({
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name, namespace: NAMESPACE },
    spec: {},
  });

  let cms: ComposedConfigMaps;
  const composed = (name: string): ReturnType<ComposedConfigMaps['of']> => cms.of(name);
  const exactly = (name: string, names: string[]): Promise<true> => cms.exactly(name, names);
  const markReady = (name: string, resource: string): Promise<void> => cms.markReady(name, resource);
  const hold = (name: string, resource: string): Promise<void> => cms.hold(name, resource);
  const release = (name: string, resource: string): Promise<void> => cms.release(name, resource);

  const readySays = (name: string, text: string): Promise<true> => orderedReadySays(client, xr(name), text);

  /** Creates the XR and makes it Ready, wave by wave, checking that each wave waits for the one before. */
  async function createInOrder(name: string): Promise<void> {
    await eventually('the XR created', () => apply(client, xr(name)));
    await eventually('only the cluster created', () => exactly(name, ['cluster']));
    await eventually('Ready says what waits on what', () =>
      readySays(name, 'app waits on release; release waits on cluster'),
    );
    // Realtime: the readiness of a dependency arrives as a watch event; the XR has no poll due for a minute.
    await markReady(name, 'cluster');
    await eventually('the release created once the cluster is Ready', () => exactly(name, ['cluster', 'release']), {
      timeoutMs: 10_000,
    });
    await eventually('Ready says the app waits on the release', () => readySays(name, 'app waits on release'));
    await markReady(name, 'release');
    await eventually('the app created once the release is Ready', () => exactly(name, ['app', 'cluster', 'release']), {
      timeoutMs: 10_000,
    });
    await markReady(name, 'app');
    await eventually('the XR Ready', () => readySays(name, 'True Available'), { timeoutMs: 10_000 });
  }

  /** Resolves when `resource` is being deleted and `still` exists without a deletionTimestamp. */
  async function deletingBefore(name: string, resource: string, still: string): Promise<true> {
    const now = await composed(name);
    const summary = await cms.summary(name);
    const kept = now.get(still);
    if (kept === undefined || kept.metadata.deletionTimestamp !== undefined) {
      throw new Error(`${still} deleted early: ${summary}`);
    }
    if (now.get(resource)?.metadata.deletionTimestamp === undefined) throw new Error(`waiting: ${summary}`);
    if (now.has('app') && resource !== 'app') throw new Error(`app still there: ${summary}`);
    return true;
  }

  before(async () => {
    client = controlPlane().client();
    cms = new ComposedConfigMaps(client, NAMESPACE);
    fn = await startFunction(ORDERING_FUNCTION);
    running = await startEngine({ functionInsecure: true, enableComposedResourceOrdering: true });
    await installFunctionApi(client, api, {
      fn: { name: 'ordering-function', endpoint: fn.endpoint },
      pipeline: [
        {
          step: 'compose',
          functionRef: { name: 'ordering-function' },
          input: {
            apiVersion: 'ordering.fn.compositor.test/v1',
            kind: 'Input',
            resources: [
              { name: 'cluster' },
              { name: 'release', dependsOn: ['cluster'] },
              { name: 'app', dependsOn: ['release'] },
            ],
          },
        },
      ],
    });
  });

  after(async () => {
    for (const name of ['ordered', 'collected', 'kept', 'restarted']) {
      for (const resource of ['cluster', 'release', 'app']) await release(name, resource).catch(() => undefined);
      await remove(client, xr(name));
    }
    await running.stop();
    await fn.stop();
  });

  it('creates each resource once what it depends on is Ready, and keeps the graph in resourceRefs', async () => {
    await createInOrder('ordered');
    const stored = (await get<XrObject & { spec?: { crossplane?: { resourceRefs?: OrderedRef[] } } }>(
      client,
      xr('ordered'),
    )) as { spec?: { crossplane?: { resourceRefs?: OrderedRef[] } } } | undefined;
    const refs = (stored?.spec?.crossplane?.resourceRefs ?? []).map((r) => [r.resourceName, r.dependsOn ?? []]);
    expect(refs.sort()).to.deep.equal([
      ['app', ['release']],
      ['cluster', []],
      ['release', ['cluster']],
    ]);
  });

  it('tears down in reverse, holding the cluster while a finalizer holds the release', async () => {
    await hold('ordered', 'release');
    await remove(client, xr('ordered'));
    await eventually('the app deleted, then the release, the cluster untouched', () =>
      deletingBefore('ordered', 'release', 'cluster'),
    );
    await eventually('Ready says the cluster waits for the release', () =>
      readySays('ordered', 'cluster waits for release to be deleted'),
    );
    // The XR looked again (it writes nothing new while it waits): the cluster is still not being deleted.
    const reconciles = await running.reconciles(api.controller);
    await eventually('another reconcile', async () =>
      (await running.reconciles(api.controller)) > reconciles ? true : undefined,
    );
    await deletingBefore('ordered', 'release', 'cluster');
    await release('ordered', 'release');
    await eventually('the XR gone, its composed resources with it', async () =>
      (await get(client, xr('ordered'))) === undefined && (await composed('ordered')).size === 0 ? true : undefined,
    );
  });

  it('collects garbage in reverse from the graph in resourceRefs when the function drops resources and edges', async () => {
    await createInOrder('collected');
    await hold('collected', 'app');
    const stored = await get<XrObject>(client, xr('collected'));
    await mergePatch(client, xr('collected'), { metadata: { annotations: { [DROP_ANNOTATION]: 'app,release' } } });
    await eventually('the app being deleted, the release untouched', () =>
      deletingBefore('collected', 'app', 'release'),
    );
    await eventually('an event for the wave', async () => {
      const events = await eventsFor(client, NAMESPACE, stored?.metadata.uid ?? '', 'ComposeResources');
      const notes = events.map((e) => e.note ?? '');
      if (!notes.includes('Deleting app; 1 more wave after them')) throw new Error(JSON.stringify(notes));
      return true;
    });
    await release('collected', 'app');
    await eventually('the release collected after the app, the cluster kept', () => exactly('collected', ['cluster']));
    await eventually('the XR Ready', () => readySays('collected', 'True Available'));
  });

  /** Asks for a reconcile of the XR (the restart spread would otherwise leave a settled XR for a poll interval). */
  async function reconciled(name: string, token: string): Promise<void> {
    await mergePatch(client, xr(name), {
      metadata: { annotations: { 'crossplane.io/reconcile-requested-at': token } },
    });
    await eventually(`the XR reconciled for ${token}`, async () =>
      (await get<XrObject>(client, xr(name)))?.status?.lastHandledReconcileAt === token ? true : undefined,
    );
  }

  it('keeps an XR composed with the graph working when the flag is turned off, and on again', async () => {
    await createInOrder('kept');
    await running.stop();
    running = await startEngine({ functionInsecure: true, enableComposedResourceOrdering: false });
    await reconciled('kept', 'off');
    await exactly('kept', ['app', 'cluster', 'release']);
    await readySays('kept', 'True Available');
    await running.stop();
    running = await startEngine({ functionInsecure: true, enableComposedResourceOrdering: true });
    await reconciled('kept', 'on');
    await exactly('kept', ['app', 'cluster', 'release']);
    await readySays('kept', 'True Available');
  });

  it('finishes a teardown after a restart from resourceRefs alone, the function gone', async () => {
    await createInOrder('restarted');
    await hold('restarted', 'release');
    await remove(client, xr('restarted'));
    await eventually('the release being deleted', () => deletingBefore('restarted', 'release', 'cluster'));
    await running.stop();
    // Nothing can run the pipeline now: the order comes from resourceRefs.
    await fn.stop();
    running = await startEngine({ functionInsecure: true, enableComposedResourceOrdering: true });
    await eventually('the new engine reconciled the XR', async () =>
      (await running.reconciles(api.controller)) > 0 ? true : undefined,
    );
    await deletingBefore('restarted', 'release', 'cluster');
    await release('restarted', 'release');
    await eventually('the XR gone', async () =>
      (await get(client, xr('restarted'))) === undefined ? true : undefined,
    );
  });
});
