import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { DELETION_ATTEMPT_ANNOTATION as ATTEMPT, IN_USE_LABEL as IN_USE } from '../../src/controller/index.js';
import type { KubeClient } from '../../src/kube/index.js';
import { startFunction, type FunctionProcess } from '../functions/process.js';
import { controlPlane, eventually } from './harness.js';
import {
  apply,
  eventsFor,
  functions,
  get,
  installFunctionApi,
  PT_FUNCTION,
  AUTO_READY_FUNCTION,
  remove,
  startEngine,
  testApi,
  type RunningEngine,
  type TestApi,
  type XrObject,
} from './engine.js';
import { ComposedConfigMaps, readySays, type ConfigMap } from './orderedConfigMaps.js';

// Ordered composition beside what users have today. function-sequencer's rules (test/functions/sequencer-function.ts
// mirrors them) gate creation and, with Usages, deletion: an XR sequenced by it converges to the same ConfigMaps in
// the same order with the flag off and on, and its Usages still hold a used ConfigMap until its user is gone, whether
// or not the graph declares the same edge, and without deadlock. And an edge to a required resource (not a composed
// one) gates creation until what the requirement matched exists; the same name as a composed edge is pruned.
const FUNCTIONS = {
  ordering: fileURLToPath(new URL('../functions/ordering-function.ts', import.meta.url)),
  sequencer: fileURLToPath(new URL('../functions/sequencer-function.ts', import.meta.url)),
  dependency: fileURLToPath(new URL('../functions/dependency-function.ts', import.meta.url)),
};
const NAMESPACE = 'default';
const SETTINGS = 'ordering-compat-settings';

/** cluster, release and app, sequenced (release by a regular expression); `declared`: the same edges as a graph. */
function sequencedPipeline(declared: boolean): unknown[] {
  const on = (name: string): { dependsOn?: string[] } => (declared ? { dependsOn: [name] } : {});
  return [
    {
      step: 'compose',
      functionRef: { name: 'ordering-function' },
      input: {
        apiVersion: 'ordering.fn.compositor.test/v1',
        kind: 'Input',
        resources: [{ name: 'cluster' }, { name: 'release', ...on('cluster') }, { name: 'app', ...on('release') }],
      },
    },
    {
      step: 'sequence',
      functionRef: { name: 'sequencer-function' },
      input: {
        apiVersion: 'sequencer.fn.crossplane.io/v1beta1',
        kind: 'Input',
        enableDeletionSequencing: true,
        rules: [{ sequence: ['cluster', 'rel.*', 'app'] }],
      },
    },
  ];
}

/** app (patch-and-transform) created once the ConfigMap SETTINGS, which a step requires, exists. */
function requiringPipeline(): unknown[] {
  return [
    {
      step: 'patch-and-transform',
      functionRef: { name: PT_FUNCTION },
      input: {
        apiVersion: 'pt.fn.crossplane.io/v1beta1',
        kind: 'Resources',
        resources: [
          { name: 'app', base: { apiVersion: 'v1', kind: 'ConfigMap' }, readinessChecks: [{ type: 'None' }] },
        ],
      },
    },
    {
      step: 'dependencies',
      functionRef: { name: 'dependency-function' },
      input: {
        apiVersion: 'dependencies.fn.compositor.test/v1',
        kind: 'Input',
        requirements: { settings: { apiVersion: 'v1', kind: 'ConfigMap', matchName: SETTINGS, namespace: NAMESPACE } },
        // The second edge names the requirement as if it were a composed resource: it is neither, so it is pruned.
        dependencies: [
          { resource: 'app', requirement: 'settings' },
          { resource: 'app', dependsOn: 'settings' },
        ],
      },
    },
    { step: 'ready', functionRef: { name: AUTO_READY_FUNCTION } },
  ];
}

describe('ordered composition with function-sequencer, Usages and required resources (integration)', function () {
  this.timeout(180_000);
  const sequenced = testApi('sequenced.compositor.test', 'XSequenced');
  const declared = testApi('declared.compositor.test', 'XDeclared');
  const requiring = testApi('requiring.compositor.test', 'XRequiring');
  let client: KubeClient;
  let cms: ComposedConfigMaps;
  let fns: FunctionProcess[] = [];
  let running: RunningEngine | undefined;
  const xr = (api: TestApi, name: string): XrObject => ({
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name, namespace: NAMESPACE },
    spec: {},
  });
  const settings: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: SETTINGS, namespace: NAMESPACE },
  };

  /** Notes of the events about the XR: function results and compositor's own. */
  async function notes(object: XrObject): Promise<string[]> {
    const uid = (await get<XrObject>(client, object))?.metadata.uid ?? '';
    return (await eventsFor(client, NAMESPACE, uid)).map((e) => e.note ?? '');
  }

  /** Creates the XR and walks it to Ready: cluster, then release once cluster is Ready, then app; the sequencer said why. */
  async function createInSequence(api: TestApi, name: string): Promise<void> {
    const object = xr(api, name);
    await eventually('the XR created', () => apply(client, object));
    await eventually('only the cluster created', () => cms.exactly(name, ['cluster']));
    await eventually('the sequencer delaying the release', async () => {
      const seen = await notes(object);
      const delayed =
        'Pipeline step "sequence": Delaying creation of resource(s) matching "rel.*" because "cluster" is not fully ready (0 of 1)';
      if (!seen.includes(delayed)) throw new Error(JSON.stringify(seen));
      return true;
    });
    await cms.exactly(name, ['cluster']);
    await cms.markReady(name, 'cluster');
    await eventually('the release created once the cluster is Ready', () => cms.exactly(name, ['cluster', 'release']));
    await cms.markReady(name, 'release');
    await eventually('the app created once the release is Ready', () =>
      cms.exactly(name, ['app', 'cluster', 'release']),
    );
    await cms.markReady(name, 'app');
    await eventually('the XR Ready', () => readySays(client, object, 'True Available'));
  }

  /**
   * Deletes the XR while a finalizer holds the release: the cluster must outlive it. Without a graph the cluster's
   * deletion is tried and refused by the sequencer's Usage; with one it is not tried. Then the XR goes entirely.
   */
  async function deleteHoldingRelease(api: TestApi, name: string, graph: boolean): Promise<void> {
    const object = xr(api, name);
    await eventually('the cluster and the release in use', async () => {
      const now = await cms.of(name);
      const used = ['cluster', 'release'].every((r) => now.get(r)?.metadata.labels?.[IN_USE] === 'true');
      return used ? true : undefined;
    });
    await cms.hold(name, 'release');
    await remove(client, object);
    const cluster = async (): Promise<ConfigMap | undefined> => (await cms.of(name)).get('cluster');
    await eventually('the app gone, the release being deleted, the cluster kept', async () => {
      const now = await cms.of(name);
      const releasing = now.get('release')?.metadata.deletionTimestamp !== undefined;
      const kept = now.get('cluster')?.metadata.deletionTimestamp === undefined;
      const attempted = now.get('cluster')?.metadata.annotations?.[ATTEMPT] !== undefined;
      if (!now.has('app') && releasing && kept && (graph || attempted)) return true;
      throw new Error(await cms.summary(name));
    });
    if (graph) {
      await eventually('Ready says the cluster waits for the release', () =>
        readySays(client, object, 'cluster waits for release to be deleted'),
      );
      expect((await cluster())?.metadata.annotations?.[ATTEMPT], 'a deletion of the cluster tried').to.equal(undefined);
    }
    expect((await cluster())?.metadata.deletionTimestamp, 'the cluster deleted').to.equal(undefined);
    await cms.release(name, 'release');
    await eventually(
      'the XR and its composed resources gone',
      async () => ((await get(client, object)) === undefined && (await cms.of(name)).size === 0 ? true : undefined),
      { timeoutMs: 60_000 },
    );
  }

  async function restartEngine(ordering: boolean): Promise<void> {
    await running?.stop();
    running = await startEngine({ functionInsecure: true, enableComposedResourceOrdering: ordering });
  }

  before(async () => {
    client = controlPlane().client();
    cms = new ComposedConfigMaps(client, NAMESPACE);
    // The engine installs compositor's CRDs; the flag is off for the first test.
    await restartEngine(false);
    fns = await Promise.all([startFunction(FUNCTIONS.ordering), startFunction(FUNCTIONS.sequencer)]);
    fns.push(await startFunction(FUNCTIONS.dependency));
    const [ordering, sequencer, dependency] = fns.map((f) => f.endpoint);
    const fn = [
      { name: 'ordering-function', endpoint: ordering ?? '' },
      { name: 'sequencer-function', endpoint: sequencer ?? '' },
    ];
    await installFunctionApi(client, sequenced, { fn, pipeline: sequencedPipeline(false) });
    await installFunctionApi(client, declared, { fn, pipeline: sequencedPipeline(true) });
    for (const builtin of functions()) await apply(client, builtin);
    await installFunctionApi(client, requiring, {
      fn: { name: 'dependency-function', endpoint: dependency ?? '' },
      pipeline: requiringPipeline(),
    });
  });

  after(async () => {
    const xrs = [xr(sequenced, 'seq-off'), xr(sequenced, 'seq-on'), xr(declared, 'seq-graph'), xr(requiring, 'req')];
    for (const object of xrs) {
      await cms.release(object.metadata.name, 'release').catch(() => undefined);
      await remove(client, object).catch(() => undefined);
    }
    await remove(client, settings);
    await running?.stop();
    await Promise.all(fns.map((f) => f.stop()));
  });

  it('sequences creation and, with its Usages, deletion with the flag off', async () => {
    await createInSequence(sequenced, 'seq-off');
    await deleteHoldingRelease(sequenced, 'seq-off', false);
  });

  it('does the same with the flag on and no declared dependencies', async () => {
    await restartEngine(true);
    await createInSequence(sequenced, 'seq-on');
    await deleteHoldingRelease(sequenced, 'seq-on', false);
  });

  it('keeps a Usage holding what it protects when the graph declares the same edge, without deadlock', async () => {
    await createInSequence(declared, 'seq-graph');
    await deleteHoldingRelease(declared, 'seq-graph', true);
  });

  it('creates a resource depending on a required resource once that exists, and prunes a composed edge naming it', async () => {
    const object = xr(requiring, 'req');
    await apply(client, object);
    await eventually('Ready says the app waits on the requirement', () =>
      readySays(client, object, 'app waits on requirement settings'),
    );
    await eventually('an event for the pruned edge', async () => {
      const seen = await notes(object);
      const pruned =
        'Ignored 1 dependency edge(s) naming resources that are neither desired nor observed: app -> settings';
      if (!seen.includes(pruned)) throw new Error(JSON.stringify(seen));
      return true;
    });
    await cms.exactly('req', []);
    // The required ConfigMap arrives: its watch reconciles the XR, which now creates the app.
    await apply(client, settings);
    await eventually('the app created', () => cms.exactly('req', ['app']), { timeoutMs: 20_000 });
    await eventually('the XR Ready', () => readySays(client, object, 'True Available'));
  });
});
