import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_BUILTIN_REGISTRIES } from '../../src/functions/index.js';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { pullSecret } from '../unit/fakes/registry.js';
import { buildPackage } from '../unit/fakes/xpkg.js';
import {
  apply,
  condition,
  ensureNamespace,
  get,
  mergePatch,
  ptComposition,
  remove,
  startEngine,
  testApi,
  xrd,
  type Condition,
  type RunningEngine,
} from './engine.js';
import { xrRef as xrRefIn } from './crossplaneReplay.js';
import { controlPlane, eventually } from './harness.js';
import { withoutLock } from './lockHygiene.js';
import { packageStream, TestRegistry } from './registry.js';

// Package dependencies end to end: upstream's configuration-app, whose metadata depends on provider-helm and
// function-patch-and-transform, with both addresses moved to a real registry (token authentication) that holds the
// Function at a tag satisfying the constraint and at one that does not. compositor's revision records itself in the
// Lock, the resolver creates the Function at the satisfying tag, the Function's revision joins the Lock, and the
// Provider (Providers disabled) stays missing with upstream's message. The Function is pushed under a repository of
// this test's own: the resolver names a dependency's package object after its repository and, as upstream's, leaves
// an object of that name alone whatever its source, so a Function another test file left must not take that name.
const NS = 'dependencies-system';
const NAME = 'configuration-app';
const FN_REPOSITORY = 'dependencies-test/function-patch-and-transform';
const FUNCTION_NAME = 'dependencies-test-function-patch-and-transform';
const PKG = 'pkg.crossplane.io/v1';

type Stored = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown> & { conditions?: Condition[] };
};
interface LockPackage {
  name: string;
  type?: string;
  kind?: string;
  source: string;
  version: string;
  dependencies: { package: string; type?: string; constraints: string }[];
}
type Lock = Stored & { packages?: LockPackage[] };

const lockRef = { apiVersion: 'pkg.crossplane.io/v1beta1', kind: 'Lock', metadata: { name: 'lock' } };

describe('package dependencies through the Lock (integration)', function () {
  this.timeout(90_000);
  const registry = new TestRegistry('token');
  let running: RunningEngine | undefined;
  let client: KubeClient;
  let cacheDir: string | undefined;
  let fnSource = '';
  let helmSource = '';
  let configurationRef = '';

  before(async () => {
    client = controlPlane().client();
    await registry.start();
    fnSource = `${registry.host}/${FN_REPOSITORY}`;
    helmSource = `${registry.host}/upbound/provider-helm`;
    // The shared metadata with the dependencies' addresses moved to the test registry; nothing else changed.
    const stream = packageStream(NAME, ['apis/definition.yaml', 'apis/composition.yaml'])
      .replace('xpkg.upbound.io/upbound/provider-helm', helmSource)
      .replace('xpkg.upbound.io/crossplane-contrib/function-patch-and-transform', fnSource);
    if (!stream.includes(fnSource) || !stream.includes(helmSource)) {
      throw new Error('configuration-app no longer names the dependencies this test moves');
    }
    configurationRef = await registry.push(await buildPackage(stream), 'upbound/configuration-app', 'v0.1.0');
    const fn = await buildPackage(packageStream('function-patch-and-transform', []));
    // The metadata asks for v0.8.2; v0.9.0 is newer and does not satisfy it.
    await registry.push(fn, FN_REPOSITORY, 'v0.8.2');
    await registry.push(fn, FN_REPOSITORY, 'v0.9.0');
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
    await withoutLock(client);
    running = await startEngine({ packageRuntime: 'Deployment', leaderElectionNamespace: NS, xpkgCacheDir: cacheDir });
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'registry');
    await apply(client, { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { name: 'registry', namespace: NS } });
  });

  after(async () => {
    await remove(client, { apiVersion: PKG, kind: 'Configuration', metadata: { name: NAME } }).catch(() => undefined);
    await remove(client, { apiVersion: PKG, kind: 'Function', metadata: { name: FUNCTION_NAME } }).catch(
      () => undefined,
    );
    await running?.stop();
    // Stopped first, so no revision records itself again: later tests start from no Lock.
    await withoutLock(client);
    await registry.stop();
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it('installs the Function dependency at the satisfying tag and lists both packages in the Lock', async () => {
    await apply(client, {
      apiVersion: PKG,
      kind: 'Configuration',
      metadata: { name: NAME },
      spec: { package: configurationRef, packagePullSecrets: [{ name: 'registry' }] },
    });

    const fn = await eventually(
      'the resolver creates the Function dependency',
      () => get<Stored>(client, { apiVersion: PKG, kind: 'Function', metadata: { name: FUNCTION_NAME } }),
      { timeoutMs: 40_000 },
    );
    expect(fn.spec?.package).to.equal(`${fnSource}:v0.8.2`);

    // Only the packages of this test's registry: other test files' packages may still be listed, with sources on other
    // registries (a revision deleted while no engine ran stays listed, docs/packages.md).
    const ours = (lock: Lock | undefined): LockPackage[] =>
      (lock?.packages ?? []).filter((p) => p.source.startsWith(`${registry.host}/`));
    const listed = await eventually(
      'the Lock lists the Configuration and the Function',
      async () => {
        const got = await get<Lock>(client, lockRef);
        const types = ours(got)
          .map((p) => p.kind)
          .sort();
        if (JSON.stringify(types) === JSON.stringify(['Configuration', 'Function'])) return ours(got);
        throw new Error(JSON.stringify(got?.packages ?? got));
      },
      { timeoutMs: 40_000 },
    );
    const configuration = listed.find((p) => p.kind === 'Configuration');
    expect(configuration).to.deep.include({
      source: `${registry.host}/upbound/configuration-app`,
      version: 'v0.1.0',
      dependencies: [
        { package: helmSource, type: 'Provider', constraints: 'v0' },
        { package: fnSource, type: 'Function', constraints: 'v0.8.2' },
      ],
    });
    expect(listed.find((p) => p.kind === 'Function')).to.deep.include({ source: fnSource, version: 'v0.8.2' });

    const revision = await eventually(
      'the revision reports the Provider as its only missing dependency',
      async () => {
        const cfg = await get<Stored>(client, { apiVersion: PKG, kind: 'Configuration', metadata: { name: NAME } });
        const name = typeof cfg?.status?.currentRevision === 'string' ? cfg.status.currentRevision : '';
        const rev = await get<Stored>(client, { apiVersion: PKG, kind: 'ConfigurationRevision', metadata: { name } });
        if (rev?.status?.installedDependencies === 1) return rev;
        throw new Error(JSON.stringify(rev?.status ?? cfg?.status));
      },
      { timeoutMs: 40_000 },
    );
    expect(revision.status).to.include({ foundDependencies: 2, installedDependencies: 1 });
    expect(revision.status, 'a zero count is not written, as upstream').not.to.have.property('invalidDependencies');
    expect(condition(revision, 'RevisionHealthy')).to.include({
      status: 'False',
      reason: 'UnhealthyPackageRevision',
      message: `cannot resolve package dependencies: missing dependencies: [${helmSource}]`,
    });
    const resolved = condition(await get<Lock>(client, lockRef), 'Resolved');
    expect(resolved).to.include({ status: 'False', reason: 'DependencyResolutionFailed' });
    expect(resolved?.message).to.include(`unless --enable-providers is set: [${helmSource}]`);
    // Polled: a CRD the engine has just installed may answer "storage is (re)initializing" at first.
    const providers = await eventually('the Providers listed', () =>
      client.request<{ items: unknown[] }>('GET', '/apis/pkg.crossplane.io/v1/providers'),
    );
    expect(providers.items, 'no Provider is installed while Providers are disabled').to.deep.equal([]);
  });
});

// A Configuration depending on a Provider and a Function, with Providers enabled: the resolver installs both, the
// Function at the highest tag satisfying the constraint and served by the built-in patch-and-transform (the test
// registry's repository is declared a mirror of upstream's), so it is listed in the Lock under its own name; the
// Provider's CRD becomes an MRD and then a CRD; the Configuration turns healthy, installs its XRD and Composition, and
// an XR of it composes the Provider's kind through the Function that was installed as a dependency. Everything is of
// this test's own group and repositories, so no other test file's objects take part.
const REPO = 'deps-with-provider';
const WIDGETS = 'widgets.deps.providers.example.org';
const widgetApi = testApi('deps.providers.example.org', 'XWidgetSet');
const XR_NS = 'dependencies-providers';

function yamlStream(objects: readonly object[]): string {
  return objects.map((o) => JSON.stringify(o)).join('\n---\n') + '\n';
}

/** A Provider package of one namespaced managed resource kind, Widget, whose schema keeps whatever is written. */
function widgetProvider(): string {
  const meta = { apiVersion: 'meta.pkg.crossplane.io/v1', kind: 'Provider', metadata: { name: 'provider-widgets' } };
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: WIDGETS },
    spec: {
      group: 'deps.providers.example.org',
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
  return yamlStream([meta, crd]);
}

/** The Configuration: an XRD and a Composition whose one step, the dependency Function, composes a Widget. */
function widgetConfiguration(host: string, functionName: string): string {
  const meta = {
    apiVersion: 'meta.pkg.crossplane.io/v1',
    kind: 'Configuration',
    metadata: { name: 'configuration-widgets' },
    spec: {
      dependsOn: [
        { provider: `${host}/${REPO}/provider-widgets`, version: '>=v0.3.0' },
        { function: `${host}/${REPO}/function-patch-and-transform`, version: '>=v0.10.0 <v0.11.0' },
      ],
    },
  };
  const widget = {
    name: 'widget',
    base: { apiVersion: 'deps.providers.example.org/v1alpha1', kind: 'Widget', spec: { forProvider: { size: '' } } },
    patches: [{ type: 'FromCompositeFieldPath', fromFieldPath: 'spec.image', toFieldPath: 'spec.forProvider.size' }],
  };
  const composition = ptComposition(widgetApi, [widget], { functionName }) as KubeObject & {
    spec: { pipeline: unknown[] };
  };
  // The dependency alone: no auto-ready step, whose Function this Configuration does not depend on.
  composition.spec.pipeline = composition.spec.pipeline.slice(0, 1);
  return yamlStream([meta, xrd(widgetApi), composition]);
}

describe('package dependencies with Providers enabled (integration)', function () {
  this.timeout(120_000);
  const registry = new TestRegistry('token');
  const NS2 = 'dependencies-providers-system';
  const fnName = `${REPO}-function-patch-and-transform`;
  const providerName = `${REPO}-provider-widgets`;
  const configuration = { apiVersion: PKG, kind: 'Configuration', metadata: { name: 'configuration-widgets' } };
  const xr = { ...xrRefIn('widgets', widgetApi, XR_NS), spec: { image: 'large' } } as KubeObject;
  let running: RunningEngine | undefined;
  let client: KubeClient;
  let cacheDir: string | undefined;

  before(async () => {
    client = controlPlane().client();
    await ensureNamespace(client, NS2);
    await ensureNamespace(client, XR_NS);
    await registry.start();
    const fn = await buildPackage(packageStream('function-patch-and-transform', []));
    // v0.10.8 satisfies the constraint and is a release the built-in reproduces; v0.11.0 is newer and does not.
    await registry.push(fn, `${REPO}/function-patch-and-transform`, 'v0.10.8');
    await registry.push(fn, `${REPO}/function-patch-and-transform`, 'v0.11.0');
    await registry.push(await buildPackage(widgetProvider()), `${REPO}/provider-widgets`, 'v0.3.0');
    const ref = await registry.push(
      await buildPackage(widgetConfiguration(registry.host, fnName)),
      `${REPO}/configuration-widgets`,
      'v1.0.0',
    );
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
    await withoutLock(client);
    running = await startEngine({
      packageRuntime: 'Deployment',
      leaderElectionNamespace: NS2,
      xpkgCacheDir: cacheDir,
      enableProviders: true,
      // Upstream's locations kept: other test files' Functions of upstream's packages stay built-in, so none of them
      // runs a revision of its own that would list one package twice in the Lock (`cannot build DAG`), as two
      // package objects of one source would for Crossplane too.
      builtinFunctionRegistries: [...DEFAULT_BUILTIN_REGISTRIES, `${registry.host}/${REPO}`],
    });
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'registry');
    await apply(client, {
      apiVersion: 'v1',
      kind: 'Secret',
      ...secret,
      metadata: { name: 'registry', namespace: NS2 },
    });
    await apply(client, { ...configuration, spec: { package: ref, packagePullSecrets: [{ name: 'registry' }] } });
  });

  after(async () => {
    await remove(client, xr).catch(() => undefined);
    for (const kind of ['Configuration', 'Provider', 'Function']) {
      const name = { Configuration: configuration.metadata.name, Provider: providerName, Function: fnName }[kind];
      await remove(client, { apiVersion: PKG, kind, metadata: { name: name ?? '' } }).catch(() => undefined);
    }
    await running?.stop();
    await withoutLock(client);
    await registry.stop();
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it('installs the Provider and the Function, and the Configuration composes through them', async () => {
    const installedPackage = (kind: string, name: string): Promise<Stored> =>
      eventually(
        `the ${kind} ${name} installed`,
        async () => {
          const got = await get<Stored>(client, { apiVersion: PKG, kind, metadata: { name } });
          if (condition(got, 'Installed')?.status === 'True') return got;
          throw new Error(JSON.stringify(got?.status ?? got));
        },
        { timeoutMs: 60_000 },
      );
    // The Provider comes first, as the metadata lists it. The resolver creates it as upstream's does, without pull secrets (upstream gives a dependency
    // credentials through an ImageConfig alone): the platform team adds the registry's, as they would for a private
    // dependency.
    await eventually(
      'the resolver creates the Provider',
      async () => {
        const created = await get<Stored>(client, {
          apiVersion: PKG,
          kind: 'Provider',
          metadata: { name: providerName },
        });
        if (created !== undefined) return created;
        // What the resolver and the depending revision say, on timeout.
        const lock = await get<Lock>(client, lockRef);
        const cfg = await get<Stored>(client, configuration);
        throw new Error(JSON.stringify({ lock: { packages: lock?.packages, status: lock?.status }, cfg: cfg?.status }));
      },
      { timeoutMs: 40_000 },
    );
    await mergePatch(
      client,
      { apiVersion: PKG, kind: 'Provider', metadata: { name: providerName } },
      { spec: { packagePullSecrets: [{ name: 'registry' }] } },
    );
    const provider = await installedPackage('Provider', providerName);
    expect(provider.spec?.package).to.equal(`${registry.host}/${REPO}/provider-widgets:v0.3.0`);
    // Then the Function: the resolver installs one missing dependency at a time, as upstream's.
    const fn = await installedPackage('Function', fnName);
    expect(fn.spec?.package).to.equal(`${registry.host}/${REPO}/function-patch-and-transform:v0.10.8`);
    expect(condition(fn, 'Healthy')?.status, 'served by the built-in').to.equal('True');

    const healthy = await eventually(
      'the Configuration healthy once its dependencies are installed',
      async () => {
        const got = await get<Stored>(client, configuration);
        if (condition(got, 'Healthy')?.status === 'True') return got;
        throw new Error(JSON.stringify(got?.status ?? got));
      },
      { timeoutMs: 60_000 },
    );
    expect(condition(healthy, 'Installed')?.status).to.equal('True');
    const lock = await get<Lock>(client, lockRef);
    const ours = (lock?.packages ?? []).filter((p) => p.source.startsWith(`${registry.host}/${REPO}/`));
    expect(ours.map((p) => `${p.kind ?? ''} ${p.name}`).sort()).to.deep.equal(
      [
        `Configuration ${String(healthy.status?.currentRevision)}`,
        `Function ${fnName}`,
        `Provider ${String(provider.status?.currentRevision)}`,
      ].sort(),
    );

    await eventually('the Widget kind served', () =>
      client.request('GET', `/apis/deps.providers.example.org/v1alpha1/namespaces/${XR_NS}/widgets`),
    );
    await eventually(`the ${widgetApi.kind} kind served`, () =>
      client.request('GET', `/apis/${widgetApi.apiVersion}/namespaces/${XR_NS}/${widgetApi.plural}`),
    );
    await apply(client, xr);
    const widget = await eventually(
      'the XR composes a Widget',
      async () => {
        const got = await get<Stored>(client, xr);
        const ref = (
          got?.spec?.crossplane as { resourceRefs?: { kind: string; name: string }[] } | undefined
        )?.resourceRefs?.find((r) => r.kind === 'Widget');
        if (ref === undefined) throw new Error(JSON.stringify(got?.status ?? got));
        return get<Stored>(client, {
          apiVersion: 'deps.providers.example.org/v1alpha1',
          kind: 'Widget',
          metadata: { name: ref.name, namespace: XR_NS },
        });
      },
      { timeoutMs: 40_000 },
    );
    expect(widget.spec?.forProvider).to.deep.equal({ size: 'large' });
  });
});
