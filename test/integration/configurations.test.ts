import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../e2e/controlplane/ports.js';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import { buildImage, buildPackage } from '../unit/fakes/xpkg.js';
import { pullSecret } from '../unit/fakes/registry.js';
import {
  apply,
  condition,
  eventsFor,
  get,
  mergePatch,
  remove,
  startEngine,
  type Condition,
  type RunningEngine,
  type XrObject,
} from './engine.js';
import { controlPlane, eventually } from './harness.js';
import { packageStream, TestRegistry } from './registry.js';

// Configuration packages end to end: upstream's configuration-app, pushed to a real registry (token authentication),
// installed by compositor's Configuration controllers on a real API server; its XRD and Composition controlled by the
// active revision, an XR of it composed by the built-in patch-and-transform; an upgrade, a broken package and an
// unreachable registry, each changing only what it should.
const NS = 'configurations-system';
const CONFIGURATION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Configuration' };
const REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'ConfigurationRevision' };
const XRD_NAME = 'xapps.platform.upbound.io';
const XRD = {
  apiVersion: 'apiextensions.crossplane.io/v1',
  kind: 'CompositeResourceDefinition',
  metadata: { name: XRD_NAME },
};
const COMPOSITION = { apiVersion: 'apiextensions.crossplane.io/v1', kind: 'Composition', metadata: { name: XRD_NAME } };
const NAME = 'configuration-app';
const COMPOSITION_YAML = [
  'apiVersion: apiextensions.crossplane.io/v1',
  'kind: Composition',
  'metadata:',
  '  name: mixed.example.org',
  'spec:',
  '  compositeTypeRef: { apiVersion: example.org/v1, kind: XMixed }',
  '  mode: Pipeline',
  '  pipeline:',
  '    - step: pt',
  '      functionRef: { name: crossplane-contrib-function-patch-and-transform }',
  '',
].join('\n');

/** The Function configuration-app's Composition calls: upstream's package at a release the built-in reproduces. */
const PT = {
  apiVersion: 'pkg.crossplane.io/v1',
  kind: 'Function',
  metadata: { name: 'crossplane-contrib-function-patch-and-transform' },
  spec: { package: 'xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8' },
};

/** provider-helm's Release as far as the API server needs it to store what the Composition composes. */
const RELEASE_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'releases.helm.crossplane.io' },
  spec: {
    group: 'helm.crossplane.io',
    names: { kind: 'Release', listKind: 'ReleaseList', plural: 'releases', singular: 'release' },
    scope: 'Cluster',
    versions: [
      {
        name: 'v1beta1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

type Obj = XrObject & { metadata: KubeObject['metadata'] & { uid?: string; ownerReferences?: OwnerRef[] } };
interface OwnerRef {
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

function configuration(pkg: string, name = NAME, secrets = [{ name: 'registry' }]): KubeObject {
  // configuration-app depends on provider-helm and function-patch-and-transform at their upstream addresses, which
  // this test does not install: dependency resolution (packageDependencies.test.ts) is skipped.
  return {
    ...CONFIGURATION,
    metadata: { name },
    spec: { package: pkg, packagePullSecrets: secrets, skipDependencyResolution: true },
  };
}

async function cfgCondition(client: KubeClient, type: string): Promise<Condition | undefined> {
  return condition(await get<Obj>(client, { ...CONFIGURATION, metadata: { name: NAME } }), type);
}

/** The Configuration's condition once it matches `want`. */
function waitCondition(client: KubeClient, type: string, want: Partial<Condition>): Promise<Condition> {
  return eventually(
    `Configuration ${type} ${JSON.stringify(want)}`,
    async () => {
      const got = await cfgCondition(client, type);
      if (Object.entries(want).every(([k, v]) => got?.[k as keyof Condition] === v)) return got;
      throw new Error(JSON.stringify(got));
    },
    { timeoutMs: 40_000 },
  );
}

/** The controller reference of an object, as "Kind/name". */
async function controllerOf(client: KubeClient, ref: typeof XRD): Promise<string | undefined> {
  const object = await get<Obj>(client, ref);
  const controller = object?.metadata.ownerReferences?.find((r) => r.controller === true);
  return controller ? `${controller.kind}/${controller.name}` : undefined;
}

async function currentRevision(client: KubeClient): Promise<string> {
  const cfg = await get<Obj & { status?: { currentRevision?: string } }>(client, {
    ...CONFIGURATION,
    metadata: { name: NAME },
  });
  return cfg?.status?.currentRevision ?? '';
}

describe('Configuration packages from a real registry (integration)', function () {
  this.timeout(120_000);
  const registry = new TestRegistry('token');
  let running: RunningEngine | undefined;
  let client: KubeClient;
  let cacheDir: string | undefined;
  const refs: Record<string, string> = {};
  const digests: Record<string, string> = {};
  const xr = {
    apiVersion: 'platform.upbound.io/v1alpha1',
    kind: 'XApp',
    metadata: { name: 'ghost' },
    spec: { parameters: { providerConfigName: 'default', passwordSecretRef: { namespace: 'default', name: 'db' } } },
  } as XrObject;

  before(async () => {
    client = controlPlane().client();
    await registry.start();
    const stream = packageStream(NAME, ['apis/definition.yaml', 'apis/composition.yaml']);
    const v1 = await buildPackage(stream);
    refs.v1 = await registry.push(v1, 'upbound/configuration-app', 'v0.1.0');
    digests.v1 = v1.digest;
    // The second release labels its Composition: a new digest, and a change that shows which revision applied it.
    const v2 = await buildPackage(stream.replace('    provider: helm', '    provider: helm\n    release: v0.2.0'));
    refs.v2 = await registry.push(v2, 'upbound/configuration-app', 'v0.2.0');
    digests.v2 = v2.digest;
    const malformed = await buildPackage('apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\n  name: [oops\n');
    refs.malformed = await registry.push(malformed, 'upbound/configuration-app', 'v0.3.0-broken');
    const empty = await buildImage([{ files: { 'README.md': 'no package here\n' } }]);
    refs.notAPackage = await registry.push(empty, 'org/not-a-package', 'v1');
    // A Configuration carrying a CRD: linted (an event), the CRD left out, the rest installed.
    const crd = `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.org\n`;
    const wrongKinds = await buildPackage(
      `apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: mixed\n---\n${crd}---\n` +
        COMPOSITION_YAML,
    );
    refs.wrongKinds = await registry.push(wrongKinds, 'org/mixed', 'v1');
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
    running = await startEngine({ packageRuntime: 'Deployment', leaderElectionNamespace: NS, xpkgCacheDir: cacheDir });
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'registry');
    await apply(client, { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { name: 'registry', namespace: NS } });
    await apply(client, RELEASE_CRD);
    // Where the Composition writes its connection Secrets (writeConnectionSecretsToNamespace).
    await apply(client, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'upbound-system' } });
    await apply(client, PT);
  });

  after(async () => {
    await remove(client, xr).catch(() => undefined);
    await remove(client, { ...CONFIGURATION, metadata: { name: NAME } }).catch(() => undefined);
    await running?.stop();
    await registry.stop();
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it('installs the package: its XRD Established and its Composition, both controlled by the active revision', async () => {
    await apply(client, configuration(refs.v1 ?? ''));
    const revision = `${NAME}-${(digests.v1 ?? '').slice('sha256:'.length, 'sha256:'.length + 12)}`;
    await waitCondition(client, 'Healthy', { status: 'True', reason: 'HealthyPackageRevision' });
    expect(await cfgCondition(client, 'Installed')).to.include({ status: 'True', reason: 'ActivePackageRevision' });
    expect(await currentRevision(client)).to.equal(revision);
    const rev = await get<
      Obj & { spec: { desiredState: string; revision: number }; status: { objectRefs: unknown[] } }
    >(client, { ...REVISION, metadata: { name: revision } });
    expect(rev?.spec).to.include({ desiredState: 'Active', revision: 1 });
    expect(condition(rev, 'RevisionHealthy')).to.include({ status: 'True', reason: 'HealthyPackageRevision' });
    expect(rev?.status.objectRefs.map((r) => JSON.stringify(r))).to.have.length(2);
    expect(await controllerOf(client, XRD)).to.equal(`ConfigurationRevision/${revision}`);
    expect(await controllerOf(client, COMPOSITION)).to.equal(`ConfigurationRevision/${revision}`);
    const xrdObject = await get<Obj>(client, XRD);
    expect(xrdObject?.metadata.ownerReferences?.map((r) => `${r.kind}/${r.name}`)).to.include(`Configuration/${NAME}`);
    await eventually('XRD Established', async () => {
      const got = await get<Obj>(client, XRD);
      if (condition(got, 'Established')?.status === 'True') return got;
      throw new Error(JSON.stringify(got?.status ?? got));
    });
  });

  it('composes an XR of the installed XRD with the installed Composition', async () => {
    await eventually('XApp served', () => get(client, { ...xr, metadata: { name: 'probe' } }).then(() => true));
    await apply(client, xr);
    const release = await eventually(
      'the XApp composes a Release',
      async () => {
        const got = await get<Obj>(client, xr);
        // A v1 XRD's XR is a legacy one: its references are spec.resourceRefs.
        const spec = got?.spec as { resourceRefs?: { apiVersion: string; kind: string; name: string }[] } | undefined;
        const ref = spec?.resourceRefs?.find((r) => r.kind === 'Release');
        if (ref === undefined) throw new Error(JSON.stringify(got?.status ?? got));
        return get<Obj & { spec: { forProvider: { namespace: string } } }>(client, {
          apiVersion: ref.apiVersion,
          kind: ref.kind,
          metadata: { name: ref.name },
        });
      },
      { timeoutMs: 40_000 },
    );
    expect(release.spec.forProvider.namespace).to.equal('ghost');
    await eventually('the XApp Synced', async () => {
      const synced = condition(await get<Obj>(client, xr), 'Synced');
      if (synced?.status === 'True') return synced;
      throw new Error(JSON.stringify(synced));
    });
  });

  it('upgrades to a second tag: a new active revision, the old one inactive, the XR kept', async () => {
    const old = await currentRevision(client);
    const next = `${NAME}-${(digests.v2 ?? '').slice('sha256:'.length, 'sha256:'.length + 12)}`;
    await apply(client, configuration(refs.v2 ?? ''));
    await eventually(
      'the Composition controlled by the new revision, with its label',
      async () => {
        const controller = await controllerOf(client, COMPOSITION);
        const labels = (await get<Obj>(client, COMPOSITION))?.metadata.labels as Record<string, string> | undefined;
        if (controller === `ConfigurationRevision/${next}` && labels?.release === 'v0.2.0') return true;
        throw new Error(`${controller ?? 'no controller'} ${JSON.stringify(labels)}`);
      },
      { timeoutMs: 40_000 },
    );
    await waitCondition(client, 'Healthy', { status: 'True' });
    expect(await currentRevision(client)).to.equal(next);
    const previous = await get<Obj & { spec: { desiredState: string } }>(client, {
      ...REVISION,
      metadata: { name: old },
    });
    expect(previous?.spec.desiredState).to.equal('Inactive');
    expect(await controllerOf(client, XRD)).to.equal(`ConfigurationRevision/${next}`);
    const owners = (await get<Obj>(client, XRD))?.metadata.ownerReferences?.map((r) => r.name) ?? [];
    expect(owners).to.include.members([old, next, NAME]);
    expect(await get(client, xr), 'the XR').to.not.equal(undefined);
  });

  it('reports a broken package and an unreachable registry, touching nothing installed', async () => {
    const installed = await currentRevision(client);
    const composition = await get<Obj>(client, COMPOSITION);
    await apply(client, configuration(refs.malformed ?? ''));
    const broken = await waitCondition(client, 'Installed', { status: 'False', reason: 'UnpackingPackage' });
    expect(broken.message).to.match(/^cannot unpack package: cannot parse package/);
    expect(await cfgCondition(client, 'Healthy')).to.include({ status: 'False', reason: 'UnhealthyPackageRevision' });
    const cfg = await get<Obj>(client, { ...CONFIGURATION, metadata: { name: NAME } });
    await eventually('an UnpackPackage event', async () => {
      const events = await eventsFor(client, 'default', cfg?.metadata.uid ?? '', 'UnpackPackage');
      return events.length > 0 ? events : undefined;
    });

    const unreachable = `127.0.0.1:${await freePort()}/upbound/configuration-app:v0.1.0`;
    await mergePatch(client, { ...CONFIGURATION, metadata: { name: NAME } }, { spec: { package: unreachable } });
    await eventually('the unreachable registry reported', async () => {
      const got = await cfgCondition(client, 'Installed');
      if (got?.reason === 'UnpackingPackage' && got.message?.includes(unreachable.split('/')[0] ?? '')) return got;
      throw new Error(JSON.stringify(got));
    });

    expect(await currentRevision(client)).to.equal(installed);
    const revision = await get<Obj & { spec: { desiredState: string } }>(client, {
      ...REVISION,
      metadata: { name: installed },
    });
    expect(revision?.spec.desiredState).to.equal('Active');
    const after = await get<Obj>(client, COMPOSITION);
    expect(after?.metadata.resourceVersion).to.equal(composition?.metadata.resourceVersion);
    expect(await controllerOf(client, XRD)).to.equal(`ConfigurationRevision/${installed}`);
    expect(await get(client, xr), 'the XR').to.not.equal(undefined);
  });

  it('reports a 401, a missing tag and an image without package.yaml as UnpackingPackage', async () => {
    const cases: Record<string, { object: KubeObject; message: RegExp }> = {
      // Token authentication: the token service refuses an anonymous pull.
      'no credentials': {
        object: configuration(refs.v1 ?? '', 'no-credentials', []),
        message: /cannot get a token for repository:upbound\/configuration-app:pull/,
      },
      'a missing tag': {
        object: configuration((refs.v1 ?? '').replace(':v0.1.0', ':v9.9.9'), 'missing-tag'),
        message: /404|MANIFEST_UNKNOWN/,
      },
      'not a package': {
        object: configuration(refs.notAPackage ?? '', 'not-a-package'),
        message: /package\.yaml not found/,
      },
    };
    for (const { object } of Object.values(cases)) await apply(client, object);
    for (const [name, { object, message }] of Object.entries(cases)) {
      const got = await eventually(`${name}: Installed False`, async () => {
        const c = condition(await get<Obj>(client, object), 'Installed');
        if (c?.reason === 'UnpackingPackage') return c;
        throw new Error(JSON.stringify(c));
      });
      expect(got.message, name)
        .to.match(/^cannot unpack package: /)
        .and.to.match(message);
      await remove(client, object);
    }
  });

  it('leaves out objects a Configuration may not carry, with a lint event, and installs the rest', async () => {
    const mixed = configuration(refs.wrongKinds ?? '', 'mixed');
    await apply(client, mixed);
    const composition = { ...COMPOSITION, metadata: { name: 'mixed.example.org' } };
    await eventually('the Composition installed', async () =>
      (await controllerOf(client, composition)) ? true : undefined,
    );
    const revisionName = await eventually('a current revision', async () => {
      const cfg = await get<Obj & { status?: { currentRevision?: string } }>(client, mixed);
      return cfg?.status?.currentRevision;
    });
    const revision = await get<Obj>(client, { ...REVISION, metadata: { name: revisionName } });
    const lint = await eventually('a LintPackage event', async () => {
      const events = await eventsFor(client, 'default', revision?.metadata.uid ?? '', 'LintPackage');
      return events[0];
    });
    expect(lint.note).to.equal(
      'linting package contents failed: object did not pass any of the linters with following errors: object is not an XRD, object is not an ManagedResourceActivationPolicy, object is not a Composition, object is not an Operation, object is not a CronOperation, object is not a WatchOperation',
    );
    const crd = await get(client, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.org' },
    });
    expect(crd, 'the CRD').to.equal(undefined);
    await remove(client, mixed);
  });

  it('deleting the Configuration deletes its revisions, and the garbage collector what only they owned', async () => {
    await remove(client, xr);
    await eventually('the XR gone', async () => ((await get(client, xr)) === undefined ? true : undefined), {
      timeoutMs: 40_000,
    });
    await remove(client, { ...CONFIGURATION, metadata: { name: NAME } });
    await eventually(
      'revisions, XRD and Composition gone',
      async () => {
        const revisions = await client.request<{ items: unknown[] }>(
          'GET',
          '/apis/pkg.crossplane.io/v1/configurationrevisions',
          {
            query: { labelSelector: `pkg.crossplane.io/package=${NAME}` },
          },
        );
        const left = [
          revisions.items.length > 0 ? 'revisions' : '',
          (await get(client, XRD)) ? 'XRD' : '',
          (await get(client, COMPOSITION)) ? 'Composition' : '',
        ].filter(Boolean);
        if (left.length === 0) return true;
        throw new Error(`left: ${left.join(', ')}`);
      },
      { timeoutMs: 60_000 },
    );
  });
});
