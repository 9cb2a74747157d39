import { expect } from 'chai';
import { BUILTIN_ANNOTATION } from '../../src/functions/index.js';
import { isNotFound, type KubeClient, type KubeObject } from '../../src/kube/index.js';
import { revisionName, type FunctionPackage } from '../../src/packages/index.js';
import {
  apply,
  composition,
  condition,
  eventsFor,
  functions,
  get,
  remove,
  startEngine,
  testApi,
  xrd,
  type Condition,
  type RunningEngine,
  type XrObject,
} from './engine.js';
import { controlPlane, eventually } from './harness.js';

// Which Functions compositor serves in-process, end to end with --package-runtime=Deployment: only upstream's
// packages at the releases the built-ins reproduce; a fork or another release gets its Deployment and its calls go
// over gRPC; the annotation forces either way; every Function's Runtime condition says which.
const NS = 'pins-system';
const UPSTREAM = 'xpkg.crossplane.io/crossplane-contrib';
const OLD = { name: 'pins-pt-v0-9', pkg: `${UPSTREAM}/function-patch-and-transform:v0.9.0` };
const FORK = { name: 'pins-auto-ready-fork', pkg: 'registry.example.org/platform/function-auto-ready:v0.7.0' };
const CURRENT = { name: 'pins-pt-current', pkg: `${UPSTREAM}/function-patch-and-transform:v0.10.8` };
const INVALID = { name: 'pins-pt-invalid', pkg: `${UPSTREAM}/function-patch-and-transform:v0.10.8` };

function fnObject(f: { name: string; pkg: string }, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'Function',
    metadata: { name: f.name, ...(annotations ? { annotations } : {}) },
    spec: { package: f.pkg },
  };
}

async function fnCondition(client: KubeClient, name: string, type: string): Promise<Condition | undefined> {
  const fn = await get<XrObject>(client, fnObject({ name, pkg: '' }));
  return condition(fn, type);
}

async function deploymentExists(client: KubeClient, name: string): Promise<boolean> {
  return client.request('GET', `/apis/apps/v1/namespaces/${NS}/deployments/${name}`).then(
    () => true,
    (err: unknown) => {
      if (isNotFound(err)) return false;
      throw err;
    },
  );
}

/** Waits for a Function's Runtime condition to match, and returns it. */
function runtimeOf(client: KubeClient, name: string, want: Partial<Condition>): Promise<Condition> {
  return eventually(`Function ${name} Runtime ${JSON.stringify(want)}`, async () => {
    const got = await fnCondition(client, name, 'Runtime');
    const matches = Object.entries(want).every(([k, v]) => got?.[k as keyof Condition] === v);
    if (matches) return got;
    throw new Error(JSON.stringify(got));
  });
}

describe('built-in functions honour the pinned package (integration)', function () {
  this.timeout(120_000);
  const api = testApi('pins.compositor.test', 'XPinned');
  let running: RunningEngine;
  let client: KubeClient;
  const xr = {
    apiVersion: api.apiVersion,
    kind: api.kind,
    metadata: { name: 'pinned', namespace: 'default' },
    spec: { image: 'v1' },
  } as XrObject;

  before(async () => {
    client = controlPlane().client();
    running = await startEngine({ packageRuntime: 'Deployment', leaderElectionNamespace: NS });
    for (const f of functions()) await apply(client, f);
    for (const f of [OLD, FORK, CURRENT]) await apply(client, fnObject(f));
    await apply(client, fnObject(INVALID, { [BUILTIN_ANNOTATION]: 'yes' }));
    await apply(client, xrd(api));
    // The Composition's patch-and-transform step is the Function pinned to v0.9.0.
    await apply(client, composition(api, api.plural, { functionName: OLD.name }));
  });

  after(async () => {
    await remove(client, xr);
    await running.stop();
    for (const f of [OLD, FORK, CURRENT, INVALID]) await remove(client, fnObject(f));
  });

  it('runs a release outside the built-in range and a fork as packages, each with a Deployment', async () => {
    const old = await runtimeOf(client, OLD.name, { status: 'True', reason: 'PackageAsWritten' });
    expect(old.message).to.equal(
      "Running the package as written: version v0.9.0 is outside the built-in function-patch-and-transform's range >=0.10.0 <0.11.0",
    );
    const fork = await runtimeOf(client, FORK.name, { status: 'True', reason: 'PackageAsWritten' });
    expect(fork.message).to.equal(
      "Running the package as written: registry.example.org/platform is not a location of upstream's function-auto-ready (--builtin-function-registries)",
    );
    for (const f of [OLD, FORK]) {
      await eventually(`the Deployment of ${f.name}`, async () =>
        (await deploymentExists(client, revisionName(f.name, f.pkg))) ? true : undefined,
      );
    }
  });

  it('serves upstream at a reproduced release in-process, with no revision and no Deployment', async () => {
    const current = await runtimeOf(client, CURRENT.name, { status: 'True', reason: 'BuiltinFunction' });
    expect(current.message).to.equal(
      "Running in-process as compositor's built-in function-patch-and-transform (reproduces v0.10.x)",
    );
    expect((await fnCondition(client, CURRENT.name, 'Healthy'))?.status).to.equal('True');
    const revisions = await client.request<{ items: unknown[] }>(
      'GET',
      '/apis/pkg.crossplane.io/v1/functionrevisions',
      {
        query: { labelSelector: `pkg.crossplane.io/package=${CURRENT.name}` },
      },
    );
    expect(revisions.items).to.deep.equal([]);
    expect(await deploymentExists(client, revisionName(CURRENT.name, CURRENT.pkg))).to.equal(false);
  });

  it('reports an invalid annotation as a condition and an event, and keeps the default decision', async () => {
    const invalid = await runtimeOf(client, INVALID.name, { status: 'False', reason: 'InvalidBuiltinAnnotation' });
    expect(invalid.message).to.equal(
      `Running in-process as compositor's built-in function-patch-and-transform (reproduces v0.10.x); annotation ${BUILTIN_ANNOTATION}: "yes" is ignored: expected "true" or "false"`,
    );
    const fn = await get<FunctionPackage & KubeObject>(client, fnObject(INVALID));
    const events = await eventually('an InvalidBuiltinAnnotation event', async () => {
      const found = await eventsFor(client, 'default', fn?.metadata.uid ?? '', 'InvalidBuiltinAnnotation');
      return found.length > 0 ? found : undefined;
    });
    expect(events[0]?.type).to.equal('Warning');
    expect(events[0]?.note).to.equal(invalid.message);
  });

  it('calls a Function pinned outside the range over gRPC: the XR waits for its runtime', async () => {
    await apply(client, xr);
    const synced = await eventually('Synced False naming the Function', async () => {
      const c = condition(await get<XrObject>(client, xr), 'Synced');
      return c?.status === 'False' && c.message?.includes(OLD.name) === true ? c : undefined;
    });
    expect(synced.message).to.contain(`Function "${OLD.name}" has no healthy runtime`);
  });

  it('forces the built-in with annotation "true": the Deployment goes and the XR composes in-process', async () => {
    await apply(client, fnObject(OLD, { [BUILTIN_ANNOTATION]: 'true' }));
    const forced = await runtimeOf(client, OLD.name, { status: 'True', reason: 'BuiltinFunction' });
    expect(forced.message).to.equal(
      `Running in-process as compositor's built-in function-patch-and-transform (reproduces v0.10.x): forced by annotation ${BUILTIN_ANNOTATION}: "true"`,
    );
    await eventually('the Deployment deleted', async () =>
      (await deploymentExists(client, revisionName(OLD.name, OLD.pkg))) ? undefined : true,
    );
    await eventually(
      'XR Synced and its ConfigMap composed',
      async () => {
        const got = await get<XrObject>(client, xr);
        // status.image is patched back from the composed ConfigMap (composition() in engine.ts).
        if (condition(got, 'Synced')?.status === 'True' && got?.status?.image === 'v1') return true;
        throw new Error(JSON.stringify(got?.status));
      },
      { timeoutMs: 60_000 },
    );
  });

  it('forces the package with annotation "false": a Function upstream at a reproduced release gets a Deployment', async () => {
    await apply(client, fnObject(CURRENT, { [BUILTIN_ANNOTATION]: 'false' }));
    const forced = await runtimeOf(client, CURRENT.name, { status: 'True', reason: 'PackageAsWritten' });
    expect(forced.message).to.equal(
      `Running the package as written: forced by annotation ${BUILTIN_ANNOTATION}: "false"`,
    );
    await eventually(`the Deployment of ${CURRENT.name}`, async () =>
      (await deploymentExists(client, revisionName(CURRENT.name, CURRENT.pkg))) ? true : undefined,
    );
  });
});
