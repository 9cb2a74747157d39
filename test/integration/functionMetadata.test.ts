import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClient, KubeObject } from '../../src/kube/index.js';
import type { FunctionRevision } from '../../src/packages/index.js';
import { buildPackage } from '../unit/fakes/xpkg.js';
import { pullSecret } from '../unit/fakes/registry.js';
import { apply, get, remove, startEngine, type RunningEngine } from './engine.js';
import { controlPlane, eventually } from './harness.js';
import { packageStream, TestRegistry } from './registry.js';

// A Function package's metadata read through the OCI client: upstream's function-patch-and-transform package (its
// metadata and its input CRD) pushed to a real registry, run as a package (not the built-in: the registry is not
// upstream's), its revision's status.capabilities from the metadata; and a Function whose registry cannot be reached,
// whose runtime is made as before while its revision says why its capabilities are unknown.
const NS = 'function-metadata-system';
const REVISIONS = '/apis/pkg.crossplane.io/v1/functionrevisions';
const INPUT_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'resources.pt.fn.crossplane.io' },
};

/** An Operation calling the package-run patch-and-transform, which does not declare the operation capability. */
const OPERATION = {
  apiVersion: 'ops.crossplane.io/v1alpha1',
  kind: 'Operation',
  metadata: { name: 'metadata-capabilities' },
  spec: { mode: 'Pipeline', pipeline: [{ step: 'pt', functionRef: { name: 'metadata-pt' } }] },
};

function fn(name: string, pkg: string): KubeObject {
  return {
    apiVersion: 'pkg.crossplane.io/v1',
    kind: 'Function',
    metadata: { name },
    spec: { package: pkg, packagePullSecrets: [{ name: 'registry' }] },
  };
}

/** The Function's active revision once its status has the PackageMetadata condition. */
function revisionOf(client: KubeClient, name: string): Promise<FunctionRevision> {
  return eventually(
    `${name}: a revision with PackageMetadata`,
    async () => {
      const list = await client.request<{ items: FunctionRevision[] }>('GET', REVISIONS, {
        query: { labelSelector: `pkg.crossplane.io/package=${name}` },
      });
      const revision = list.items.find((r) => r.status?.conditions?.some((c) => c.type === 'PackageMetadata'));
      if (revision) return revision;
      throw new Error(JSON.stringify(list.items.map((r) => r.status)));
    },
    { timeoutMs: 40_000 },
  );
}

describe('Function package metadata (integration)', function () {
  this.timeout(120_000);
  const registry = new TestRegistry('htpasswd');
  let engine: RunningEngine | undefined;
  let client: KubeClient;
  let cacheDir: string | undefined;
  let ref = '';

  before(async () => {
    client = controlPlane().client();
    await registry.start();
    const stream = packageStream('function-patch-and-transform', ['input/pt.fn.crossplane.io_resources.yaml']);
    ref = await registry.push(await buildPackage(stream), 'crossplane-contrib/function-patch-and-transform', 'v0.10.8');
    cacheDir = await mkdtemp(join(tmpdir(), 'xpkg-cache-'));
    engine = await startEngine({
      packageRuntime: 'Deployment',
      leaderElectionNamespace: NS,
      xpkgCacheDir: cacheDir,
      enableOperations: true,
    });
    const secret = pullSecret(registry.host, registry.user.username, registry.user.password, 'registry');
    await apply(client, { apiVersion: 'v1', kind: 'Secret', ...secret, metadata: { name: 'registry', namespace: NS } });
  });

  after(async () => {
    await remove(client, OPERATION).catch(() => undefined);
    for (const name of ['metadata-pt', 'metadata-unreachable']) {
      await remove(client, fn(name, '')).catch(() => undefined);
    }
    await engine?.stop();
    await registry.stop();
    if (cacheDir !== undefined) await rm(cacheDir, { recursive: true, force: true });
  });

  it("writes the capabilities the package's metadata implies, and installs none of its objects", async () => {
    await apply(client, fn('metadata-pt', ref));
    const revision = await revisionOf(client, 'metadata-pt');
    const condition = revision.status?.conditions?.find((c) => c.type === 'PackageMetadata');
    expect(condition, JSON.stringify(condition)).to.include({ status: 'True', reason: 'MetadataRead' });
    // Its metadata declares none: a composition function, as pkgmetav1 Function.GetCapabilities says.
    expect(revision.status?.capabilities).to.deep.equal(['composition']);
    // Upstream's FunctionRevisions install none of the package's objects: the input CRD is not created.
    expect(await get(client, INPUT_CRD), 'the input CRD').to.equal(undefined);
  });

  it('reports a registry that cannot be reached on the revision and runs the package as before', async () => {
    const unreachable = `127.0.0.1:1/crossplane-contrib/function-go-templating:v0.9.0`;
    await apply(client, fn('metadata-unreachable', unreachable));
    const revision = await revisionOf(client, 'metadata-unreachable');
    const condition = revision.status?.conditions?.find((c) => c.type === 'PackageMetadata');
    expect(condition, JSON.stringify(condition)).to.include({ status: 'False', reason: 'MetadataUnavailable' });
    expect(condition?.message).to.match(/^cannot read package metadata, capabilities unknown: .*127\.0\.0\.1:1/);
    expect(revision.status?.capabilities, 'as before').to.deep.equal([]);
    expect(revision.status?.conditions?.find((c) => c.type === 'RevisionHealthy')?.status).to.equal('True');
    const deployment = await get(client, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: revision.metadata.name, namespace: NS },
    });
    expect(deployment, 'its runtime').to.not.equal(undefined);
  });

  it('refuses an Operation whose function does not declare the operation capability, as upstream', async () => {
    const revision = await revisionOf(client, 'metadata-pt');
    await apply(client, OPERATION);
    const valid = await eventually(
      'ValidPipeline False',
      async () => {
        const op = await get<
          KubeObject & {
            status?: { conditions?: { type: string; status: string; reason: string; message?: string }[] };
          }
        >(client, OPERATION);
        const c = op?.status?.conditions?.find((x) => x.type === 'ValidPipeline');
        if (c?.status === 'False') return c;
        throw new Error(JSON.stringify(op?.status));
      },
      { timeoutMs: 30_000 },
    );
    expect(valid).to.include({
      reason: 'MissingCapabilities',
      message: `function capability check failed: function "metadata-pt" (active revision "${revision.metadata.name}") is missing required capabilities: operation`,
    });
  });
});
